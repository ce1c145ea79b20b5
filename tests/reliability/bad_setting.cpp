// A bad setting on one image only (the last) is refused by pgas::environment on every image,
// with a usage_error; none goes on to wait for the others. The setting is the program's first
// argument: `cache` (PGAS_SHARED_CACHE_BYTES=lots), `watchdog` (PGAS_WATCHDOG=soon), `check`
// (PGAS_CHECK=yes), `ask_ahead` (PGAS_ASK_AHEAD=50, not a distance it may be), `transpose_route`
// (PGAS_TRANSPOSE_ROUTE=fastest), `transpose_route_differs` (PGAS_TRANSPOSE_ROUTE=sends, a route,
// but the others measure: every image gets the same refusal) or `nodes` (PGAS_IMAGES_PER_NODE=two).
// Exits 0 only if this image was refused with the message its case calls for.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string setting = argc > 1 ? argv[1] : "cache";
  struct bad {
    const char* variable;
    const char* value;
    const char* refusal;
  };
  const bad b =
      setting == "watchdog"
          ? bad{"PGAS_WATCHDOG", "soon", "PGAS_WATCHDOG must be a number of seconds"}
      : setting == "check" ? bad{"PGAS_CHECK", "yes", "PGAS_CHECK must be 0 or 1"}
      : setting == "ask_ahead"
          ? bad{"PGAS_ASK_AHEAD", "50", "PGAS_ASK_AHEAD must be one of 0, 8, 16"}
      : setting == "transpose_route" ? bad{"PGAS_TRANSPOSE_ROUTE", "fastest",
                                           "PGAS_TRANSPOSE_ROUTE must be measure, gets or sends"}
      : setting == "transpose_route_differs"
          ? bad{"PGAS_TRANSPOSE_ROUTE", "sends",
                "PGAS_TRANSPOSE_ROUTE must be the same on every image"}
      : setting == "nodes" ? bad{"PGAS_IMAGES_PER_NODE", "two",
                                 "PGAS_IMAGES_PER_NODE must be a positive number of images"}
                           : bad{"PGAS_SHARED_CACHE_BYTES", "lots",
                                 "PGAS_SHARED_CACHE_BYTES must be a positive number of bytes"};
  const bool given_bad = rank == size - 1;
  if (given_bad)
    setenv(b.variable, b.value, 1);
  std::string what;
  try {
    pgas::environment env(argc, argv);
  } catch (const pgas::usage_error& e) {
    what = e.what();
  }
  const bool refused_alike = setting == "transpose_route_differs";
  const std::string want = given_bad || refused_alike ? b.refusal : "on another image";
  const bool ok = what.find(want) != std::string::npos;
  std::printf("image %d: %s (%s)\n", rank,
              ok ? "refused as it should be" : "not refused as it should be", what.c_str());
  MPI_Finalize();
  return ok ? 0 : 1;
}
