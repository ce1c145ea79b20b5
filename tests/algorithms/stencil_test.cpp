// stencil_for_each: a five-point average over interior points after the halo exchange.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

namespace {

TEST(Stencil, five_point_average_over_interior_points) {
  const std::size_t n = 12;
  pgas::matrix<double> in(n, n, 1);
  pgas::matrix<double> out(n, n, 1);
  for (std::size_t i = 0; i < in.local_rows(); ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      in.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) =
          static_cast<double>((in.first_row() + i) * n + j);
    }
  }
  pgas::sync_all();
  pgas::stencil_for_each(in, out, 1, [](const pgas::stencil_point<double>& p, double& o) {
    o = (p(-1, 0) + p(1, 0) + p(0, -1) + p(0, 1)) / 4.0;
  });
  pgas::sync_all();
  // The average of the four neighbours of a linear field is the centre value.
  for (std::size_t i = 1; i + 1 < n; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j) EXPECT_DOUBLE_EQ(out(i, j).get(), static_cast<double>(i * n + j));
  }
  EXPECT_EQ(out(0, 5).get(), 0.0);  // the boundary is not touched
  pgas::sync_all();
  // Every point knows its global row and column.
  pgas::stencil_for_each(in, out, 1, [](const pgas::stencil_point<double>& p, double& o) {
    o = static_cast<double>(p.row() * 1000 + p.col());
  });
  pgas::sync_all();
  for (std::size_t i = 1; i + 1 < n; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j) EXPECT_EQ(out(i, j).get(), static_cast<double>(i * 1000 + j));
  }
  pgas::sync_all();
}

}  // namespace
