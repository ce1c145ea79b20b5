// bale's sparse applications on pgas::sparse_matrix, each at bale's default size per image and
// checked as bale checks it: transpose_matrix (the transpose of the transpose is the matrix),
// permute_matrix (permuting back by the inverse permutations gives the matrix), randperm (the
// result sorted is 0..n-1), topo (the permuted matrix is upper triangular with a full diagonal)
// and triangles (a relabelled graph has as many triangles). Only the kernel is timed.
#include <pgas/pgas.hpp>
#include <pgas/sparse.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/random_matrix.hpp>
#include <span>
#include <string>
#include <vector>

namespace {

// Rows of `a` and `b` (same shape and layout) that differ, over every image.
std::size_t differing_rows(const pgas::sparse_matrix<double>& a,
                           const pgas::sparse_matrix<double>& b) {
  std::size_t wrong = a.nnz() == b.nnz() ? 0U : 1U;
  for (std::size_t k = 0; k < a.local_rows(); ++k) {
    const auto x = a.row(k);
    const auto y = b.row(k);
    const bool same = x.cols.size() == y.cols.size() &&
                      std::equal(x.cols.begin(), x.cols.end(), y.cols.begin()) &&
                      std::equal(x.values.begin(), x.values.end(), y.values.begin());
    wrong += same ? 0U : 1U;
  }
  return pgas::co_sum(wrong);
}

// The inverse of a permutation: inverse[p[i]] = i.
pgas::array<std::size_t> inverse_of(const pgas::array<std::size_t>& p) {
  pgas::array<std::size_t> inverse(p.size());
  std::vector<std::size_t> places(p.local().begin(), p.local().end());
  std::vector<std::size_t> indices(places.size());
  for (std::size_t k = 0; k < indices.size(); ++k) indices[k] = p.global_index(k);
  pgas::scatter(inverse, std::span<const std::size_t>(places),
                std::span<const std::size_t>(indices));
  inverse.sync();
  return inverse;
}

// Seconds the slowest image spent in f.
double timed(const std::function<void()>& f) {
  pgas::sync_all();
  const double t0 = MPI_Wtime();
  f();
  return pgas::co_max(MPI_Wtime() - t0);
}

struct outcome {
  std::string what;
  double seconds;
  bool passed;
};

outcome transpose_app(std::size_t n, double per_row, std::uint64_t seed) {
  const auto m = pgas_programs::random_matrix(n, per_row, seed);
  std::optional<pgas::sparse_matrix<double>> t;
  const double s = timed([&] { t.emplace(pgas::transpose(m)); });
  const auto back = pgas::transpose(*t);
  return {
      std::to_string(n) + " x " + std::to_string(n) + ", " + std::to_string(m.nnz()) + " non-zeros",
      s, differing_rows(back, m) == 0};
}

outcome permute_app(std::size_t n, double per_row, std::uint64_t seed) {
  const auto m = pgas_programs::random_matrix(n, per_row, seed);
  const auto rperm = pgas::random_permutation(n, seed + 1);
  const auto cperm = pgas::random_permutation(n, seed + 2);
  std::optional<pgas::sparse_matrix<double>> out;
  const double s = timed([&] { out.emplace(pgas::permute(m, rperm, cperm)); });
  const auto back = pgas::permute(*out, inverse_of(rperm), inverse_of(cperm));
  return {
      std::to_string(n) + " x " + std::to_string(n) + ", " + std::to_string(m.nnz()) + " non-zeros",
      s, differing_rows(back, m) == 0};
}

outcome randperm_app(std::size_t n, std::uint64_t seed) {
  std::optional<pgas::array<std::size_t>> p;
  const double s = timed([&] { p.emplace(pgas::random_permutation(n, seed)); });
  pgas::sort(*p);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < p->local().size(); ++k)
    wrong += p->local()[k] == p->global_index(k) ? 0U : 1U;
  return {std::to_string(n) + " indices", s, pgas::co_sum(wrong) == 0};
}

