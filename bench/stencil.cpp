// The Parallel Research Kernels star stencil (radius R, n x n grid, iterations + 1 sweeps, the
// first untimed, input += 1 after each sweep, L1-norm check) in three implementations on the
// same decomposition (--grid-rows x --grid-cols tiles; by default blocks of rows):
// pgas::ndarray with stencil_for_each (halo exchange overlapped with the tile's inner points),
// hand-written two-sided MPI (Isend/Irecv of vector datatypes for rows and columns), and
// hand-written MPI_Put + MPI_Win_fence.
//
// Every variant makes its arrays, window and datatypes once, as PRK's programs do, and starts
// them over each repetition: no memory is mapped or unmapped, no window made or freed, between
// repetitions. On the Intel VM a process that has just mapped and freed 32 MB sweeps any
// memory, old or new, at half speed for some 40 sweeps after (a scratch program: 5.4-5.9 ms
// falling to 2.6 ms, against 2.6 ms throughout without the free), which would charge one
// variant's allocation to the variant after it.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <cmath>
#include <concepts>
#include <functional>
#include <pgas_programs/prk_star.hpp>
#include <span>
#include <vector>

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

// One image's tile of a grid_rows x grid_cols process grid (row-major, as pgas::grid numbers
// images), with R ghost cells on every side, as the hand-written versions keep it.
struct tile {
  std::size_t grid_rows;
  std::size_t grid_cols;
  std::size_t n;
  std::size_t radius;
  pgas::block row_split;
  pgas::block col_split;
  std::size_t gr;  // this image's grid coordinates
  std::size_t gc;
  std::size_t first_row;
  std::size_t first_col;
  std::size_t rows;
  std::size_t cols;
  std::size_t width;  // cols + 2R, as pgas::ndarray stores a tile, so the sweep is the same code
  std::vector<double> in;
  std::vector<double> out;
  tile(const problem& p, std::size_t g_rows, std::size_t g_cols)
      : grid_rows{g_rows},
        grid_cols{g_cols},
        n{p.n},
        radius{p.radius},
        row_split{pgas::block{}.bind(p.n, g_rows)},
        col_split{pgas::block{}.bind(p.n, g_cols)},
        gr{pgas::this_image() / g_cols},
        gc{pgas::this_image() % g_cols},
        first_row{row_split.first_of(gr)},
        first_col{col_split.first_of(gc)},
        rows{row_split.local_size(gr)},
        cols{col_split.local_size(gc)},
        width{cols + 2 * p.radius},
        in((rows + 2 * radius) * width),
        out(in.size()) {
    start_over();
  }
  // The input and output a run starts from, in the memory the tile already has.
  void start_over() {
    std::fill(in.begin(), in.end(), 0.0);
    std::fill(out.begin(), out.end(), 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j)
        at(in, i, j) = static_cast<double>(first_row + i + first_col + j);
    }
  }
  // Element (i, j) of the tile, ghosts at negative indices and past the extents.
  template <std::integral I, std::integral J>
  double& at(std::vector<double>& v, I i, J j) const {
    const auto r = static_cast<std::ptrdiff_t>(radius);
    const auto row = static_cast<std::ptrdiff_t>(i) + r;
    return v[static_cast<std::size_t>(row * static_cast<std::ptrdiff_t>(width) +
                                      static_cast<std::ptrdiff_t>(j) + r)];
  }
  // The rank at grid offset (di, dj) from this one, or MPI_PROC_NULL past the grid's edge.
  [[nodiscard]] int neighbour(int di, int dj) const {
    const auto r = static_cast<long>(gr) + di;
    const auto c = static_cast<long>(gc) + dj;
    if (r < 0 || c < 0 || r >= static_cast<long>(grid_rows) || c >= static_cast<long>(grid_cols))
      return MPI_PROC_NULL;
    return static_cast<int>(static_cast<std::size_t>(r) * grid_cols + static_cast<std::size_t>(c));
  }
};

