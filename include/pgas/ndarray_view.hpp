#pragma once
// pgas::ndarray_view: this image's tile of an n-dimensional array, ghost cells included, as a
// plain non-owning view over local memory. What ndarray::local() returns.

#include <pgas/runtime/error.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

namespace pgas {

/// A tile of N dimensions stored row-major (the last index varies fastest), extent(d) elements
/// along dimension d, surrounded by halo(d) ghost cells on both sides of it. Index (0, ..., 0) is
/// the first element this image owns; ghosts sit at indices -halo(d) .. -1 and extent(d) ..
/// extent(d) + halo(d) - 1. stride(d) is the distance in elements between neighbours along d,
/// ghosts counted. Read-only when T is const. Copying the view copies no elements.
template <class T, std::size_t N>
class ndarray_view {
 public:
  ndarray_view() noexcept = default;
  /// `block` is the whole tile, ghosts included, row-major.
  ndarray_view(std::span<T> block,
               const std::array<std::size_t, N>& extents,
               const std::array<std::size_t, N>& halos) noexcept
      : block_{block}, extents_{extents}, halos_{halos} {
    std::size_t s = 1;
    for (std::size_t d = N; d-- > 0;) {
      strides_[d] = s;
      s *= extents_[d] + 2 * halos_[d];
    }
  }
  /// A view of non-const converts to a view of const.
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
      ndarray_view(const ndarray_view<U, N>& v)
  noexcept  // NOLINT(google-explicit-constructor)
      : ndarray_view(v.with_halo(), v.extents(), v.halos()) {}

  /// Element (i, j, ...), ghosts included. No bounds check: this is the inner-loop accessor.
  template <std::integral... I>
  requires(sizeof...(I) == N) [[nodiscard]] T& operator()(I... index) const noexcept {
    const std::array<std::ptrdiff_t, N> at{static_cast<std::ptrdiff_t>(index)...};
    return block_[offset_of(at)];
  }
  /// The same, checked: throws out_of_range for an index outside the tile and its ghosts.
  template <std::integral... I>
  requires(sizeof...(I) == N) [[nodiscard]] T& at(I... index) const {
    const std::array<std::ptrdiff_t, N> at{static_cast<std::ptrdiff_t>(index)...};
    for (std::size_t d = 0; d < N; ++d) {
      const auto h = static_cast<std::ptrdiff_t>(halos_[d]);
      if (at[d] < -h || at[d] >= static_cast<std::ptrdiff_t>(extents_[d]) + h) {
        throw out_of_range("ndarray_view::at: index " + std::to_string(at[d]) + " in dimension " +
                           std::to_string(d) + " is outside the tile and its ghosts [" +
                           std::to_string(-h) + ", " +
                           std::to_string(static_cast<std::ptrdiff_t>(extents_[d]) + h) + ")");
      }
    }
    return block_[offset_of(at)];
  }
  /// Element (0, ..., 0), or null for an empty tile.
  [[nodiscard]] T* data() const noexcept {
    return size() == 0 ? nullptr : block_.data() + offset_of({});
  }
  /// Elements this image owns along d, ghosts not counted.
  [[nodiscard]] std::size_t extent(std::size_t d) const noexcept { return extents_[d]; }
  [[nodiscard]] const std::array<std::size_t, N>& extents() const noexcept { return extents_; }
  /// Elements from one index to the next along d (row-major: stride(N - 1) is 1).
  [[nodiscard]] std::size_t stride(std::size_t d) const noexcept { return strides_[d]; }
  /// Ghost cells on each side along d.
  [[nodiscard]] std::size_t halo(std::size_t d) const noexcept { return halos_[d]; }
  [[nodiscard]] const std::array<std::size_t, N>& halos() const noexcept { return halos_; }
  /// Elements this image owns: the product of the extents.
  [[nodiscard]] std::size_t size() const noexcept {
    std::size_t n = 1;
    for (std::size_t e : extents_) n *= e;
    return n;
  }
  /// The whole tile, ghosts included.
  [[nodiscard]] std::span<T> with_halo() const noexcept { return block_; }

 private:
  [[nodiscard]] std::size_t offset_of(const std::array<std::ptrdiff_t, N>& at) const noexcept {
    std::ptrdiff_t off = 0;
    for (std::size_t d = 0; d < N; ++d) {
      off += (at[d] + static_cast<std::ptrdiff_t>(halos_[d])) *
             static_cast<std::ptrdiff_t>(strides_[d]);
    }
    return static_cast<std::size_t>(off);
  }
  std::span<T> block_;
  std::array<std::size_t, N> extents_{};
  std::array<std::size_t, N> halos_{};
  std::array<std::size_t, N> strides_{};
};

}  // namespace pgas
