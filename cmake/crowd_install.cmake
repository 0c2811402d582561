# cmake --install: the headers, both static libraries, the CLI, pkg-config
# files (crowd-runtime.pc, crowd.pc) and a CMake package (find_package(crowd)
# gives crowd::runtime and crowd::crowd). Both package kinds are relocatable:
# they find the prefix from where they were installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/crowd" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")
install(TARGETS crowd_runtime crowd EXPORT crowd-targets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
if(TARGET crowd_cli)
    install(TARGETS crowd_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
endif()
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DOCDIR}")

set(crowd_config_dir "${CMAKE_INSTALL_LIBDIR}/cmake/crowd")
install(EXPORT crowd-targets NAMESPACE crowd:: DESTINATION "${crowd_config_dir}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/crowdConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/crowdConfig.cmake"
                              INSTALL_DESTINATION "${crowd_config_dir}")
# Before 1.0 a minor version may change the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/crowdConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/crowdConfig.cmake" "${PROJECT_BINARY_DIR}/crowdConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/crowd_dependencies.cmake"
        DESTINATION "${crowd_config_dir}")

# pkg-config: ${pcfiledir} makes the prefix follow the files, unless the
# install dirs were given as absolute paths.
set(crowd_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(CROWD_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
    file(RELATIVE_PATH crowd_pc_up "/prefix/${crowd_pc_dir}" "/prefix")
    string(REGEX REPLACE "/$" "" crowd_pc_up "${crowd_pc_up}")
    set(CROWD_PC_PREFIX "\${pcfiledir}/${crowd_pc_up}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
        set(CROWD_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
        set(CROWD_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
endforeach()
# Libraries with a pkg-config file of their own are Requires.private of the
# .pc.in files (libpng, zlib, libcjson, cglm, assimp). The others are -l
# flags, from the files crowd linked: meshoptimizer and OpenEXRCore have
# none (OpenEXR.pc is the C++ library, which crowd does not link), and
# epoxy's has one whose static closure (x11, egl, gl) would put libEGL,
# libGL and libX11 on every consumer's line, where crowd_runtime promises
# none (epoxy loads GL and EGL itself, at run time; tests/consumer checks).
# crowd_pc_library_flags(VAR FILES...): "-lNAME" for each lib*.so / lib*.a,
# with "-LDIR" where DIR is not one the linker searches anyway.
function(crowd_pc_library_flags var)
    set(flags "")
    foreach(file IN LISTS ARGN)
        get_filename_component(dir "${file}" DIRECTORY)
        get_filename_component(name "${file}" NAME)
        if(NOT name MATCHES "^lib(.+)\\.(so|a|dylib)(\\.[0-9.]+)?$")
            message(FATAL_ERROR "crowd: ${file}: not a lib*.so or lib*.a for a -l flag in the .pc files")
        endif()
        set(name "${CMAKE_MATCH_1}")
        if(dir AND NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
            list(APPEND flags "-L${dir}")
        endif()
        list(APPEND flags "-l${name}")
    endforeach()
    list(JOIN flags " " flags)
    set(${var} "${flags}" PARENT_SCOPE)
endfunction()
crowd_pc_library_flags(CROWD_PC_OPENEXR_CORE "${CROWD_OPENEXR_CORE_LIBRARY}")
get_target_property(meshoptimizer_file meshoptimizer::meshoptimizer LOCATION)
crowd_pc_library_flags(CROWD_PC_MESHOPTIMIZER "${meshoptimizer_file}")
get_target_property(epoxy_files PkgConfig::crowd_epoxy INTERFACE_LINK_LIBRARIES)
crowd_pc_library_flags(CROWD_PC_EPOXY ${epoxy_files})
foreach(pc crowd-runtime crowd)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc" DESTINATION "${crowd_pc_dir}")
endforeach()
