include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS pgas_runtime pgas_pgas pgas_algorithms ${PGAS_IO_TARGETS} EXPORT pgas-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/ runtime/include/ algorithms/include/ io/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pgas-targets NAMESPACE pgas:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pgas)
configure_package_config_file(cmake/pgasConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/pgasConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pgas)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/pgasConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pgasConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/pgasConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pgas)
# The optional targets' dependencies are found again, the same way, by the installed package.
install(FILES cmake/pgas_find_io_dependencies.cmake cmake/pgas_find_hwloc.cmake cmake/pgas_mpi_family.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pgas)
