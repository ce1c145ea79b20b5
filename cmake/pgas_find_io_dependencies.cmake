# Finds the optional dependencies of pgas's I/O and interoperability targets, matching the MPI
# in use (find_package(MPI) must have run):
#   PGAS_MPI_FLAVOUR        openmpi, mpich or unknown
#   PGAS_HDF5_FOUND         a parallel HDF5 built for that MPI -> target pgas_hdf5_dependency
#   PGAS_BOOST_MPI_FOUND    Boost.MPI built for that MPI (Debian builds it for Open MPI only)
#   PGAS_SERIALIZATION_FOUND Boost.Serialization (independent of MPI)
# Used by the build and by the installed pgasConfig.cmake, so both find the same libraries.

if(NOT DEFINED PGAS_MPI_FLAVOUR)
  set(pgas_mpi_text "${MPI_CXX_LIBRARIES};${MPI_CXX_COMPILER};${MPI_CXX_INCLUDE_DIRS}")
  if(pgas_mpi_text MATCHES "mpich")
    set(PGAS_MPI_FLAVOUR mpich)
  elseif(pgas_mpi_text MATCHES "openmpi")
    set(PGAS_MPI_FLAVOUR openmpi)
  else()
    set(PGAS_MPI_FLAVOUR unknown)
  endif()
endif()

# Parallel HDF5: Debian installs one per MPI side by side (hdf5-openmpi.pc, hdf5-mpich.pc);
# elsewhere CMake's FindHDF5, which must report a parallel build.
set(PGAS_HDF5_FOUND FALSE)
if(NOT TARGET pgas_hdf5_dependency)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND AND NOT PGAS_MPI_FLAVOUR STREQUAL "unknown")
    pkg_check_modules(PGAS_HDF5_PC QUIET IMPORTED_TARGET GLOBAL hdf5-${PGAS_MPI_FLAVOUR})
    if(PGAS_HDF5_PC_FOUND)
      add_library(pgas_hdf5_dependency INTERFACE IMPORTED GLOBAL)
      target_link_libraries(pgas_hdf5_dependency INTERFACE PkgConfig::PGAS_HDF5_PC)
    endif()
  endif()
  if(NOT TARGET pgas_hdf5_dependency)
    set(HDF5_PREFER_PARALLEL TRUE)
    find_package(HDF5 QUIET COMPONENTS C)
    if(HDF5_FOUND AND HDF5_IS_PARALLEL)
      add_library(pgas_hdf5_dependency INTERFACE IMPORTED GLOBAL)
      target_link_libraries(pgas_hdf5_dependency INTERFACE HDF5::HDF5)
    endif()
  endif()
endif()
if(TARGET pgas_hdf5_dependency)
  set(PGAS_HDF5_FOUND TRUE)
endif()

find_package(Boost 1.74 QUIET COMPONENTS serialization)
set(PGAS_SERIALIZATION_FOUND ${Boost_SERIALIZATION_FOUND})

# Debian's libboost-mpi is built for Open MPI; linked into an MPICH program it would start a
# second, different MPI.
set(PGAS_BOOST_MPI_FOUND FALSE)
if(PGAS_MPI_FLAVOUR STREQUAL "openmpi")
  find_package(Boost 1.74 QUIET COMPONENTS mpi serialization)
  if(Boost_MPI_FOUND)
    set(PGAS_BOOST_MPI_FOUND TRUE)
  endif()
endif()
