# MPI's C interface only, for pgas's own targets: without these, mpi.h also parses Open MPI's
# (or MPICH's) deprecated C++ bindings, a quarter of a second in each of the hundred units that
# compile one public header alone (the header check). pgas calls MPI's C functions only; users'
# targets keep whatever their mpi.h gives them.
add_library(pgas_mpi_c_only INTERFACE)
target_compile_definitions(pgas_mpi_c_only INTERFACE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
