// The Parallel Research Kernels' Synch_p2p: a pipelined wavefront over an m x n grid whose
// columns are split over the images. Each image hands the next one its last column row group by
// row group with a pgas::event post (point-to-point, no barrier); the last image hands the
// corner back to image 0 between sweeps. Output and validation as PRK's: iterations + 1 sweeps,
// the first untimed, and A(m-1, n-1) must equal (iterations + 1)(m + n - 2).
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/prk_synch_p2p.hpp>
#include <pgas_programs/progress.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t m = 1000;
  std::size_t n = 1000;
  std::size_t iterations = 10;
  std::size_t group = 1;
  pgas_programs::command_line app{
      "PRK Synch_p2p: a pipelined wavefront, signalled with pgas::event, verified.", "synch_p2p"};
  app.add_option("--iterations", iterations, "timed sweeps (one more runs untimed first)")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option("--rows", m, "grid rows (m)")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{2}, std::size_t{1} << 20));
  app.add_option("--cols", n, "grid columns (n), split over the images")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{2}, std::size_t{1} << 20));
  app.add_option("--group", group, "rows per event post")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  if (n < pgas::num_images()) {
    if (pgas::this_image() == 0)
      std::fprintf(stderr, "synch_p2p: --cols must be at least the number of images\n");
    return 2;
  }
  if (pgas::this_image() == 0) {
    std::printf(
        "Parallel Research Kernels\nSynch_p2p on pgas (events)\nNumber of images = %zu\n"
        "Grid sizes = %zu, %zu\nNumber of iterations = %zu\nGroup factor = %zu\n",
        pgas::num_images(), m, n, iterations, group);
  }
  prk::synch_p2p grid(m, n, group);
  double start = 0;
  pgas_programs::progress shown("synch_p2p sweeps", static_cast<long long>(iterations + 1));
  for (std::size_t it = 0; it <= iterations; ++it) {
    if (it == 1) {
      pgas::sync_all();
      start = MPI_Wtime();
    }
    grid.sweep();
    shown.update(static_cast<long long>(it + 1));
  }
  shown.done();
  const double seconds = pgas::co_max(MPI_Wtime() - start);
  const double corner = grid.corner();
  const double expected = static_cast<double>((iterations + 1) * (m + n - 2));
  const bool valid = std::fabs(corner - expected) / expected < 1e-8;
  if (pgas::this_image() == 0) {
    if (valid) {
      std::printf("Solution validates\n");
    } else {
      std::printf("ERROR: checksum %.17g does not match verification value %.17g\n", corner,
                  expected);
    }
    const double avg = seconds / static_cast<double>(iterations);
    std::printf("Rate (MFlops/s): %lf Avg time (s): %lf\n",
                1.0e-6 * 2.0 * static_cast<double>((m - 1) * (n - 1)) / avg, avg);
  }
  return valid ? 0 : 1;
}
