// 2-D stencil on pgas::matrix. Two modes:
//  --mode prk  (default) the Parallel Research Kernels star stencil: radius R, n x n grid,
//              iterations + 1 sweeps (the first untimed), input += 1 after each sweep, and the
//              PRK check (L1 norm over the interior / (n - 2R)^2 == 2 (iterations + 1)).
//  --mode heat a heat-diffusion run: the top edge held hot, Jacobi steps of the 5-point
//              Laplacian; a better picture than the PRK field.
// --image out.png writes the final field as a PNG (when built with libpng).
#include <pgas/algorithms.hpp>

#include <mpi.h>
#ifdef PGAS_HEAT2D_PNG
#include <png.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <pgas_programs/command_line.hpp>
#include <pgas_programs/prk_star.hpp>

namespace {

struct settings {
  std::string mode = "prk";
  std::size_t n = 1000;
  std::size_t radius = 2;
  int iterations = 50;
  std::string image;  // empty: no picture
};

#ifdef PGAS_HEAT2D_PNG

// Colours a value in [0, 1]: black, red, yellow, white.
void colour(double t, png_byte* rgb) {
  t = std::clamp(t, 0.0, 1.0);
  rgb[0] = static_cast<png_byte>(255 * std::min(1.0, 3 * t));
  rgb[1] = static_cast<png_byte>(255 * std::clamp(3 * t - 1, 0.0, 1.0));
  rgb[2] = static_cast<png_byte>(255 * std::clamp(3 * t - 2, 0.0, 1.0));
}

// Writes rows of RGB pixels as a PNG. libpng reports errors by longjmp, so nothing here
// changes after setjmp.
bool encode_png(FILE* f, const std::vector<png_byte>& rgb, png_uint_32 width, png_uint_32 height) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
    return false;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (png_uint_32 i = 0; i < height; ++i) {
    png_write_row(png, const_cast<png_byte*>(rgb.data()) + std::size_t{3} * width * i);  // libpng's API is not const
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// Gathers the field on image 0 and writes it as a PNG there. Collective.
bool write_png(const pgas::matrix<double>& m, const std::string& path) {
  const std::size_t n = m.rows();
  const std::size_t cols = m.cols();
  pgas::array<float> field(n * cols);
  for (std::size_t i = 0; i < m.local_rows(); ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      field[(m.first_row() + i) * cols + j] = static_cast<float>(m.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)));
    }
  }
  pgas::sync_all();
  std::vector<float> all;
  pgas::copy(field, all, 0);
  bool ok = true;
  if (pgas::this_image() == 0) {
    const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
    const double span = *hi > *lo ? *hi - *lo : 1.0;
    std::vector<png_byte> rgb(3 * all.size());
    for (std::size_t k = 0; k < all.size(); ++k) colour((all[k] - *lo) / span, &rgb[3 * k]);
    FILE* f = std::fopen(path.c_str(), "wb");
    ok = f != nullptr && encode_png(f, rgb, static_cast<png_uint_32>(cols), static_cast<png_uint_32>(n));
    if (f != nullptr) ok = std::fclose(f) == 0 && ok;
    std::printf("%s %s\n", ok ? "wrote" : "could not write", path.c_str());
  }
  return pgas::co_broadcast(ok, 0);
}
#endif

// Writes the final field if --image named a file (the option exists in builds with libpng).
// Collective.
bool write_image_if_asked(const pgas::matrix<double>& m, const settings& s) {
#ifdef PGAS_HEAT2D_PNG
  return s.image.empty() || write_png(m, s.image);
#else
  (void)m;
  (void)s;
  return true;
#endif
}

