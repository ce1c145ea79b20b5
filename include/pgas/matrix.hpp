#pragma once
// pgas::matrix: a 2-D array distributed by blocks of rows, with a halo of ghost cells around
// each image's part, filled from the neighbours by exchange_halo(). It is an ndarray<T, 2> on a
// P x 1 grid, with the constructor and names row-split programs use.

#include <pgas/boundary.hpp>
#include <pgas/grid.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/tile_view.hpp>

#include <cstddef>

namespace pgas {

/// A rows x cols matrix of T: ndarray<T, 2> on the grid P x 1, with the same halo on every side.
/// Rows are split over the images in blocks (as pgas::block does); each image stores its rows
/// plus `halo` ghost rows above and below and `halo` ghost columns on each side. Everything an
/// ndarray offers (local() as a tile_view, m(i, j), exchange_halo(), patches, transpose,
/// algorithms, files) works on it. Collective to construct and destroy, move-only.
template <class T>
class matrix : public ndarray<T, 2> {
 public:
  /// Collective. Every element, ghost cells included, starts as `initial`. Throws usage_error
  /// on every image if the images disagree on the shape, or if an image that owns rows owns
  /// fewer than `halo` of them (its ghosts would need rows of two neighbours).
  matrix(std::size_t rows,
         std::size_t cols,
         std::size_t halo = 1,
         boundary edges = boundary::fixed,
         const T& initial = T{})
      : matrix(current_team(), rows, cols, halo, edges, initial) {}
  /// Collective over team t: the matrix's rows are split over t's images.
  matrix(const pgas::team& t,
         std::size_t rows,
         std::size_t cols,
         std::size_t halo = 1,
         boundary edges = boundary::fixed,
         const T& initial = T{})
      : ndarray<T, 2>(t, {rows, cols}, pgas::grid<2>({t.size(), 1}), halo, edges, initial) {}

  using ndarray<T, 2>::halo;
  using ndarray<T, 2>::owner;
  [[nodiscard]] std::size_t rows() const { return this->extent(0); }
  [[nodiscard]] std::size_t cols() const { return this->extent(1); }
  /// The ghost rows above and below each part (and ghost columns on each side). Local.
  [[nodiscard]] std::size_t halo() const { return this->halo(0); }
  /// Rows this image owns, and the global index of the first. Local.
  [[nodiscard]] std::size_t local_rows() const { return this->local().extent(0); }
  [[nodiscard]] std::size_t first_row() const { return this->local_origin()[0]; }
  /// The image that owns global row i. Local.
  [[nodiscard]] std::size_t owner(std::size_t i) const {
    if (i >= rows())
      runtime::throw_out_of_range("row", i, rows());
    return this->split(0).owner(i);
  }
  /// Elements from one local row to the next (columns plus both halos). Local.
  [[nodiscard]] std::size_t stride() const { return cols() + 2 * halo(); }

  /// The matrix as the ndarray it is (for code written before matrix was one). Local.
  [[nodiscard]] ndarray<T, 2>& cells() { return *this; }
  [[nodiscard]] const ndarray<T, 2>& cells() const { return *this; }
};

}  // namespace pgas
