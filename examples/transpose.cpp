// The Parallel Research Kernels' Transpose on pgas::ndarray: B += Aᵀ each iteration, A += 1, on
// any process grid (PRK's MPI version splits columns: --grid 1xP, the default). Output and
// validation as PRK's: iterations + 1 transposes, the first untimed; B's summed absolute error
// against PRK's formula must stay below 1e-8.
#include <mpi.h>

#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/grid_option.hpp>
#include <pgas_programs/prk_transpose.hpp>
#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t iterations = 10;
  std::size_t order = 1000;
  std::string grid_text;
  pgas_programs::command_line app{"PRK Transpose: B += A^T on pgas::ndarray, verified.",
                                  "transpose"};
  app.add_option("--iterations", iterations, "timed transposes (one more runs untimed first)")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option("--order", order, "matrix order")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{1}, std::size_t{1} << 17));
  pgas_programs::add_grid_option(
      app, grid_text, "process grid RxC (default 1xP: column blocks, as PRK's MPI version)");
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const pgas::grid<2> g = pgas_programs::grid_of(grid_text, pgas::grid({1, pgas::num_images()}));
  if (pgas::this_image() == 0) {
    std::printf(
        "Parallel Research Kernels\npgas matrix transpose: B = A^T\nNumber of images     = %zu\n"
        "Process grid         = %s\nMatrix order         = %zu\nNumber of iterations = %zu\n",
        pgas::num_images(), pgas_programs::grid_text(g).c_str(), order, iterations);
  }
  prk::transpose kernel(order, g);
  double start = 0;
  for (std::size_t it = 0; it <= iterations; ++it) {
    if (it == 1) {
      pgas::sync_all();
      start = MPI_Wtime();
    }
    kernel.iterate();
  }
  const double seconds = pgas::co_max(MPI_Wtime() - start);
  const double error = kernel.error();
  const bool valid = error < prk::transpose::epsilon;
  if (pgas::this_image() == 0) {
    if (valid) {
      std::printf("Solution validates\n");
      const double avg = seconds / static_cast<double>(iterations);
      std::printf("Rate (MB/s): %lf Avg time (s): %lf\n", 1.0e-6 * kernel.bytes() / avg, avg);
    } else {
      std::printf("ERROR: Aggregate absolute error %lf exceeds threshold %e\n", error,
                  prk::transpose::epsilon);
    }
  }
  return valid ? 0 : 1;
}
