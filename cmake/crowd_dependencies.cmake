# crowd_find_dependencies(<missing-var> [OFFLINE] [NO_GPU])
#
# Finds what crowd's two static libraries link and makes each an imported
# target: for crowd_runtime PkgConfig::crowd_cglm, PkgConfig::crowd_cjson,
# PkgConfig::crowd_png, PkgConfig::crowd_zlib, PkgConfig::crowd_epoxy,
# crowd::openexr_core and
# Threads::Threads; with OFFLINE also, for crowd, PkgConfig::crowd_assimp and
# meshoptimizer::meshoptimizer. crowd's own build and the installed
# crowdConfig.cmake both call it, so the exported targets name dependencies
# that exist in either place. The crowd_ prefixes and the function scope
# leave a project that finds crowd its own names (PNG_LIBRARIES,
# PkgConfig::PNG, ...). NO_GPU leaves out libepoxy (the WebAssembly build,
# CROWD_WEB, whose gpu module takes emscripten's GL, src/gpu/gl.h). Sets <missing-var> to what was not
# found, empty when everything was.
function(crowd_find_dependencies missing_var)
    cmake_parse_arguments(ARG "OFFLINE;NO_GPU" "" "" ${ARGN})
    set(missing "")
    find_package(PkgConfig QUIET)
    if(NOT PKG_CONFIG_FOUND)
        set(${missing_var} pkg-config PARENT_SCOPE)
        return()
    endif()
    set(modules crowd_cglm cglm crowd_cjson libcjson crowd_png libpng crowd_zlib zlib)
    if(NOT ARG_NO_GPU)
        list(APPEND modules crowd_epoxy epoxy)
    endif()
    if(ARG_OFFLINE)
        list(APPEND modules crowd_assimp assimp)
    endif()
    while(modules)
        list(POP_FRONT modules prefix module)
        if(NOT TARGET PkgConfig::${prefix})
            pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
            if(NOT ${prefix}_FOUND)
                list(APPEND missing ${module})
            endif()
        endif()
    endwhile()

    find_package(Threads QUIET)
    if(NOT Threads_FOUND)
        list(APPEND missing Threads)
    endif()

    # OpenEXR's C core library alone: its pkg-config file drags in the C++ libraries.
    if(NOT TARGET crowd::openexr_core)
        find_library(CROWD_OPENEXR_CORE_LIBRARY NAMES OpenEXRCore OpenEXRCore-3_1)
        find_path(CROWD_OPENEXR_CORE_INCLUDE_DIR openexr.h PATH_SUFFIXES OpenEXR)
        if(CROWD_OPENEXR_CORE_LIBRARY AND CROWD_OPENEXR_CORE_INCLUDE_DIR)
            add_library(crowd::openexr_core INTERFACE IMPORTED)
            set_target_properties(crowd::openexr_core PROPERTIES
                INTERFACE_LINK_LIBRARIES "${CROWD_OPENEXR_CORE_LIBRARY}"
                INTERFACE_INCLUDE_DIRECTORIES "${CROWD_OPENEXR_CORE_INCLUDE_DIR}")
        else()
            list(APPEND missing OpenEXRCore)
        endif()
    endif()

    if(ARG_OFFLINE AND NOT TARGET meshoptimizer::meshoptimizer)
        find_package(meshoptimizer QUIET)
        if(NOT meshoptimizer_FOUND)
            list(APPEND missing meshoptimizer)
        endif()
    endif()
    set(${missing_var} "${missing}" PARENT_SCOPE)
endfunction()
