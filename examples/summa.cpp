// SUMMA: C = A B for A (m x k), B (k x n) and C (m x n), each a pgas::ndarray<double, 2> on the
// same R x C process grid. For each panel of k, the images of a grid column holding A's panel
// broadcast it along their grid rows, the images of a grid row holding B's panel broadcast it
// along their grid columns (co_broadcast on row and column teams split from the grid), and every
// image multiplies the two panels into its tile of C. Verified element by element against a
// serial product of the same matrices when it is small enough (--check-limit), and always
// against a closed form: A(i, l) = l and B(l, j) = j give C(i, j) = j k (k - 1) / 2, exactly.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/grid_option.hpp>
#include <string>
#include <vector>

namespace {

using matrix = pgas::ndarray<double, 2>;

// Fills this image's tile of a with f(i, j) at global (i, j).
template <class F>
void fill(matrix& a, F f) {
  const auto v = a.local();
  const auto o = a.local_origin();
  for (std::size_t i = 0; i < v.extent(0); ++i) {
    for (std::size_t j = 0; j < v.extent(1); ++j) v(i, j) = f(o[0] + i, o[1] + j);
  }
}

// C += A B with SUMMA, panels at most `panel` wide. Collective over the arrays' team.
void summa(matrix& c,
           const matrix& a,
           const matrix& b,
           std::size_t panel,
           const pgas::team& row_team,
           const pgas::team& col_team) {
  pgas::sync_all();  // every image's A and B are written
  const auto ct = c.local();
  const std::size_t rows = ct.extent(0);
  const std::size_t cols = ct.extent(1);
  const std::size_t k = a.extent(1);
  const auto& a_cols = a.split(1);  // A's columns over the grid columns
  const auto& b_rows = b.split(0);  // B's rows over the grid rows
  const auto mine = c.grid_coordinates();
  std::vector<double> a_panel;
  std::vector<double> b_panel;
  for (std::size_t k0 = 0; k0 < k;) {
    // The panel stays inside one tile of A's columns and one of B's rows.
    const std::size_t a_owner = a_cols.owner(k0);
    const std::size_t b_owner = b_rows.owner(k0);
    const std::size_t k1 =
        std::min({k, k0 + panel, a_cols.first_of(a_owner) + a_cols.local_size(a_owner),
                  b_rows.first_of(b_owner) + b_rows.local_size(b_owner)});
    const std::size_t w = k1 - k0;
    a_panel.resize(rows * w);
    b_panel.resize(w * cols);
    if (mine[1] == a_owner && rows > 0) {  // my tile of A holds the panel: rows x w from column k0
      const auto at = a.local();
      const std::size_t from = k0 - a.local_origin()[1];
      for (std::size_t i = 0; i < rows; ++i) std::copy_n(&at(i, from), w, &a_panel[i * w]);
    }
    if (mine[0] == b_owner && cols > 0) {  // my tile of B holds the panel: w x cols from row k0
      const auto bt = b.local();
      const std::size_t from = k0 - b.local_origin()[0];
      for (std::size_t l = 0; l < w; ++l) std::copy_n(&bt(from + l, 0), cols, &b_panel[l * cols]);
    }
    pgas::co_broadcast(std::span<double>(a_panel), a_owner, row_team);
    pgas::co_broadcast(std::span<double>(b_panel), b_owner, col_team);
    for (std::size_t i = 0; i < rows; ++i) {
      double* out = &ct(i, 0);
      for (std::size_t l = 0; l < w; ++l) {
        const double x = a_panel[i * w + l];
        const double* in = &b_panel[l * cols];
        for (std::size_t j = 0; j < cols; ++j) out[j] += x * in[j];
      }
    }
    k0 = k1;
  }
  pgas::sync_all();
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t m = 1000;
  std::size_t n = 1000;
  std::size_t k = 1000;
  std::size_t panel = 128;
  std::size_t check_limit = std::size_t{1} << 27;
  std::string grid_text;
  pgas_programs::command_line app{
      "SUMMA matrix product C = A B on pgas::ndarray tiles, broadcasting panels on grid row and "
      "column teams; verified.",
      "summa"};
  app.add_option("--m", m, "rows of A and C")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{1}, std::size_t{1} << 16));
  app.add_option("--n", n, "columns of B and C")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{1}, std::size_t{1} << 16));
  app.add_option("--k", k, "columns of A, rows of B")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{1}, std::size_t{1} << 16));
  app.add_option("--panel", panel, "panel width")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option("--check-limit", check_limit, "largest m n k checked against a serial product")
      ->capture_default_str();
  pgas_programs::add_grid_option(app, grid_text,
                                 "process grid RxC (default: as square as the images allow)");
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const pgas::grid<2> g = pgas_programs::grid_of(grid_text, {});
  matrix a({m, k}, g);
  matrix b({k, n}, g);
  matrix c({m, n}, g, 0, pgas::boundary::fixed, 0.0);
  // The grid's rows and columns as teams: image (r, q) is image q of row team r and image r of
  // column team q.
  const auto me = c.grid_coordinates();
  const pgas::team row_team =
      pgas::current_team().split(static_cast<int>(me[0]), static_cast<int>(me[1]));
  const pgas::team col_team =
      pgas::current_team().split(static_cast<int>(me[1]), static_cast<int>(me[0]));
  if (pgas::this_image() == 0) {
    std::printf(
        "SUMMA on pgas: C (%zu x %zu) = A (%zu x %zu) B (%zu x %zu)\nprocess grid %s, panel %zu\n",
        m, n, m, k, k, n, pgas_programs::grid_text(c.grid()).c_str(), panel);
  }
  bool ok = true;
  // A serial product of small integers (exact in double), where it is small enough.
  if (m * n * k <= check_limit) {
    const auto ai = [](std::size_t i, std::size_t l) {
      return static_cast<double>(static_cast<int>((3 * i + 7 * l) % 11) - 5);
    };
    const auto bi = [](std::size_t l, std::size_t j) {
      return static_cast<double>(static_cast<int>((5 * l + 2 * j) % 13) - 6);
    };
    fill(a, ai);
    fill(b, bi);
    summa(c, a, b, panel, row_team, col_team);
    const auto v = c.local();
    const auto o = c.local_origin();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < v.extent(0); ++i) {
      for (std::size_t j = 0; j < v.extent(1); ++j) {
        double want = 0;
        for (std::size_t l = 0; l < k; ++l) want += ai(o[0] + i, l) * bi(l, o[1] + j);
        if (v(i, j) != want)
          ++wrong;
      }
    }
    wrong = pgas::co_sum(wrong);
    ok = wrong == 0;
    if (pgas::this_image() == 0)
      std::printf("serial product check: %zu elements differ\n", wrong);
    fill(c, [](std::size_t, std::size_t) { return 0.0; });
  }
  // The timed product, checked against the closed form.
  fill(a, [](std::size_t, std::size_t l) { return static_cast<double>(l); });
  fill(b, [](std::size_t, std::size_t j) { return static_cast<double>(j); });
  pgas::sync_all();
  const double t0 = MPI_Wtime();
  summa(c, a, b, panel, row_team, col_team);
  const double seconds = pgas::co_max(MPI_Wtime() - t0);
  const auto v = c.local();
  const auto o = c.local_origin();
  const double sum_l = static_cast<double>(k) * static_cast<double>(k - 1) / 2;
  double error = 0;
  for (std::size_t i = 0; i < v.extent(0); ++i) {
    for (std::size_t j = 0; j < v.extent(1); ++j)
      error += std::fabs(v(i, j) - static_cast<double>(o[1] + j) * sum_l);
  }
  error = pgas::co_sum(error);
  ok = ok && error == 0.0;  // integers below 2^53: exact
  if (pgas::this_image() == 0) {
    std::printf("%s\nRate (GFlop/s): %.3f  Time (s): %.6f\n",
                ok ? "Solution validates" : "ERROR: the product is wrong",
                2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) /
                    seconds * 1e-9,
                seconds);
  }
  return ok ? 0 : 1;
}
