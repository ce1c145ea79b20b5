// The one main of every pgas test binary: each image runs every test, only image 0 prints,
// and every image exits with the worst result of all.
#include <pgas/runtime/environment.hpp>

#include <mpi.h>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (pgas::this_image() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int result = RUN_ALL_TESTS();
  int worst = result;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst != 0 && result == 0 && pgas::this_image() != 0) {
    // The failing image printed nothing because only image 0 prints; say where to look.
    std::fprintf(stderr, "image %zu: a test failed on another image\n", pgas::this_image());
  }
  return worst;
}
