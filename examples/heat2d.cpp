// 2-D stencil on pgas::ndarray<double, 2>, tiles on a process grid (--grid RxC; by default as
// square as the images allow), the halo exchange overlapped with each tile's inner points. Two
// modes:
//  --mode prk  (default) the Parallel Research Kernels star stencil: radius R, n x n grid,
//              iterations + 1 sweeps (the first untimed), input += 1 after each sweep, and the
//              PRK check (L1 norm over the interior / (n - 2R)^2 == 2 (iterations + 1)).
//  --mode heat a heat-diffusion run: the top edge held hot, Jacobi steps of the 5-point
//              Laplacian; a better picture than the PRK field.
// --image out.png writes the final field as a PNG with its colour scale (built with libgd).
// --checkpoint FILE --checkpoint-every K writes the run's state to FILE (HDF5) every K steps;
// --restart FILE continues a run from such a file and ends bit-identical to an uninterrupted
// run; --save FILE writes the final field (HDF5, dataset /field) for comparison;
// --crash-after-checkpoint kills every image with SIGKILL right after the first checkpoint, as
// a crash would, at a point that does not depend on timing (the restart test uses it).
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/grid_option.hpp>
#include <pgas_programs/heat_diffusion.hpp>
#include <pgas_programs/prk_star.hpp>
#include <pgas_programs/progress.hpp>
#include <string>
#include <vector>
#ifdef PGAS_HEAT2D_HDF5
#include <pgas/hdf5.hpp>

#include <pgas_programs/checkpoint.hpp>
#endif
#ifdef PGAS_HEAT2D_PICTURE
#include <pgas_programs/field_picture.hpp>
#endif

