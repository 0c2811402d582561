# crowd_add_test(NAME SOURCES... LIBS libs... ARGS args...): one test
# executable under CTest, with the model folders and the CLI path compiled
# in. Exit code 77 = skipped.
function(crowd_add_test name)
    cmake_parse_arguments(T "" "" "SOURCES;LIBS;ARGS" ${ARGN})
    add_executable(${name} ${T_SOURCES} "${PROJECT_SOURCE_DIR}/tests/common/check_temp_dir.c")
    target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/include" "${PROJECT_SOURCE_DIR}/tests/common"
                                               "${PROJECT_SOURCE_DIR}/src")
    target_link_libraries(${name} PRIVATE ${T_LIBS} m)
    target_compile_definitions(${name} PRIVATE
        CROWD_MODELS_DIR="${CROWD_MODELS_DIR}"
        CROWD_ASSIMP_MODELS_DIR="${CROWD_ASSIMP_MODELS_DIR}"
        CROWD_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
        CROWD_CLI="$<TARGET_FILE:crowd_cli>")
    add_test(NAME ${name} COMMAND ${name} ${T_ARGS} WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200)
    if(TARGET crowd_import_helper)
        # Imports run assimp in the helper (crowd/import.h), found through this.
        set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT
                     "CROWD_IMPORT_HELPER=$<TARGET_FILE:crowd_import_helper>")
    endif()
endfunction()
