# The import's folders (crowd_module globs only src/import/*.c, the entry):
# gltf/ crowd's glTF reader, assimp/ (with precheck/) assimp's side, both
# filling the intermediate scene that scene/ turns into an asset, anim/
# clips from other files, attach/ props on sockets.
foreach(folder gltf assimp assimp/precheck scene anim attach)
    file(GLOB folder_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/import/${folder}/*.c")
    target_sources(${objects} PRIVATE ${folder_sources})
endforeach()

# The import's other half (crowd/import.h): the parent's side of the helper
# process (assimp/process/) and the helper program beside the CLI (assimp/helper/),
# installed into libexec, where the library looks for it last. A
# CROWD_IMPORT_IN_PROCESS build has neither and runs assimp in the calling process.
include(GNUInstallDirs)
if(CROWD_IMPORT_IN_PROCESS)
    target_compile_definitions(${objects} PRIVATE CROWD_IMPORT_IN_PROCESS)
else()
    file(GLOB process_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/import/assimp/process/*.c")
    target_sources(${objects} PRIVATE ${process_sources})
    target_compile_definitions(${objects} PRIVATE
        CROWD_IMPORT_HELPER_INSTALLED="${CMAKE_INSTALL_FULL_LIBEXECDIR}/crowd-import-helper")
    add_executable(crowd_import_helper "${PROJECT_SOURCE_DIR}/src/import/assimp/helper/crowd_import_helper.c")
    set_target_properties(crowd_import_helper PROPERTIES OUTPUT_NAME crowd-import-helper
                          RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
    target_include_directories(crowd_import_helper PRIVATE "${PROJECT_SOURCE_DIR}/src")
    target_link_libraries(crowd_import_helper PRIVATE ${library})
    if(CROWD_INSTALL)
        install(TARGETS crowd_import_helper RUNTIME DESTINATION "${CMAKE_INSTALL_LIBEXECDIR}")
    endif()
endif()
