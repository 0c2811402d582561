# The WebAssembly build (CROWD_WEB): configured by emcmake, which names
# emscripten's toolchain, against the sysroot scripts/web-deps.sh builds
# (zlib, libpng, cJSON, OpenEXR's C core, cglm's headers). make web runs
# both. pkg-config and the find_* calls see that sysroot and emscripten's
# own, never the host's libraries.
if(NOT EMSCRIPTEN)
    message(FATAL_ERROR "crowd: CROWD_WEB builds for WebAssembly: configure with emcmake cmake (make web does)")
endif()
foreach(option CROWD_BUILD_TESTS CROWD_BUILD_CLI CROWD_INSTALL CROWD_FUZZ CROWD_SANITIZE)
    if(${option})
        message(FATAL_ERROR "crowd: ${option} is not available with CROWD_WEB")
    endif()
endforeach()
set(CROWD_WEB_SYSROOT "${PROJECT_SOURCE_DIR}/build/web/sysroot" CACHE PATH
    "Libraries built for WebAssembly (scripts/web-deps.sh build)")
if(NOT EXISTS "${CROWD_WEB_SYSROOT}/lib/pkgconfig/zlib.pc")
    message(FATAL_ERROR "crowd: no WebAssembly sysroot in ${CROWD_WEB_SYSROOT}: scripts/web-deps.sh build makes it")
endif()
list(APPEND CMAKE_FIND_ROOT_PATH "${CROWD_WEB_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR} "${CROWD_WEB_SYSROOT}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