// The sweep the hand-written versions run: out += star(in) over interior points, the radius
// fixed at compile time as for the pgas kernel (prk::with_radius). Not inlined: inlined into
// each variant's timing loop the compiler laid it out differently with every change around it,
// between 2.05 and 2.5 ms a sweep on the Intel VM (the twenty-sixth session); out of line it
// runs as fast as the best of those in every build.
[[gnu::noinline]] void sweep(const problem& p, tile& b) {
  const auto stride = static_cast<std::ptrdiff_t>(b.width);
  const double* weight = p.weight.data();  // in a register, as the pgas kernel has it
  const std::size_t j0 = std::max(b.first_col, p.radius) - b.first_col;
  const std::size_t j1 = std::min(b.first_col + b.cols, p.n - p.radius);
  prk::with_radius(p.radius, [&](auto R) {
    for (std::size_t i = 0; i < b.rows; ++i) {
      const std::size_t g = b.first_row + i;
      if (g < p.radius || g >= p.n - p.radius || j1 <= b.first_col)
        continue;
      const double* in = &b.at(b.in, i, 0);
      double* out = &b.at(b.out, i, 0);
      for (std::size_t j = j0; j < j1 - b.first_col; ++j) {
        const double* c = in + j;
        double s = 0;
        for (std::ptrdiff_t k = 1; k <= R; ++k) {
          const double w = weight[k];
          s += w * (c[k] - c[-k]) + w * (c[k * stride] - c[-k * stride]);
        }
        out[j] += s;
      }
    }
  });
  prk::add_one_to_block(&b.at(b.in, 0, 0), b.rows, b.cols, b.width);
}

