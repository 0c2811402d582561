# crowd_find_dependencies(<missing-var> [OFFLINE])
#
# Finds what crowd's two static libraries link and makes each an imported
# target: for crowd_runtime PkgConfig::CGLM, PkgConfig::CJSON, PkgConfig::PNG,
# PkgConfig::EPOXY, crowd::openexr_core and Threads::Threads; with OFFLINE
# also, for crowd, PkgConfig::ASSIMP and meshoptimizer::meshoptimizer.
# crowd's own build and the installed crowdConfig.cmake both call it, so the
# exported targets name dependencies that exist in either place. It is a
# function so that a project finding crowd keeps its own variables
# (PNG_LIBRARIES, ...): only the targets and cache entries remain. Sets
# <missing-var> to what was not found, empty when everything was.
function(crowd_find_dependencies missing_var)
    cmake_parse_arguments(ARG "OFFLINE" "" "" ${ARGN})
    set(missing "")
    find_package(PkgConfig QUIET)
    if(NOT PKG_CONFIG_FOUND)
        set(${missing_var} pkg-config PARENT_SCOPE)
        return()
    endif()
    set(modules CGLM cglm CJSON libcjson PNG libpng EPOXY epoxy)
    if(ARG_OFFLINE)
        list(APPEND modules ASSIMP assimp)
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
