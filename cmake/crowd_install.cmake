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
# Named by the files crowd linked: libraries without a pkg-config file
# (meshoptimizer), with one that adds the C++ libraries (OpenEXR), or with
# one whose static dependencies are not crowd's (epoxy's name GL, EGL, X11).
set(CROWD_PC_OPENEXR_CORE "${CROWD_OPENEXR_CORE_LIBRARY}")
get_target_property(CROWD_PC_MESHOPTIMIZER meshoptimizer::meshoptimizer LOCATION)
get_target_property(CROWD_PC_EPOXY PkgConfig::crowd_epoxy INTERFACE_LINK_LIBRARIES)
foreach(pc crowd-runtime crowd)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc" DESTINATION "${crowd_pc_dir}")
endforeach()