bool run_prk(const settings& s) {
  const std::size_t n = s.n;
  const std::size_t R = s.radius;
  pgas::matrix<double> in(n, n, R);
  pgas::matrix<double> out(n, n, R);
  prk::fill_input(in);
  const std::vector<double> w = prk::star_weights(R);
  double t0 = 0;
  for (int it = 0; it <= s.iterations; ++it) {
    if (it == 1) {  // the first sweep is untimed, as in the PRK
      pgas::sync_all();
      t0 = MPI_Wtime();
    }
    prk::sweep(in, out, R, w);
  }
  const double elapsed = pgas::co_max(MPI_Wtime() - t0);
  const double local_norm = prk::local_interior_l1(out, R);
  const double norm = pgas::co_sum(local_norm) / static_cast<double>((n - 2 * R) * (n - 2 * R));
  const double reference = 2.0 * (s.iterations + 1);
  const bool ok = std::fabs(norm - reference) < 1e-8;
  if (pgas::this_image() == 0) {
    const double avg = elapsed / s.iterations;
    const double flops = static_cast<double>(2 * (4 * R + 1) + 1) * static_cast<double>((n - 2 * R) * (n - 2 * R));
    if (ok) {
      std::printf("Solution validates\n");
    } else {
      std::printf("ERROR: L1 norm = %.12f, reference L1 norm = %.12f\n", norm, reference);
    }
    std::printf("Rate (MFlops/s): %.6f  Avg time (s): %.6f\n", flops / avg * 1e-6, avg);
  }
  return ok && write_image_if_asked(out, s);
}

bool run_heat(const settings& s) {
  const std::size_t n = s.n;
  pgas::matrix<double> a(n, n, 1, pgas::boundary::fixed, 0.0);
  pgas::matrix<double> b(n, n, 1, pgas::boundary::fixed, 0.0);
  // The row above the grid is held at 1: the top image's ghost row stays hot for ever.
  for (auto* m : {&a, &b}) {
    if (m->local_rows() > 0 && m->first_row() == 0) {
      for (std::ptrdiff_t j = -1; j <= static_cast<std::ptrdiff_t>(n); ++j) m->local()(-1, j) = 1.0;
    }
  }
  pgas::sync_all();
  constexpr double alpha = 0.2;  // stable for the explicit 5-point scheme (< 0.25)
  pgas::matrix<double>* from = &a;
  pgas::matrix<double>* to = &b;
  for (int it = 0; it < s.iterations; ++it) {
    pgas::stencil_for_each(*from, *to, 0, [](const pgas::stencil_point<double>& c, double& o) {
      o = c(0, 0) + alpha * (c(-1, 0) + c(1, 0) + c(0, -1) + c(0, 1) - 4 * c(0, 0));
    });
    std::swap(from, to);
  }
  pgas::sync_all();
  // Heat only flows in from the top edge: temperatures stay in [0, 1] and fall with depth.
  double lo = 1;
  double hi = 0;
  for (std::size_t i = 0; i < from->local_rows(); ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const double v = from->local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j));
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
    std::printf("heat: %d steps on %zu x %zu: top %.4f, bottom %.4f, range [%.4f, %.4f] %s\n", s.iterations, n, n,
                top, bottom, lo, hi, ok ? "(plausible)" : "(WRONG)");
  }
  pgas::sync_all();
  return ok && write_image_if_asked(*from, s);
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  settings s;
  CLI::App app{"2-D stencil on pgas::matrix. prk: the Parallel Research Kernels star stencil with its\n"
               "check; heat: diffusion from a hot top edge.", "heat2d"};
  app.add_option("--mode", s.mode, "prk or heat")->capture_default_str()->check(CLI::IsMember({"prk", "heat"}));
  app.add_option("--n", s.n, "grid points per side")->capture_default_str();
  app.add_option("--radius", s.radius, "stencil radius (prk)")->capture_default_str();
  app.add_option("--iterations", s.iterations, "timed sweeps (prk) or steps (heat)")->capture_default_str()->check(CLI::NonNegativeNumber);
#ifdef PGAS_HEAT2D_PNG
  app.add_option("--image", s.image, "write the final field to this PNG file");
#endif
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv)) return *stop;
  try {
    return (s.mode == "prk" ? run_prk(s) : run_heat(s)) ? 0 : 1;
  } catch (const pgas::usage_error& e) {
    if (pgas::this_image() == 0) std::fprintf(stderr, "heat2d: %s\n", e.what());
    return 2;
  }
}
