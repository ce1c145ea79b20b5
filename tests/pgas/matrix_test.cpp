// pgas::matrix: ghost cells after exchange_halo, element by element, fixed and periodic.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

namespace {

// The value every element starts with: it encodes its global position.
double value_at(std::size_t i, std::size_t j) {
  return 1000.0 * static_cast<double>(i) + static_cast<double>(j);
}

void fill_interior(pgas::matrix<double>& m) {
  for (std::size_t i = 0; i < m.local_rows(); ++i) {
    for (std::size_t j = 0; j < m.cols(); ++j) {
      m.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) =
          value_at(m.first_row() + i, j);
    }
  }
}

struct shape {
  std::size_t rows;
  std::size_t cols;
  std::size_t halo;
};

class Matrix : public ::testing::TestWithParam<shape> {};

TEST_P(Matrix, fixed_boundary_ghosts_hold_the_neighbours_rows_and_the_edges_keep_theirs) {
  const auto [rows, cols, h] = GetParam();
  pgas::matrix<double> m(rows, cols, h, pgas::boundary::fixed, -1.0);
  fill_interior(m);
  m.exchange_halo();
  m.exchange_halo();  // twice: epochs open and close cleanly
  const auto n = static_cast<std::ptrdiff_t>(m.local_rows());
  const auto hh = static_cast<std::ptrdiff_t>(h);
  for (std::ptrdiff_t i = -hh; i < n + hh && n > 0; ++i) {
    const auto gi = static_cast<std::ptrdiff_t>(m.first_row()) + i;
    for (std::ptrdiff_t j = -hh; j < static_cast<std::ptrdiff_t>(cols) + hh; ++j) {
      const bool inside = gi >= 0 && gi < static_cast<std::ptrdiff_t>(rows) && j >= 0 &&
                          j < static_cast<std::ptrdiff_t>(cols);
      const double want =
          inside ? value_at(static_cast<std::size_t>(gi), static_cast<std::size_t>(j)) : -1.0;
      EXPECT_EQ(m.local()(i, j), want)
          << "local (" << i << ", " << j << ") on image " << pgas::this_image();
    }
  }
  pgas::sync_all();
}

TEST_P(Matrix, periodic_ghosts_wrap_around_in_both_directions) {
  const auto [rows, cols, h] = GetParam();
  pgas::matrix<double> m(rows, cols, h, pgas::boundary::periodic, -1.0);
  fill_interior(m);
  m.exchange_halo();
  const auto n = static_cast<std::ptrdiff_t>(m.local_rows());
  const auto hh = static_cast<std::ptrdiff_t>(h);
  const auto r = static_cast<std::ptrdiff_t>(rows);
  const auto c = static_cast<std::ptrdiff_t>(cols);
  for (std::ptrdiff_t i = -hh; i < n + hh && n > 0; ++i) {
    const auto gi = (static_cast<std::ptrdiff_t>(m.first_row()) + i + r) % r;
    for (std::ptrdiff_t j = -hh; j < c + hh; ++j) {
      const auto gj = (j + c) % c;
      EXPECT_EQ(m.local()(i, j),
                value_at(static_cast<std::size_t>(gi), static_cast<std::size_t>(gj)))
          << "local (" << i << ", " << j << ") on image " << pgas::this_image();
    }
  }
  pgas::sync_all();
}

TEST_P(Matrix, global_elements_are_reachable_from_every_image) {
  const auto [rows, cols, h] = GetParam();
  pgas::matrix<double> m(rows, cols, h);
  fill_interior(m);
  pgas::sync_all();
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; j += 3)
      EXPECT_EQ(static_cast<double>(m(i, j)), value_at(i, j));
  }
  pgas::sync_all();
  if (pgas::this_image() == 0)
    m(rows - 1, cols - 1) = -5.0;
  pgas::sync_all();
  EXPECT_EQ(m(rows - 1, cols - 1).get(), -5.0);
  EXPECT_THROW((void)m(rows, 0), pgas::out_of_range);
  EXPECT_THROW((void)m(0, cols), pgas::out_of_range);
  pgas::sync_all();
}

// Rows not divisible by the images, a halo of 2, and (8 rows, halo 2) enough for 4 images.
INSTANTIATE_TEST_SUITE_P(
    Shapes,
    Matrix,
    ::testing::Values(shape{8, 5, 1}, shape{10, 7, 2}, shape{9, 4, 2}, shape{13, 3, 1}));

TEST(MatrixShapes, fewer_rows_than_images_leaves_some_images_empty_and_works) {
  pgas::matrix<int> m(2, 3, 1, pgas::boundary::periodic);
  for (std::size_t i = 0; i < m.local_rows(); ++i)
    m.local()(static_cast<std::ptrdiff_t>(i), 0) = static_cast<int>(m.first_row() + i + 1);
  m.exchange_halo();
  // Every image: its rows and ghost rows hold row r's value (r mod 2) + 1, periodic; images
  // past the second own nothing, and the two rows are owned once in all.
  const auto rows = static_cast<std::ptrdiff_t>(m.local_rows());
  for (std::ptrdiff_t i = rows > 0 ? -1 : 0; i < (rows > 0 ? rows + 1 : 0); ++i) {
    const auto r = (static_cast<std::ptrdiff_t>(m.first_row()) + i + 2) % 2;
    EXPECT_EQ(m.local()(i, 0), static_cast<int>(r) + 1) << "local row " << i;
  }
  EXPECT_EQ(m.local_rows(), pgas::this_image() < 2 ? (pgas::num_images() == 1 ? 2u : 1u) : 0u);
  EXPECT_EQ(pgas::co_sum(m.local_rows()), 2u);
  pgas::sync_all();
}

TEST(FencePhase, writes_in_a_phase_are_visible_after_each_fence) {
  pgas::array<int> a(pgas::num_images() * 2);
  {
    pgas::fence_phase phase(a);
    a[(pgas::this_image() * 2 + 2) % a.size()] = static_cast<int>(pgas::this_image()) + 1;
    phase.fence();
    EXPECT_EQ(
        a.local()[0],
        static_cast<int>((pgas::this_image() + pgas::num_images() - 1) % pgas::num_images()) + 1);
    if (pgas::num_images() > 1) {  // the element is remote: a blocking read needs the phase over
      EXPECT_THROW((void)static_cast<int>(a[(pgas::this_image() * 2 + 3) % a.size()]),
                   pgas::usage_error);
    }
    a[(pgas::this_image() * 2 + 3) % a.size()] += 5;
  }
  pgas::sync_all();
  EXPECT_EQ(a.local()[1], 5);
  pgas::sync_all();
}

TEST(FencePhase, an_update_made_before_the_phase_is_in_place_inside_it) {
  const std::size_t me = pgas::this_image();
  const std::size_t n = pgas::num_images();
  pgas::array<long> a(n);
  a[(me + 1) % n] += static_cast<long>(me) + 10;  // no sync point before the phase
  {
    pgas::fence_phase phase(a);
    EXPECT_EQ(a.local()[0], static_cast<long>((me + n - 1) % n) + 10);
  }
  pgas::sync_all();
}

}  // namespace