outcome toposort_app(std::size_t n, double per_row, std::uint64_t seed) {
  const auto upper = pgas_programs::triangle_with_diagonal(n, per_row, seed);
  // bale's input: the triangle with its rows and columns scrambled.
  const auto m = pgas::permute(upper, pgas::random_permutation(n, seed + 1),
                               pgas::random_permutation(n, seed + 2));
  // As bale does, the transpose is made before the kernel is timed.
  const auto by_column = pgas::transpose(m);
  std::optional<std::pair<pgas::array<std::size_t>, pgas::array<std::size_t>>> perms;
  const double s = timed([&] { perms.emplace(pgas::toposort(m, by_column)); });
  const auto ordered = pgas::permute(m, perms->first, perms->second);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < ordered.local_rows(); ++k) {
    const auto row = ordered.row(k);
    wrong += !row.cols.empty() && row.cols.front() == ordered.global_row(k) ? 0U : 1U;
  }
  return {
      std::to_string(n) + " x " + std::to_string(n) + ", " + std::to_string(m.nnz()) + " non-zeros",
      s, pgas::co_sum(wrong) == 0};
}

outcome triangles_app(std::size_t n, double per_row, std::uint64_t seed) {
  // bale's -z counts a row's non-zeros in the lower triangle: the graph's degree is twice it.
  const auto g = pgas::erdos_renyi(n, 2 * per_row, seed);
  std::uint64_t found = 0;
  const double s = timed([&] { found = pgas::triangle_count(g); });
  const auto p = pgas::random_permutation(n, seed + 3);
  const std::uint64_t relabelled = pgas::triangle_count(pgas::permute(g, p, p));
  return {std::to_string(n) + " vertices, " + std::to_string(g.nnz() / 2) + " edges, " +
              std::to_string(found) + " triangles",
          s, found == relabelled};
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::string app_name = "transpose";
  std::size_t rows_per_image = 0;
  double per_row = 10.0;
  std::uint64_t seed = 12345;
  pgas_programs::command_line app{
      "bale's sparse applications on pgas::sparse_matrix, each verified.", "bale"};
  app.add_option("--app", app_name, "the application")
      ->check(pgas_programs::one_of({"transpose", "permute", "randperm", "toposort", "triangles"}))
      ->capture_default_str();
  app.add_option("--rows", rows_per_image,
                 "rows (or indices) per image; bale's default for the application if 0")
      ->capture_default_str();
  app.add_option("--nz-per-row", per_row, "average non-zeros per row, as bale's -z")
      ->capture_default_str()
      ->check(pgas_programs::non_negative_number());
  app.add_option("--seed", seed, "the seed")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  // bale's defaults (its -n, rows per PE).
  const std::map<std::string, std::size_t> bale_rows = {{"transpose", 500000},
                                                        {"permute", 1000000},
                                                        {"randperm", 1000000},
                                                        {"toposort", 500000},
                                                        {"triangles", 100000}};
  const std::size_t n =
      (rows_per_image != 0 ? rows_per_image : bale_rows.at(app_name)) * pgas::num_images();
  outcome o;
  if (app_name == "transpose") {
    o = transpose_app(n, per_row, seed);
  } else if (app_name == "permute") {
    o = permute_app(n, per_row, seed);
  } else if (app_name == "randperm") {
    o = randperm_app(n, seed);
  } else if (app_name == "toposort") {
    o = toposort_app(n, per_row, seed);
  } else {
    o = triangles_app(n, per_row, seed);
  }
  if (pgas::this_image() == 0) {
    std::printf("bale %s on %zu images: %s in %.3f s; %s\n", app_name.c_str(), pgas::num_images(),
                o.what.c_str(), o.seconds, o.passed ? "verified" : "FAILED verification");
  }
  return o.passed ? 0U : 1U;
}
