# cmake -DNM=nm -DARCHIVES="a.a;b.a" -P check_symbols.cmake
# Fails when an archive defines a global symbol without the crowd_ prefix, or
# when nm's output holds no crowd_ symbol at all (a parse that saw nothing
# must not pass).
foreach(archive IN LISTS ARCHIVES)
    execute_process(COMMAND "${NM}" -g --defined-only "${archive}"
                    OUTPUT_VARIABLE listing RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "${NM} failed on ${archive} (${status})")
    endif()
    string(REPLACE "\n" ";" lines "${listing}")
    set(public 0)
    set(foreign "")
    foreach(line IN LISTS lines)
        # "0000000000000000 T name": a defined global; "file.o:" and blank lines are not.
        if(line MATCHES "^[0-9a-fA-F]+ [A-Za-z] ([^ ]+)$")
            set(name "${CMAKE_MATCH_1}")
            # AddressSanitizer's one-definition-rule indicator of a global
            # (__odr_asan.NAME) is the compiler's, named after ours.
            string(REGEX REPLACE "^__odr_asan[.]" "" name "${name}")
            if(name MATCHES "^crowd_")
                math(EXPR public "${public} + 1")
            else()
                list(APPEND foreign "${name}")
            endif()
        endif()
    endforeach()
    list(REMOVE_DUPLICATES foreign)
    list(LENGTH foreign foreign_count)
    if(public EQUAL 0)
        message(FATAL_ERROR "${archive}: no crowd_ symbol in nm's output: cannot check it")
    endif()
    if(foreign_count GREATER 0)
        string(REPLACE ";" "\n  " shown "${foreign}")
        message(FATAL_ERROR "${archive}: ${foreign_count} global symbols without the crowd_ prefix:\n  ${shown}")
    endif()
    message(STATUS "${archive}: ${public} global symbols, all crowd_")
endforeach()
