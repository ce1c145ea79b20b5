#pragma once
// Heat diffusion on pgas::matrix, shared by heat2d's heat mode and the teams example: an n x n
// grid whose top edge is held at 1, advanced by Jacobi steps of the 5-point Laplacian.

#include <pgas/algorithms.hpp>

#include <cstddef>

namespace heat {

/// Two n x n fields with one ghost cell all round, every value 0 but the row above the grid,
/// held at 1 for ever (the top image's ghost row). Collective over the team in force.
struct fields {
  explicit fields(std::size_t n) : a(n, n, 1, pgas::boundary::fixed, 0.0), b(n, n, 1, pgas::boundary::fixed, 0.0) {
    for (auto* m : {&a, &b}) {
      if (m->local_rows() > 0 && m->first_row() == 0) {
        for (std::ptrdiff_t j = -1; j <= static_cast<std::ptrdiff_t>(n); ++j) m->local()(-1, j) = 1.0;
      }
    }
    pgas::sync_all();
  }
  pgas::matrix<double> a;
  pgas::matrix<double> b;
};

/// One explicit step from `from` into `to`. Collective.
inline void step(pgas::matrix<double>& from, pgas::matrix<double>& to) {
  constexpr double alpha = 0.2;  // stable for the explicit 5-point scheme (< 0.25)
  pgas::stencil_for_each(from, to, 0, [](const pgas::stencil_point<double>& c, double& o) {
    o = c(0, 0) + alpha * (c(-1, 0) + c(1, 0) + c(0, -1) + c(0, 1) - 4 * c(0, 0));
  });
}

}  // namespace heat
