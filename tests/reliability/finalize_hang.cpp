// A finalize that never returns, for the watchdog (PGAS_WATCHDOG): the program starts MPI
// itself, uses pgas, ends the environment, and then image 0 never calls MPI_Finalize (it
// sleeps), so the others' MPI_Finalize waits for ever — as MPICH 4.0's may between hosts over
// TCP after a finished program. tests/reliability/CMakeLists.txt checks that the job ends by
// itself, non-zero, with each waiting image's line naming MPI_Finalize.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  {
    pgas::environment env(argc, argv);
    rank = static_cast<int>(pgas::this_image());
    (void)pgas::co_sum(1L);
  }
  if (rank == 0) {
    for (;;) pause();  // ended by the launcher when the others' watchdog ends the job
  }
  MPI_Finalize();
  return 0;
}
