#pragma once
// pgas::matrix: a 2-D array distributed by blocks of rows, with a halo of ghost cells around
// each image's part, filled from the neighbours by exchange_halo(). An ndarray<T, 2> on a
// P x 1 grid under the names row-split programs use.

#include <pgas/boundary.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/global_ref.hpp>
#include <pgas/grid.hpp>
#include <pgas/halo_exchange.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/window.hpp>
#include <pgas/tile_view.hpp>

#include <cstddef>
#include <type_traits>

namespace pgas {

/// A rows x cols matrix of T: the row-grid case of ndarray<T, 2> (grid P x 1), with the same
/// halo on every side. Rows are split over the images in blocks (as pgas::block does); each
/// image stores its rows plus `halo` ghost rows above and below and `halo` ghost columns on each
/// side. Collective to construct and destroy, move-only.
template <class T>
class matrix {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "pgas::matrix elements must be non-const and trivially copyable");

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
      : cells_(t, {rows, cols}, pgas::grid<2>({t.size(), 1}), halo, edges, initial) {}

  [[nodiscard]] std::size_t rows() const { return cells_.extent(0); }
  [[nodiscard]] std::size_t cols() const { return cells_.extent(1); }
  [[nodiscard]] std::size_t halo() const { return cells_.halo(0); }
  [[nodiscard]] boundary edges() const { return cells_.edges(); }
  /// Rows this image owns, and the global index of the first. Local.
  [[nodiscard]] std::size_t local_rows() const { return cells_.local().extent(0); }
  [[nodiscard]] std::size_t first_row() const { return cells_.local_origin()[0]; }
  /// The image that owns global row i. Local.
  [[nodiscard]] std::size_t owner(std::size_t i) const {
    if (i >= rows())
      runtime::throw_out_of_range("row", i, rows());
    return cells_.layout().split(0).owner(i);
  }
  /// Elements from one local row to the next (columns plus both halos). Local.
  [[nodiscard]] std::size_t stride() const { return cols() + 2 * halo(); }

  /// This image's rows, ghosts included, as a view: `local()(i, j)` for i in [-halo,
  /// local_rows + halo) and j in [-halo, cols + halo), `local().row(i)`. Read-only through a
  /// const matrix. Local.
  [[nodiscard]] tile_view<T> local() { return view_of(cells_.local()); }
  [[nodiscard]] tile_view<const T> local() const { return view_of(cells_.local()); }

  /// Global element (i, j) on whichever image owns it. Local; throws out_of_range outside
  /// the matrix.
  [[nodiscard]] global_ref<T> operator()(std::size_t i, std::size_t j) { return cells_(i, j); }
  [[nodiscard]] global_ref<const T> operator()(std::size_t i, std::size_t j) const {
    return cells_(i, j);
  }

  /// Collective: fills every image's ghost cells from its neighbours (ndarray::exchange_halo:
  /// corners included; with fixed edges the ghost columns outside the matrix keep the
  /// program's values and travel with the rows). Call after every image finished writing its
  /// interior and reading its ghosts of the previous step.
  void exchange_halo() { cells_.exchange_halo(); }
  /// The same, split phase (ndarray::exchange_halo_begin).
  [[nodiscard]] halo_exchange exchange_halo_begin() { return cells_.exchange_halo_begin(); }

  /// The matrix as the ndarray it is. Local.
  [[nodiscard]] ndarray<T, 2>& cells() { return cells_; }
  [[nodiscard]] const ndarray<T, 2>& cells() const { return cells_; }
  /// The window behind the matrix, for phases. Local.
  [[nodiscard]] runtime::window& window(pgas::detail::internal_only) const {
    return cells_.window(pgas::detail::internal);
  }
  /// The team the matrix was made on; owner() numbers its images. Local.
  [[nodiscard]] const pgas::team& team() const { return cells_.team(); }

 private:
  template <class U>
  static tile_view<U> view_of(const ndarray_view<U, 2>& v) noexcept {
    return tile_view<U>(v.with_halo(), v.extent(0), v.extent(1), v.halo(0), v.stride(0));
  }
  ndarray<T, 2> cells_;
};

}  // namespace pgas
