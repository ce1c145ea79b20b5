// The Parallel Research Kernels star stencil (radius R, n x n grid, iterations + 1 sweeps, the
// first untimed, input += 1 after each sweep, L1-norm check) in three implementations on the
// same row-block decomposition: pgas::matrix with stencil_for_each, hand-written two-sided MPI
// halo exchange, and hand-written MPI_Put + MPI_Win_fence.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <cmath>
#include <vector>

#include <pgas_programs/prk_star.hpp>
#include "harness.hpp"

namespace {

struct problem {
  std::size_t n;
  std::size_t radius;
  int iterations;
  std::vector<double> weight;  // weight[k] for offset k = 1..R (the -k side has -weight[k])
  problem(std::size_t n_, std::size_t r, int iters)
      : n{n_}, radius{r}, iterations{iters}, weight(prk::star_weights(r)) {}
  // PRK: (2 * stencil_size + 1) flops per active point, stencil_size = 4R + 1.
  [[nodiscard]] double flops_per_iteration() const {
    const double active = static_cast<double>((n - 2 * radius) * (n - 2 * radius));
    return static_cast<double>(2 * (4 * radius + 1) + 1) * active;
  }
  // PRK's check: the L1 norm over the interior per point equals 2 (iterations + 1).
  [[nodiscard]] bool verify(double local_norm) const {
    double norm = 0;
    MPI_Allreduce(&local_norm, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    norm /= static_cast<double>((n - 2 * radius) * (n - 2 * radius));
    return std::fabs(norm - 2.0 * (iterations + 1)) < 1e-8;
  }
};

// One image's rows, with R ghost rows above and below, as the hand-written versions keep them.
struct block_rows {
  std::size_t first;
  std::size_t rows;
  std::size_t width;  // n + 2R, as pgas::matrix stores it, so the sweep is the same code
  std::vector<double> in;
  std::vector<double> out;
  double* in_row(std::ptrdiff_t i, std::size_t r) { return in.data() + static_cast<std::ptrdiff_t>((static_cast<std::ptrdiff_t>(r) + i) * static_cast<std::ptrdiff_t>(width)) + static_cast<std::ptrdiff_t>(r); }
  double* out_row(std::ptrdiff_t i, std::size_t r) { return out.data() + static_cast<std::ptrdiff_t>((static_cast<std::ptrdiff_t>(r) + i) * static_cast<std::ptrdiff_t>(width)) + static_cast<std::ptrdiff_t>(r); }
};

block_rows make_rows(const problem& p) {
  const auto d = pgas::block{}.bind(p.n, pgas::num_images());
  block_rows b{d.first_of(pgas::this_image()), d.local_size(pgas::this_image()), p.n + 2 * p.radius, {}, {}};
  b.in.assign((b.rows + 2 * p.radius) * b.width, 0.0);
  b.out.assign(b.in.size(), 0.0);
  for (std::size_t i = 0; i < b.rows; ++i) {
    for (std::size_t j = 0; j < p.n; ++j) b.in_row(static_cast<std::ptrdiff_t>(i), p.radius)[j] = static_cast<double>(b.first + i + j);
  }
  return b;
}

// The sweep the hand-written versions run: out += star(in) over interior points.
void sweep(const problem& p, block_rows& b) {
  const auto stride = static_cast<std::ptrdiff_t>(b.width);
  const auto R = static_cast<std::ptrdiff_t>(p.radius);
  const double* weight = p.weight.data();  // in a register, as the pgas kernel has it
  for (std::size_t i = 0; i < b.rows; ++i) {
    const std::size_t g = b.first + i;
    if (g < p.radius || g >= p.n - p.radius) continue;
    const double* in = b.in_row(static_cast<std::ptrdiff_t>(i), p.radius);
    double* out = b.out_row(static_cast<std::ptrdiff_t>(i), p.radius);
    for (std::size_t j = p.radius; j < p.n - p.radius; ++j) {
      const double* c = in + j;
      double s = 0;
      for (std::ptrdiff_t k = 1; k <= R; ++k) {
        const double w = weight[k];
        s += w * (c[k] - c[-k]) + w * (c[k * stride] - c[-k * stride]);
      }
      out[j] += s;
    }
  }
  for (std::size_t i = 0; i < b.rows; ++i) {
    double* in = b.in_row(static_cast<std::ptrdiff_t>(i), p.radius);
    for (std::size_t j = 0; j < p.n; ++j) in[j] += 1.0;
  }
}

double local_norm(const problem& p, block_rows& b) {
  double s = 0;
  for (std::size_t i = 0; i < b.rows; ++i) {
    const std::size_t g = b.first + i;
    if (g < p.radius || g >= p.n - p.radius) continue;
    for (std::size_t j = p.radius; j < p.n - p.radius; ++j) s += std::fabs(b.out_row(static_cast<std::ptrdiff_t>(i), p.radius)[j]);
  }
  return s;
}

int up_of() { return pgas::this_image() == 0 ? MPI_PROC_NULL : static_cast<int>(pgas::this_image()) - 1; }
int down_of() {
  return pgas::this_image() + 1 == pgas::num_images() ? MPI_PROC_NULL : static_cast<int>(pgas::this_image()) + 1;
}

// Runs iterations + 1 sweeps with `exchange` before each; returns the timed seconds (slowest
// image) and whether the result verified.
template <class Exchange, class Sweep, class Norm>
std::pair<double, bool> run(const problem& p, Exchange exchange, Sweep do_sweep, Norm norm) {
  double t0 = 0;
  for (int it = 0; it <= p.iterations; ++it) {
    if (it == 1) {  // the first sweep is untimed, as in the PRK
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    exchange();
    do_sweep();
  }
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return {t, p.verify(norm())};
}

std::pair<double, bool> run_two_sided(const problem& p) {
  block_rows b = make_rows(p);
  const int count = static_cast<int>(p.radius * b.width);
  const auto R = static_cast<std::ptrdiff_t>(p.radius);
  const auto rows = static_cast<std::ptrdiff_t>(b.rows);
  return run(
      p,
      [&] {
        MPI_Request req[4];
        MPI_Irecv(b.in_row(-R, p.radius) - R, count, MPI_DOUBLE, up_of(), 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(b.in_row(rows, p.radius) - R, count, MPI_DOUBLE, down_of(), 0, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(b.in_row(0, p.radius) - R, count, MPI_DOUBLE, up_of(), 0, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(b.in_row(rows - R, p.radius) - R, count, MPI_DOUBLE, down_of(), 1, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      },
      [&] { sweep(p, b); }, [&] { return local_norm(p, b); });
}

std::pair<double, bool> run_rma_fence(const problem& p) {
  block_rows b = make_rows(p);
  MPI_Win win;
  MPI_Win_create(b.in.data(), static_cast<MPI_Aint>(b.in.size() * sizeof(double)), sizeof(double),
                 MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const int count = static_cast<int>(p.radius * b.width);
  const auto R = static_cast<std::ptrdiff_t>(p.radius);
  const auto rows = static_cast<std::ptrdiff_t>(b.rows);
  const auto above = up_of();
  // The image above has the same or one more row: its bottom ghosts start at (its rows + R).
  const auto d = pgas::block{}.bind(p.n, pgas::num_images());
  const MPI_Aint above_ghost = above == MPI_PROC_NULL ? 0
      : static_cast<MPI_Aint>((d.local_size(static_cast<std::size_t>(above)) + p.radius) * b.width);
  auto result = run(
      p,
      [&] {
        MPI_Win_fence(0, win);
        if (above != MPI_PROC_NULL) MPI_Put(b.in_row(0, p.radius) - R, count, MPI_DOUBLE, above, above_ghost, count, MPI_DOUBLE, win);
        if (down_of() != MPI_PROC_NULL) MPI_Put(b.in_row(rows - R, p.radius) - R, count, MPI_DOUBLE, down_of(), 0, count, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
      },
      [&] { sweep(p, b); }, [&] { return local_norm(p, b); });
  MPI_Win_free(&win);
  return result;
}

std::pair<double, bool> run_pgas(const problem& p) {
  pgas::matrix<double> in(p.n, p.n, p.radius);
  pgas::matrix<double> out(p.n, p.n, p.radius);
  prk::fill_input(in);
  auto result = run(
      p, [] {}, [&] { prk::sweep(in, out, p.radius, p.weight); },
      [&] { return prk::local_interior_l1(out, p.radius); });
  pgas::sync_all();
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "PRK star stencil: pgas vs hand-written MPI",
                           {{"n", "2000"}, {"radius", "2"}, {"iterations", "50"}});
  if (opt.stop()) return opt.failed() ? 2 : 0;
  const problem p(opt.size("n"), opt.size("radius"), static_cast<int>(opt.get("iterations")));
  if (p.n < 2 * p.radius + 1 || pgas::block{}.bind(p.n, pgas::num_images()).local_size(pgas::num_images() - 1) < p.radius) {
    if (pgas::this_image() == 0) std::fprintf(stderr, "grid too small for the radius and image count\n");
    return 2;
  }
  const std::string size = "n=" + std::to_string(p.n) + ",R=" + std::to_string(p.radius) + ",iterations=" + std::to_string(p.iterations);
  // Each variant times itself (its first sweep untimed); the repetitions go in_rotation.
  using runner = std::pair<double, bool> (*)(const problem&);
  const std::vector<std::pair<std::string, runner>> variants = {
      {"pgas", run_pgas}, {"mpi_two_sided", run_two_sided}, {"mpi_rma_fence", run_rma_fence}};
  std::vector<std::vector<double>> times(variants.size());
  std::vector<bool> ok(variants.size(), true);
  const long reps = opt.get("reps");
  bench::in_rotation(reps, variants.size(), [&](long r, std::size_t v) {
    if (v == static_cast<std::size_t>(r) % variants.size()) {
      bench::progress("stencil repetition " + std::to_string(r + 1) + " of " + std::to_string(reps));
    }
    const auto [t, verified] = variants[v].second(p);
    times[v].push_back(t);
    ok[v] = ok[v] && verified;
  });
  std::vector<bench::result> results;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const double t = bench::median(times[v]);
    const double avg = t / p.iterations;
    const double mflops = p.flops_per_iteration() / avg * 1e-6;
    if (pgas::this_image() == 0) {
      std::printf("%s: %s\nRate (MFlops/s): %.3f  Avg time (s): %.6f\n", variants[v].first.c_str(),
                  ok[v] ? "Solution validates" : "ERROR: solution did not validate", mflops, avg);
    }
    results.push_back(bench::report("stencil", variants[v].first, size, t, mflops, "MFlop/s", ok[v]));
  }
  return bench::summarize(results, "pgas");
}
