# Which MPI this is — "Open MPI", "MPICH", "Intel MPI", "MVAPICH" or the library's own first
# words — from what FindMPI reports, so the installed package can refuse another MPI with a
# sentence instead of a link error. MPI libraries are not interchangeable at link or run time.
function(pgas_mpi_family out)
  if(NOT MPI_CXX_LIBRARY_VERSION_STRING)
    # FindMPI runs MPI_Get_library_version only when asked to.
    set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
    find_package(MPI QUIET COMPONENTS CXX)
  endif()
  set(v "${MPI_CXX_LIBRARY_VERSION_STRING}")
  if(v MATCHES "^Open MPI")
    set(family "Open MPI")
  elseif(v MATCHES "^MVAPICH")
    set(family "MVAPICH")
  elseif(v MATCHES "^MPICH")
    set(family "MPICH")
  elseif(v MATCHES "^Intel")
    set(family "Intel MPI")
  elseif(v MATCHES "^([^,:\n]+)")
    set(family "${CMAKE_MATCH_1}")
  else()
    set(family "")  # not determined: nothing to compare
  endif()
  set(${out} "${family}" PARENT_SCOPE)
endfunction()
