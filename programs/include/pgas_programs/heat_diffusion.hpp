#pragma once
// Heat diffusion on pgas::ndarray<double, 2> (a pgas::matrix's cells()), shared by heat2d's heat
// mode and the teams example: an n x n grid whose top edge is held at 1, advanced by Jacobi steps
// of the 5-point Laplacian.

#include <pgas/algorithms.hpp>

#include <cstddef>

namespace heat {

/// Holds the row above the grid at 1 for ever: the ghost row of the tiles on the top edge (their
/// ghost cells outside the grid are never overwritten: fixed edges). Local; sync before use.
inline void hold_top_edge_hot(pgas::ndarray<double, 2>& field) {
  const auto tile = field.local();
  if (tile.size() == 0 || field.local_origin()[0] != 0)
    return;
  for (std::ptrdiff_t j = -1; j <= static_cast<std::ptrdiff_t>(tile.extent(1)); ++j)
    tile(-1, j) = 1.0;
}

/// Two n x n fields with one ghost cell all round, every value 0 but the row above the grid,
/// held at 1. Collective over the team in force; tiles on grid `g` (default: as square as the
/// images allow).
struct fields {
  explicit fields(std::size_t n, const pgas::grid<2>& g = {})
      : a({n, n}, g, 1, pgas::boundary::fixed, 0.0), b({n, n}, g, 1, pgas::boundary::fixed, 0.0) {
    hold_top_edge_hot(a);
    hold_top_edge_hot(b);
    pgas::sync_all();
  }
  pgas::ndarray<double, 2> a;
  pgas::ndarray<double, 2> b;
};

/// One explicit step from `from` into `to`. Collective.
inline void step(pgas::ndarray<double, 2>& from, pgas::ndarray<double, 2>& to) {
  constexpr double alpha = 0.2;  // stable for the explicit 5-point scheme (< 0.25)
  pgas::stencil_for_each(from, to, 0, [](const pgas::stencil_point<double>& c, double& o) {
    o = c(0, 0) + alpha * (c(-1, 0) + c(1, 0) + c(0, -1) + c(0, 1) - 4 * c(0, 0));
  });
}

}  // namespace heat