double local_norm(const problem& p, tile& b) {
  double s = 0;
  for (std::size_t i = 0; i < b.rows; ++i) {
    const std::size_t gi = b.first_row + i;
    if (gi < p.radius || gi >= p.n - p.radius)
      continue;
    for (std::size_t j = 0; j < b.cols; ++j) {
      const std::size_t gj = b.first_col + j;
      if (gj >= p.radius && gj < p.n - p.radius)
        s += std::fabs(b.at(b.out, i, j));
    }
  }
  return s;
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

// The datatypes of a tile's halo faces: R rows of the tile's columns, and R columns of its rows,
// both `width` apart (vector types, as MPI programs send columns).
struct face_types {
  MPI_Datatype rows = MPI_DATATYPE_NULL;
  MPI_Datatype cols = MPI_DATATYPE_NULL;
  explicit face_types(const tile& b) {
    const int r = static_cast<int>(b.radius);
    MPI_Type_vector(r, static_cast<int>(b.cols), static_cast<int>(b.width), MPI_DOUBLE, &rows);
    MPI_Type_vector(static_cast<int>(b.rows), r, static_cast<int>(b.width), MPI_DOUBLE, &cols);
    MPI_Type_commit(&rows);
    MPI_Type_commit(&cols);
  }
  face_types(const face_types&) = delete;
  face_types& operator=(const face_types&) = delete;
  ~face_types() {
    MPI_Type_free(&rows);
    MPI_Type_free(&cols);
  }
};

// The two-sided version's tile and the datatypes of its faces, made once as PRK's programs make
// theirs.
struct two_sided_tile {
  tile b;
  face_types face;
  two_sided_tile(const problem& p, std::size_t g_rows, std::size_t g_cols)
      : b{p, g_rows, g_cols}, face{b} {}
};

std::pair<double, bool> run_two_sided(const problem& p, two_sided_tile& t) {
  tile& b = t.b;
  const face_types& face = t.face;
  b.start_over();
  const auto R = static_cast<std::ptrdiff_t>(p.radius);
  const auto rows = static_cast<std::ptrdiff_t>(b.rows);
  const auto cols = static_cast<std::ptrdiff_t>(b.cols);
  const int up = b.neighbour(-1, 0);
  const int down = b.neighbour(1, 0);
  const int left = b.neighbour(0, -1);
  const int right = b.neighbour(0, 1);
  return run(
      p,
      [&] {
        MPI_Request req[8];
        MPI_Irecv(&b.at(b.in, -R, 0), 1, face.rows, up, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&b.at(b.in, rows, 0), 1, face.rows, down, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Irecv(&b.at(b.in, 0, -R), 1, face.cols, left, 3, MPI_COMM_WORLD, &req[2]);
        MPI_Irecv(&b.at(b.in, 0, cols), 1, face.cols, right, 2, MPI_COMM_WORLD, &req[3]);
        MPI_Isend(&b.at(b.in, 0, 0), 1, face.rows, up, 0, MPI_COMM_WORLD, &req[4]);
        MPI_Isend(&b.at(b.in, rows - R, 0), 1, face.rows, down, 1, MPI_COMM_WORLD, &req[5]);
        MPI_Isend(&b.at(b.in, 0, 0), 1, face.cols, left, 2, MPI_COMM_WORLD, &req[6]);
        MPI_Isend(&b.at(b.in, 0, cols - R), 1, face.cols, right, 3, MPI_COMM_WORLD, &req[7]);
        MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
      },
      [&] { sweep(p, b); }, [&] { return local_norm(p, b); });
}

// The RMA version's tile, its window over the input and the datatypes of its faces and of its
// neighbours' ghost faces, made once as PRK's MPIRMA programs make theirs (remade every
// repetition they cost no time measurably here, but a program does not remake them per run).
class fence_tile {
 public:
  fence_tile(const problem& p, std::size_t g_rows, std::size_t g_cols)
      : b{p, g_rows, g_cols},
        face{b},
        up{b.neighbour(-1, 0)},
        down{b.neighbour(1, 0)},
        left{b.neighbour(0, -1)},
        right{b.neighbour(0, 1)} {
    MPI_Win_create(b.in.data(), static_cast<MPI_Aint>(b.in.size() * sizeof(double)), sizeof(double),
                   MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    // Where a neighbour's ghost faces start in its tile: the one above has this image's columns
    // (width) and maybe another row count; the one on the left this image's rows and maybe
    // another width. The target types are the neighbour's.
    const std::size_t up_rows = up == MPI_PROC_NULL ? 0 : b.row_split.local_size(b.gr - 1);
    const std::size_t left_cols = left == MPI_PROC_NULL ? 0 : b.col_split.local_size(b.gc - 1);
    const std::size_t right_cols = right == MPI_PROC_NULL ? 0 : b.col_split.local_size(b.gc + 1);
    const auto r = static_cast<int>(p.radius);
    MPI_Type_vector(static_cast<int>(b.rows), r, static_cast<int>(left_cols + 2 * p.radius),
                    MPI_DOUBLE, &left_cols_type);
    MPI_Type_vector(static_cast<int>(b.rows), r, static_cast<int>(right_cols + 2 * p.radius),
                    MPI_DOUBLE, &right_cols_type);
    MPI_Type_commit(&left_cols_type);
    MPI_Type_commit(&right_cols_type);
    const auto R = static_cast<MPI_Aint>(p.radius);
    const auto w = static_cast<MPI_Aint>(b.width);
    up_ghost = static_cast<MPI_Aint>(up_rows + p.radius) * w + R;
    down_ghost = R;
    left_ghost =
        R * static_cast<MPI_Aint>(left_cols + 2 * p.radius) + static_cast<MPI_Aint>(left_cols) + R;
    right_ghost = R * static_cast<MPI_Aint>(right_cols + 2 * p.radius);
  }
  fence_tile(const fence_tile&) = delete;
  fence_tile& operator=(const fence_tile&) = delete;
  ~fence_tile() {
    MPI_Type_free(&left_cols_type);
    MPI_Type_free(&right_cols_type);
    MPI_Win_free(&win);
  }

  tile b;
  face_types face;
  int up;
  int down;
  int left;
  int right;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Datatype left_cols_type = MPI_DATATYPE_NULL;
  MPI_Datatype right_cols_type = MPI_DATATYPE_NULL;
  MPI_Aint up_ghost = 0;
  MPI_Aint down_ghost = 0;
  MPI_Aint left_ghost = 0;
  MPI_Aint right_ghost = 0;
};

std::pair<double, bool> run_rma_fence(const problem& p, fence_tile& f) {
  tile& b = f.b;
  b.start_over();
  const auto R = static_cast<std::ptrdiff_t>(p.radius);
  const auto rows = static_cast<std::ptrdiff_t>(b.rows);
  const auto cols = static_cast<std::ptrdiff_t>(b.cols);
  return run(
      p,
      [&] {
        MPI_Win_fence(0, f.win);
        if (f.up != MPI_PROC_NULL)
          MPI_Put(&b.at(b.in, 0, 0), 1, f.face.rows, f.up, f.up_ghost, 1, f.face.rows, f.win);
        if (f.down != MPI_PROC_NULL) {
          MPI_Put(&b.at(b.in, rows - R, 0), 1, f.face.rows, f.down, f.down_ghost, 1, f.face.rows,
                  f.win);
        }
        if (f.left != MPI_PROC_NULL) {
          MPI_Put(&b.at(b.in, 0, 0), 1, f.face.cols, f.left, f.left_ghost, 1, f.left_cols_type,
                  f.win);
        }
        if (f.right != MPI_PROC_NULL) {
          MPI_Put(&b.at(b.in, 0, cols - R), 1, f.face.cols, f.right, f.right_ghost, 1,
                  f.right_cols_type, f.win);
        }
        MPI_Win_fence(0, f.win);
      },
      [&] { sweep(p, b); }, [&] { return local_norm(p, b); });
}

// pgas's input and output, made once as the hand-written variants' tiles are.
struct pgas_arrays {
  pgas::grid<2> g;
  pgas::ndarray<double, 2> in;
  pgas::ndarray<double, 2> out;
  pgas_arrays(const problem& p, std::size_t g_rows, std::size_t g_cols)
      : g({g_rows, g_cols}), in({p.n, p.n}, g, p.radius), out({p.n, p.n}, g, p.radius) {}
};

std::pair<double, bool> run_pgas(const problem& p, pgas_arrays& a) {
  // Started over as the hand-written tiles are (tile::start_over): all of each image's storage,
  // ghosts included, zeroed in one pass, then the input. How the input was last written decides
  // how fast the first sweeps run: on the Intel VM a tile zeroed first took 4.2 ms for its first
  // sweep, one written only by prk::fill_input 5.3 ms, and stayed slower for a dozen sweeps
  // (the twenty-sixth session). The same start for every variant.
  for (pgas::ndarray<double, 2>* array : {&a.in, &a.out}) {
    const std::span<double> storage = array->local().with_halo();
    std::fill(storage.begin(), storage.end(), 0.0);
  }
  prk::fill_input(a.in);
  pgas::sync_all();  // every image starts from its input
  auto result = run(
      p, [] {}, [&] { prk::sweep(a.in, a.out, p.radius, p.weight); },
      [&] { return prk::local_interior_l1(a.out, p.radius); });
  pgas::sync_all();
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "PRK star stencil: pgas vs hand-written MPI",
                           {{"n", "2000"},
                            {"radius", "2"},
                            {"iterations", "50"},
                            {"grid-rows", "0"},
                            {"grid-cols", "1"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const problem p(opt.size("n"), opt.size("radius"), static_cast<int>(opt.get("iterations")));
  // The process grid: --grid-rows x --grid-cols images (grid-rows 0: all images over the rows).
  const std::size_t g_cols = std::max<std::size_t>(1, opt.size("grid-cols"));
  const std::size_t g_rows =
      opt.size("grid-rows") == 0 ? pgas::num_images() / g_cols : opt.size("grid-rows");
  if (g_rows * g_cols != pgas::num_images()) {
    if (pgas::this_image() == 0)
      std::fprintf(stderr, "a %zu x %zu grid does not hold %zu images\n", g_rows, g_cols,
                   pgas::num_images());
    return 2;
  }
  if (p.n < 2 * p.radius + 1 ||
      pgas::block{}.bind(p.n, std::max(g_rows, g_cols)).local_size(std::max(g_rows, g_cols) - 1) <
          p.radius) {
    if (pgas::this_image() == 0)
      std::fprintf(stderr, "grid too small for the radius and image count\n");
    return 2;
  }
  const std::string size = "n=" + std::to_string(p.n) + ",R=" + std::to_string(p.radius) +
                           ",iterations=" + std::to_string(p.iterations) +
                           ",grid=" + std::to_string(g_rows) + "x" + std::to_string(g_cols);
  // Each variant times itself (its first sweep untimed); the repetitions go in_rotation.
  pgas_arrays arrays(p, g_rows, g_cols);
  two_sided_tile two_sided(p, g_rows, g_cols);
  fence_tile fence(p, g_rows, g_cols);
  using runner = std::function<std::pair<double, bool>()>;
  const std::vector<std::pair<std::string, runner>> variants = {
      {"pgas", [&] { return run_pgas(p, arrays); }},
      {"mpi_two_sided", [&] { return run_two_sided(p, two_sided); }},
      {"mpi_rma_fence", [&] { return run_rma_fence(p, fence); }}};
  std::vector<std::vector<double>> times(variants.size());
  std::vector<bool> ok(variants.size(), true);
  const long reps = opt.get("reps");
  bench::in_rotation(reps, variants.size(), [&](long r, std::size_t v) {
    if (v == static_cast<std::size_t>(r) % variants.size()) {
      bench::progress("stencil repetition " + std::to_string(r + 1) + " of " +
                      std::to_string(reps));
    }
    const auto [t, verified] = variants[v].second();
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
    results.push_back(
        bench::report("stencil", variants[v].first, size, t, mflops, "MFlop/s", ok[v]));
  }
  return bench::summarize(results, "pgas");
}
