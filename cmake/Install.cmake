# `cmake --install` of the C++ package: headers, libsymnet, symnetConfig.cmake (+ version file
# and the exported target symnet::symnet) and symnet.pc, as the install component cpp_package.
# In a wheel build (scikit-build-core) the component is left out of the default install, which
# puts the library into the symnet Python package instead (python/CMakeLists.txt); that build
# tree still installs it with `cmake --install <build> --component cpp_package --prefix DIR`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(symnet_install_opts COMPONENT cpp_package)
if(SKBUILD)
  list(APPEND symnet_install_opts EXCLUDE_FROM_ALL)
endif()

install(TARGETS symnet EXPORT symnetTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ${symnet_install_opts}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/symnet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        ${symnet_install_opts})
install(EXPORT symnetTargets NAMESPACE symnet:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/symnet
        ${symnet_install_opts})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/symnetConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/symnetConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/symnet)
# 0.x: a minor version may change the C++ API (CHANGELOG.md), so only the same minor matches
write_basic_package_version_file(${PROJECT_BINARY_DIR}/symnetConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/symnetConfig.cmake ${PROJECT_BINARY_DIR}/symnetConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/symnet ${symnet_install_opts})
set(SYMNET_PC_DEFINES "")
if(SYMNET_CUDA_ENABLED)
  set(SYMNET_PC_DEFINES " -DSYMNET_USE_CUDA=1")
endif()
# the way up from <libdir>/pkgconfig to the prefix: "../.." for lib, "../../.." for lib/<triplet>
string(REGEX REPLACE "[^/]+" ".." SYMNET_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${PROJECT_SOURCE_DIR}/cmake/symnet.pc.in ${PROJECT_BINARY_DIR}/symnet.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/symnet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        ${symnet_install_opts})
