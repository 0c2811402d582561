# The import's other half (crowd/import.h): the parent's side of the helper
# process (process/) and the helper program beside the CLI, installed into
# libexec, where the library looks for it last. A CROWD_IMPORT_IN_PROCESS
# build has neither and runs assimp in the calling process.
include(GNUInstallDirs)
if(CROWD_IMPORT_IN_PROCESS)
    target_compile_definitions(${objects} PRIVATE CROWD_IMPORT_IN_PROCESS)
else()
    target_sources(${objects} PRIVATE "${PROJECT_SOURCE_DIR}/src/import/process/import_child.c"
                                      "${PROJECT_SOURCE_DIR}/src/import/process/import_helper_path.c")
    target_compile_definitions(${objects} PRIVATE
        CROWD_IMPORT_HELPER_INSTALLED="${CMAKE_INSTALL_FULL_LIBEXECDIR}/crowd-import-helper")
    add_executable(crowd_import_helper "${PROJECT_SOURCE_DIR}/src/import/helper/crowd_import_helper.c")
    set_target_properties(crowd_import_helper PROPERTIES OUTPUT_NAME crowd-import-helper
                          RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
    target_include_directories(crowd_import_helper PRIVATE "${PROJECT_SOURCE_DIR}/src")
    target_link_libraries(crowd_import_helper PRIVATE ${library})
    if(CROWD_INSTALL)
        install(TARGETS crowd_import_helper RUNTIME DESTINATION "${CMAKE_INSTALL_LIBEXECDIR}")
    endif()
endif()