namespace {

struct settings {
  std::string mode = "prk";
  std::size_t n = 1000;
  std::size_t radius = 2;
  int iterations = 50;
  std::string image;       // empty: no picture
  std::string checkpoint;  // empty: no checkpoints
  int checkpoint_every = 100;
  bool crash_after_checkpoint = false;
  std::string restart;  // empty: start from the beginning
  std::string save;     // empty: the final field is not written
  std::string grid;     // "RxC"; empty: MPI_Dims_create's
};

// The fields a run's state lives in, by dataset name.
using fields = std::vector<std::pair<std::string, pgas::ndarray<double, 2>*>>;

#ifdef PGAS_HEAT2D_HDF5
// What a checkpoint must agree on with the run restarting from it.
pgas_programs::run_position position_at(const settings& s, int step) {
  return {step, {s.mode == "prk" ? 0 : 1, static_cast<std::int64_t>(s.radius)}};
}
#endif

// The step to start from: 0, or the checkpoint's when --restart names one. Collective.
int restore_if_asked(const settings& s, const fields& state) {
#ifdef PGAS_HEAT2D_HDF5
  if (s.restart.empty())
    return 0;
  const auto step = pgas_programs::restore_checkpoint(s.restart, position_at(s, 0), state);
  if (pgas::this_image() == 0)
    std::printf("restarting from step %lld of %s\n", static_cast<long long>(step),
                s.restart.c_str());
  return static_cast<int>(step);
#else
  (void)s;  // without HDF5 there is no --restart option
  (void)state;
  return 0;
#endif
}

// Writes a checkpoint after `step` steps when one is due. Collective.
void checkpoint_if_due(const settings& s, int step, const fields& state) {
#ifdef PGAS_HEAT2D_HDF5
  if (s.checkpoint.empty() || s.checkpoint_every <= 0 || step % s.checkpoint_every != 0)
    return;
  pgas_programs::save_checkpoint(s.checkpoint, position_at(s, step), state);
  if (s.crash_after_checkpoint) {
    pgas::sync_all();  // every image has its part of the file written
    std::raise(SIGKILL);
  }
#else
  (void)s;
  (void)step;
  (void)state;
#endif
}

// Writes the final field to --save's file, if one was named. Collective.
void save_if_asked(const settings& s, const pgas::ndarray<double, 2>& field) {
#ifdef PGAS_HEAT2D_HDF5
  if (s.save.empty())
    return;
  pgas::hdf5::write(field, s.save, "/field");
  if (pgas::this_image() == 0)
    std::printf("wrote %s\n", s.save.c_str());
#else
  (void)s;
  (void)field;
#endif
}

// Gathers the field on image 0 and draws it there, if --image named a file. Collective.
bool write_image_if_asked(const pgas::ndarray<double, 2>& m, const settings& s) {
#ifdef PGAS_HEAT2D_PICTURE
  if (s.image.empty())
    return true;
  const std::size_t n = m.extent(0);
  const std::size_t cols = m.extent(1);
  pgas::array<float> field(n * cols);
  const auto tile = m.local();
  const auto o = m.local_origin();
  for (std::size_t i = 0; i < tile.extent(0); ++i) {
    for (std::size_t j = 0; j < tile.extent(1); ++j)
      field[(o[0] + i) * cols + o[1] + j] = static_cast<float>(tile(i, j));
  }
  pgas::sync_all();
  std::vector<float> all;
  pgas::copy(field, all, 0);
  bool ok = true;
  if (pgas::this_image() == 0) {
    ok = pgas_programs::write_field_png(all, n, cols, s.image);
    std::printf("%s %s\n", ok ? "wrote" : "could not write", s.image.c_str());
  }
  return pgas::co_broadcast(ok, 0);
#else
  (void)m;
  (void)s;
  return true;
#endif
}

bool run_prk(const settings& s) {
  const std::size_t n = s.n;
  const std::size_t R = s.radius;
  const pgas::grid<2> g = pgas_programs::grid_of(s.grid, {});
  pgas::ndarray<double, 2> in({n, n}, g, R);
  pgas::ndarray<double, 2> out({n, n}, g, R);
  if (pgas::this_image() == 0)
    std::printf("process grid %s\n", pgas_programs::grid_text(in.grid()).c_str());
  prk::fill_input(in);
  const std::vector<double> w = prk::star_weights(R);
  const fields state{{"/in", &in}, {"/out", &out}};
  // Sweeps 0 .. iterations; a restart resumes after the sweeps its checkpoint holds.
  const int first = restore_if_asked(s, state);
  pgas_programs::progress shown("prk stencil", s.iterations + 1);
  double t0 = 0;
  int timed = 0;
  for (int sweep = first; sweep <= s.iterations; ++sweep) {
    if (sweep == std::max(first, 1)) {  // the first sweep is untimed, as in the PRK
      pgas::sync_all();
      t0 = MPI_Wtime();
    }
    prk::sweep(in, out, R, w);
    if (sweep >= 1)
      ++timed;
    shown.update(sweep + 1);
    checkpoint_if_due(s, sweep + 1, state);
  }
  shown.done();
  const double elapsed = pgas::co_max(timed > 0 ? MPI_Wtime() - t0 : 0.0);
  const double local_norm = prk::local_interior_l1(out, R);
  const double norm = pgas::co_sum(local_norm) / static_cast<double>((n - 2 * R) * (n - 2 * R));
  const double reference = 2.0 * (s.iterations + 1);
  const bool ok = std::fabs(norm - reference) < 1e-8;
  if (pgas::this_image() == 0) {
    if (ok) {
      std::printf("Solution validates\n");
    } else {
      std::printf("ERROR: L1 norm = %.12f, reference L1 norm = %.12f\n", norm, reference);
    }
    if (timed > 0) {
      const double avg = elapsed / timed;
      const double flops =
          static_cast<double>(2 * (4 * R + 1) + 1) * static_cast<double>((n - 2 * R) * (n - 2 * R));
      std::printf("Rate (MFlops/s): %.6f  Avg time (s): %.6f\n", flops / avg * 1e-6, avg);
    }
  }
  save_if_asked(s, out);
  return ok && write_image_if_asked(out, s);
}

bool run_heat(const settings& s) {
  const std::size_t n = s.n;
  heat::fields f(n, pgas_programs::grid_of(s.grid, {}));
  if (pgas::this_image() == 0)
    std::printf("process grid %s\n", pgas_programs::grid_text(f.a.grid()).c_str());
  const int first = restore_if_asked(s, {{"/field", &f.a}});
  pgas::ndarray<double, 2>* from = &f.a;
  pgas::ndarray<double, 2>* to = &f.b;
  pgas_programs::progress shown("heat", s.iterations);
  for (int it = first; it < s.iterations; ++it) {
    heat::step(*from, *to);
    std::swap(from, to);
    shown.update(it + 1);
    checkpoint_if_due(s, it + 1, {{"/field", from}});
  }
  shown.done();
  pgas::sync_all();
  // Heat only flows in from the top edge: temperatures stay in [0, 1] and fall with depth.
  double lo = 1;
  double hi = 0;
  const auto tile = from->local();
  for (std::size_t i = 0; i < tile.extent(0); ++i) {
    for (std::size_t j = 0; j < tile.extent(1); ++j) {
      const double v = tile(i, j);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  lo = pgas::co_min(lo);
  hi = pgas::co_max(hi);
  const double top = (*from)(0, n / 2).get();
  const double bottom = (*from)(n - 1, n / 2).get();
  const bool ok = lo >= 0.0 && hi <= 1.0 && top > bottom && top > 0.0;
  if (pgas::this_image() == 0) {
    std::printf("heat: %d steps on %zu x %zu: top %.4f, bottom %.4f, range [%.4f, %.4f] %s\n",
                s.iterations, n, n, top, bottom, lo, hi, ok ? "(plausible)" : "(WRONG)");
  }
  pgas::sync_all();
  save_if_asked(s, *from);
  return ok && write_image_if_asked(*from, s);
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  settings s;
  pgas_programs::command_line app{
      "2-D stencil on pgas::ndarray. prk: the Parallel Research Kernels star stencil with its\n"
      "check; heat: diffusion from a hot top edge.",
      "heat2d"};
  app.add_option("--mode", s.mode, "prk or heat")
      ->capture_default_str()
      ->check(pgas_programs::one_of({"prk", "heat"}));
  app.add_option("--n", s.n, "grid points per side")->capture_default_str();
  app.add_option("--radius", s.radius, "stencil radius (prk)")->capture_default_str();
  pgas_programs::add_grid_option(app, s.grid,
                                 "process grid RxC (default: as square as the images allow)");
  app.add_option("--iterations", s.iterations,
                 "timed sweeps (prk) or steps (heat), in all, restarts included")
      ->capture_default_str()
      ->check(pgas_programs::non_negative_number());
#ifdef PGAS_HEAT2D_PICTURE
  app.add_option("--image", s.image,
                 "write the final field to this PNG file, with its colour scale");
#endif
#ifdef PGAS_HEAT2D_HDF5
  auto* checkpoint =
      app.add_option("--checkpoint", s.checkpoint, "write the run's state to this HDF5 file");
  app.add_option("--checkpoint-every", s.checkpoint_every, "steps between checkpoints")
      ->capture_default_str()
      ->check(pgas_programs::positive_number())
      ->needs(checkpoint);
  app.add_flag("--crash-after-checkpoint", s.crash_after_checkpoint,
               "kill every image (SIGKILL) right after the first checkpoint, to test --restart")
      ->needs(checkpoint);
  app.add_option("--restart", s.restart, "continue the run saved in this checkpoint")
      ->check(pgas_programs::existing_file());
  app.add_option("--save", s.save, "write the final field to this HDF5 file (dataset /field)");
#endif
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  try {
    return (s.mode == "prk" ? run_prk(s) : run_heat(s)) ? 0 : 1;
  } catch (const pgas::usage_error& e) {
    if (pgas::this_image() == 0)
      std::fprintf(stderr, "heat2d: %s\n", e.what());
    return 2;
  } catch (const pgas::io_error& e) {
    if (pgas::this_image() == 0)
      std::fprintf(stderr, "heat2d: %s\n", e.what());
    return 2;
  }
}
