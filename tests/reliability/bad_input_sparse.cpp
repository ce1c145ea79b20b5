// The bad-input catalogue, continued: the sparse kernels and Matrix Market files. Each misuse
// is refused on every image, the same way, and the witness array keeps what was written.
#include <pgas/sparse.hpp>

#include "../support/scratch_file.hpp"
#include "bad_input_fixture.hpp"
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace {

using bad_input::BadInput;
using bad_input::images;
using bad_input::me;

// Runs f, which must throw E with `part` in its message (on every image).
template <class E, class F>
void expect_refused(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "nothing thrown; expected a refusal mentioning '" << part << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST_F(BadInput, permute_by_a_permutation_repeated_in_one_images_part) {
  const auto m = pgas::erdos_renyi(4 * images() + 3, 2.0, 1);
  const std::size_t n = m.rows();
  pgas::array<std::size_t> twice(n);
  for (std::size_t k = 0; k < twice.local().size(); ++k) {
    const std::size_t i = twice.global_index(k);
    // The last image's first index repeats index 0: the others' parts are a permutation's.
    twice.local()[k] = me() == images() - 1 && k == 0 && i != 0 ? 0 : i;
  }
  pgas::sync_all();
  const auto good = pgas::random_permutation(n, 3);
  if (images() > 1) {
    expect_refused<pgas::usage_error>([&] { (void)pgas::permute(m, twice, good); },
                                      "more than once");
  }
  expect_refused<pgas::usage_error>(
      [&] { (void)pgas::permute(m, good, pgas::random_permutation(n + 1, 3)); }, "cperm holds");
}

TEST_F(BadInput, toposort_of_a_matrix_no_permutation_makes_triangular) {
  std::vector<pgas::entry<double>> cycle;
  if (me() == 0)
    cycle = {{0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}, {2, 2, 1.0}};
  const pgas::sparse_matrix<double> m(3, 3, std::span<const pgas::entry<double>>(cycle));
  expect_refused<pgas::usage_error>([&] { (void)pgas::toposort(m); }, "cannot be ordered");
}

TEST_F(BadInput, bfs_from_a_source_past_the_last_row) {
  const auto g = pgas::erdos_renyi(6, 2.0, 4);
  expect_refused<pgas::out_of_range>([&] { (void)pgas::bfs(g, 6); }, "source");
}

TEST_F(BadInput, matrix_market_file_with_a_bad_line_or_too_few_entries) {
  const pgas_test::scratch_file f("catalogue.mtx");
  f.holds("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 two 1\n3 3 1\n");
  expect_refused<pgas::io_error>([&] { (void)pgas::matrix_market::read<double>(f.name()); },
                                 "\"2 two 1\"");
  const pgas_test::scratch_file g("short_catalogue.mtx");
  g.holds("%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n");
  expect_refused<pgas::io_error>([&] { (void)pgas::matrix_market::read<double>(g.name()); },
                                 "promises 4 entries");
}

}  // namespace
