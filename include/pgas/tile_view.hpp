#pragma once
// pgas::tile_view: this image's part of a 2-D container, ghost cells included, as a plain
// non-owning view over local memory. What matrix::local() returns.

#include <cstddef>
#include <span>
#include <type_traits>

namespace pgas {

/// Rows x cols elements of T in row-major order, `stride()` elements from one row to the next,
/// surrounded by `halo()` ghost rows and columns on every side. Element (i, j) for i in
/// [-halo, rows + halo) and j in [-halo, cols + halo); (0, 0) is the first element this image
/// owns. Read-only when T is const. Copying the view copies no elements.
template <class T>
class tile_view {
 public:
  tile_view() noexcept = default;
  /// `block` is the whole part, ghosts included, row-major with rows `stride` apart.
  tile_view(std::span<T> block,
            std::size_t rows,
            std::size_t cols,
            std::size_t halo,
            std::size_t stride) noexcept
      : block_{block}, rows_{rows}, cols_{cols}, halo_{halo}, stride_{stride} {}
  /// A view of non-const converts to a view of const.
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>) tile_view(const tile_view<U>& v)
  noexcept  // NOLINT(google-explicit-constructor)
      : block_{v.with_halo()},
        rows_{v.extent(0)},
        cols_{v.extent(1)},
        halo_{v.halo()},
        stride_{v.stride(0)} {}

  /// Element (i, j). No bounds check: this is the inner-loop accessor.
  [[nodiscard]] T& operator()(std::ptrdiff_t i, std::ptrdiff_t j) const noexcept {
    const auto h = static_cast<std::ptrdiff_t>(halo_);
    return block_[static_cast<std::size_t>((i + h) * static_cast<std::ptrdiff_t>(stride_) + j + h)];
  }
  /// Element (i, 0); the row's columns follow it contiguously.
  [[nodiscard]] T* row(std::ptrdiff_t i) const noexcept { return &(*this)(i, 0); }
  /// Element (0, 0), or null for an image that owns no rows.
  [[nodiscard]] T* data() const noexcept { return rows_ == 0 ? nullptr : row(0); }
  /// Rows (d = 0) or columns (d = 1) this image owns, ghosts not counted.
  [[nodiscard]] std::size_t extent(std::size_t d) const noexcept { return d == 0 ? rows_ : cols_; }
  /// Elements from one row to the next (d = 0) or one column to the next (d = 1): row-major.
  [[nodiscard]] std::size_t stride(std::size_t d) const noexcept { return d == 0 ? stride_ : 1; }
  /// Ghost rows above and below, ghost columns left and right.
  [[nodiscard]] std::size_t halo() const noexcept { return halo_; }
  /// The whole part, ghosts included, row-major with stride(0).
  [[nodiscard]] std::span<T> with_halo() const noexcept { return block_; }

 private:
  std::span<T> block_;
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  std::size_t halo_ = 0;
  std::size_t stride_ = 0;
};

}  // namespace pgas
