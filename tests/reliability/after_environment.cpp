// Using the library after the environment ended, or ending MPI under a live environment, is a
// usage_error, not a crash: exits 0 only if every misuse was refused cleanly.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  int refused = 0;
  {
    pgas::environment env(argc, argv);
    pgas::array<int> a(4);
    try {
      MPI_Finalize();  // the user's own, under a live environment: refused, MPI stays up
    } catch (const pgas::usage_error&) {
      ++refused;
    }
    if (pgas::this_image() == 0)
      a[0] = 3;
    pgas::sync_all();
    if (static_cast<int>(a[0]) != 3)
      --refused;
  }
  try {
    (void)pgas::this_image();
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  try {
    pgas::sync_all();
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  try {
    pgas::array<int> b(4);
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  try {
    pgas::environment again;
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  std::printf("%d of 5 misuses were refused\n", refused);
  return refused == 5 ? 0 : 1;
}
