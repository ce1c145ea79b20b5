# hwloc, which reads the machine's cache sizes (runtime/src/machine.cpp), found through
# pkg-config as Debian installs it. Used by the build and by the installed pgasConfig.cmake: the
# static runtime needs it when a consumer links.
if(NOT TARGET PkgConfig::PGAS_HWLOC)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(PGAS_HWLOC REQUIRED IMPORTED_TARGET GLOBAL hwloc)
endif()
