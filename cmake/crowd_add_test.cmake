# How the suite is split and guarded.
#
# Timeouts are hang guards, never the assertion: a test must pass on a
# machine ten times slower than the development one, loaded by ctest -j.
# CROWD_TEST_TIMEOUT covers every test that takes under 6 minutes there
# (the slowest C test, test_bake_cli, took 257 s on 2 loaded cores);
# CROWD_SLOW_TEST_TIMEOUT the browser, Godot and install tests (test_browser
# took 496 s). Where a test bounds a time itself, it is CPU time for what
# uses CPU (the import helper's limits), or a guard as generous as these.
set(CROWD_TEST_TIMEOUT 3600)
set(CROWD_SLOW_TEST_TIMEOUT 7200)
# The tests that open a window run under xvfb-run, one of the packages of
# scripts/install-deps.sh test: where it is missing they are there all the
# same, and fail (ctest: executable not found) instead of vanishing.
find_program(CROWD_XVFB_RUN xvfb-run)
if(CROWD_XVFB_RUN)
    set(CROWD_XVFB_RUN_COMMAND "${CROWD_XVFB_RUN}")
else()
    set(CROWD_XVFB_RUN_COMMAND xvfb-run)
endif()
# Labels: make check runs the release build's tests without
#   slow      C tests over about a minute (many bakes through the CLI,
#             strace, the glTF validator on every written mesh)
#   browser   chromium (tests/browser)
#   godot     Godot 3 under Xvfb (tests/browser)
#   consumer  the install and three consumer builds (tests/consumer)
#   fuzz      the libFuzzer targets (fuzz/, a build of their own)
# so that the unit and GL tests (label gl: they render) give an answer in
# minutes; make test runs everything. no-sanitizer: not in the ASan run.

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
    crowd_add_test_group(${name} ${name} ${T_ARGS})
endfunction()

# crowd_add_test_group(TEST TARGET ARGS...): a CTest test running the
# executable TARGET (made by crowd_add_test, which adds its own test this
# way) with ARGS, with the same
# working folder, skip code, time limit and environment: a test executable
# with groups runs each as a test of its own, so ctest -j spreads them.
function(crowd_add_test_group name target)
    add_test(NAME ${name} COMMAND ${target} ${ARGN} WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${CROWD_TEST_TIMEOUT})
    if(TARGET crowd_import_helper)
        # Imports run assimp in the helper (crowd/import.h), found through this.
        set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT
                     "CROWD_IMPORT_HELPER=$<TARGET_FILE:crowd_import_helper>")
    endif()
endfunction()
