// Programs that hang, for the watchdog (PGAS_WATCHDOG): with `--mismatch` image 0 calls
// sync_all() while the others call sync_images(all_images) (two collectives of one kind that
// MPI may also refuse as mismatched, sync_all and a span co_sum, can end in an MPI error
// instead); with `--skip` image 1 leaves out a co_sum the others make and goes on to the end of
// the program.
// tests/reliability/CMakeLists.txt checks that the job ends by itself, non-zero, with each waiting
// image's line naming its call and this file.
#include <pgas/pgas.hpp>

#include <cstring>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bool skip = argc > 1 && std::strcmp(argv[1], "--skip") == 0;
  if (skip) {
    if (pgas::this_image() != 1)
      (void)pgas::co_sum(1L);  // image 1 never joins
    return 0;
  }
  if (pgas::this_image() == 0) {
    pgas::sync_all();
  } else {
    pgas::sync_images(pgas::all_images);
  }
  return 0;
}
