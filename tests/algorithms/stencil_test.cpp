// stencil_for_each: a five-point average over interior points after the halo exchange.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

#include <vector>

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
    for (std::size_t j = 1; j + 1 < n; ++j)
      EXPECT_DOUBLE_EQ(out(i, j).get(), static_cast<double>(i * n + j));
  }
  EXPECT_EQ(out(0, 5).get(), 0.0);  // the boundary is not touched
  pgas::sync_all();
  // Every point knows its global row and column.
  pgas::stencil_for_each(in, out, 1, [](const pgas::stencil_point<double>& p, double& o) {
    o = static_cast<double>(p.row() * 1000 + p.col());
  });
  pgas::sync_all();
  for (std::size_t i = 1; i + 1 < n; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j)
      EXPECT_EQ(out(i, j).get(), static_cast<double>(i * 1000 + j));
  }
  pgas::sync_all();
}

// A box stencil (corners included) on tiles of every grid the image count allows, the halo
// wider than the radius (so the kernel reads ghosts even at radius 0), periodic and fixed,
// against the same sweep done on one image's full copy of the field.
TEST(Stencil, box_stencil_on_ndarray_tiles_matches_a_serial_sweep) {
  const std::size_t p = pgas::num_images();
  std::vector<pgas::grid<2>> grids{pgas::grid({p, 1}), pgas::grid({1, p})};
  if (p == 4)
    grids.push_back(pgas::grid({2, 2}));
  const std::size_t rows = 3 * p + 2;
  const std::size_t cols = 2 * p + 3;
  const auto field = [cols](std::size_t i, std::size_t j) {
    return static_cast<double>((i * 7 + j * 13) % 17) + 0.5 * static_cast<double>(i * cols + j);
  };
  for (const auto& g : grids) {
    for (auto edges : {pgas::boundary::fixed, pgas::boundary::periodic}) {
      for (std::size_t radius : {std::size_t{0}, std::size_t{1}}) {
        pgas::ndarray<double, 2> in({rows, cols}, g, 1, edges, -2.0);
        pgas::ndarray<double, 2> out({rows, cols}, g, 1, edges, -3.0);
        const auto v = in.local();
        const auto o = in.local_origin();
        for (std::size_t i = 0; i < v.extent(0); ++i) {
          for (std::size_t j = 0; j < v.extent(1); ++j) v(i, j) = field(o[0] + i, o[1] + j);
        }
        pgas::stencil_for_each(
            in, out, radius, [](const pgas::stencil_point<double>& c, double& r) {
              r = c(-1, -1) + 2 * c(-1, 0) + 3 * c(-1, 1) + 4 * c(0, -1) + 5 * c(0, 0) +
                  6 * c(0, 1) + 7 * c(1, -1) + 8 * c(1, 0) + 9 * c(1, 1) +
                  1e-3 * static_cast<double>(c.row() * 100 + c.col());
            });
        pgas::sync_all();
        const bool periodic = edges == pgas::boundary::periodic;
        const auto at = [&](long i, long j) {
          const auto r = static_cast<long>(rows);
          const auto c = static_cast<long>(cols);
          if (periodic)
            return field(static_cast<std::size_t>((i + r) % r),
                         static_cast<std::size_t>((j + c) % c));
          if (i < 0 || j < 0 || i >= r || j >= c)
            return -2.0;
          return field(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
        };
        std::size_t wrong = 0;
        const std::size_t lo = periodic ? 0 : radius;
        for (std::size_t i = 0; i < rows; ++i) {
          for (std::size_t j = 0; j < cols; ++j) {
            const bool computed = i >= lo && j >= lo && i < rows - lo && j < cols - lo;
            const auto li = static_cast<long>(i);
            const auto lj = static_cast<long>(j);
            const double want =
                computed ? at(li - 1, lj - 1) + 2 * at(li - 1, lj) + 3 * at(li - 1, lj + 1) +
                               4 * at(li, lj - 1) + 5 * at(li, lj) + 6 * at(li, lj + 1) +
                               7 * at(li + 1, lj - 1) + 8 * at(li + 1, lj) +
                               9 * at(li + 1, lj + 1) + 1e-3 * static_cast<double>(i * 100 + j)
                         : -3.0;
            if (out(i, j).get() != want)
              ++wrong;
          }
        }
        EXPECT_EQ(wrong, 0u) << "grid " << g.extent(0) << " x " << g.extent(1)
                             << (periodic ? " periodic" : " fixed") << " radius " << radius;
        pgas::sync_all();
      }
    }
  }
}

}  // namespace
