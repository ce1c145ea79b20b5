#pragma once
// pgas::ndarray_view: this image's tile of an n-dimensional array, ghost cells included, as a
// plain non-owning view over local memory. What ndarray::local() (and matrix::local(), as
// pgas::tile_view) returns; as a range, it is the tile's own cells in row-major order.

#include <pgas/runtime/error.hpp>

#include <range/v3/range/concepts.hpp>
#include <ranges>

#include <array>
#include <compare>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>

namespace pgas {

/// A tile of N dimensions stored row-major (the last index varies fastest), extent(d) elements
/// along dimension d, surrounded by halo(d) ghost cells on both sides of it. Index (0, ..., 0) is
/// the first element this image owns; ghosts sit at indices -halo(d) .. -1 and extent(d) ..
/// extent(d) + halo(d) - 1. stride(d) is the distance in elements between neighbours along d,
/// ghosts counted. Read-only when T is const. Copying the view copies no elements: it is a view
/// (std::ranges and range-v3 may copy it into their own views).
template <class T, std::size_t N>
class ndarray_view : public std::ranges::view_base, public ranges::view_base {
 public:
  /// Walks the tile's own cells (ghosts skipped) in row-major order. Random access; stepping
  /// by one adds to a pointer, carrying into the next row only at a row's end.
  class iterator {
   public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::remove_cv_t<T>;
    using difference_type = std::ptrdiff_t;
    using reference = T&;
    using pointer = T*;

    iterator() noexcept = default;
    iterator(const ndarray_view& v, difference_type k) noexcept
        : origin_{v.size() == 0 ? nullptr : v.data()}, extents_{v.extents()} {
      for (std::size_t d = 0; d < N; ++d) strides_[d] = static_cast<difference_type>(v.stride(d));
      seek(k);
    }

    reference operator*() const noexcept { return *at_; }
    pointer operator->() const noexcept { return at_; }
    reference operator[](difference_type n) const noexcept { return *(*this + n); }

    iterator& operator++() noexcept {
      ++k_;
      ++at_;
      // Past a row's end: on to the next row (and so on outwards), skipping the ghosts between.
      for (std::size_t d = N - 1; d > 0 && ++index_[d] == extents_[d]; --d) {
        index_[d] = 0;
        at_ += strides_[d - 1] - static_cast<difference_type>(extents_[d]) * strides_[d];
        if (d == 1)
          ++index_[0];
      }
      if constexpr (N == 1)
        ++index_[0];
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    iterator& operator--() noexcept {
      seek(k_ - 1);
      return *this;
    }
    iterator operator--(int) noexcept {
      iterator old = *this;
      --*this;
      return old;
    }
    iterator& operator+=(difference_type n) noexcept {
      seek(k_ + n);
      return *this;
    }
    iterator& operator-=(difference_type n) noexcept { return *this += -n; }
    friend iterator operator+(iterator i, difference_type n) noexcept { return i += n; }
    friend iterator operator+(difference_type n, iterator i) noexcept { return i += n; }
    friend iterator operator-(iterator i, difference_type n) noexcept { return i -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
      return a.k_ - b.k_;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.k_ == b.k_; }
    friend std::strong_ordering operator<=>(const iterator& a, const iterator& b) noexcept {
      return a.k_ <=> b.k_;
    }

   private:
    // Moves to the k-th cell in row-major order (k may be one past the last).
    void seek(difference_type k) noexcept {
      k_ = k;
      at_ = origin_;
      if (origin_ == nullptr)
        return;
      auto rest = static_cast<std::size_t>(k);
      for (std::size_t d = N; d-- > 1;) {
        index_[d] = rest % extents_[d];
        rest /= extents_[d];
      }
      index_[0] = rest;
      for (std::size_t d = 0; d < N; ++d)
        at_ += static_cast<difference_type>(index_[d]) * strides_[d];
    }
    T* origin_ = nullptr;  // cell (0, ..., 0)
    T* at_ = nullptr;
    difference_type k_ = 0;
    std::array<std::size_t, N> index_{};
    std::array<std::size_t, N> extents_{};
    std::array<difference_type, N> strides_{};
  };

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
  /// Element (i, 0) of a 2-D tile; the row's cells follow it contiguously.
  [[nodiscard]] T* row(std::ptrdiff_t i) const noexcept requires(N == 2) {
    return &(*this)(i, std::ptrdiff_t{0});
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
  /// The ghost rows of a 2-D tile, above and below (a matrix has as many ghost columns).
  [[nodiscard]] std::size_t halo() const noexcept requires(N == 2) { return halos_[0]; }
  /// Elements this image owns: the product of the extents.
  [[nodiscard]] std::size_t size() const noexcept {
    std::size_t n = 1;
    for (std::size_t e : extents_) n *= e;
    return n;
  }
  /// The whole tile, ghosts included.
  [[nodiscard]] std::span<T> with_halo() const noexcept { return block_; }
  /// The tile's own cells, row-major, ghosts skipped: what algorithms on an ndarray's local part
  /// walk.
  [[nodiscard]] iterator begin() const noexcept { return iterator(*this, 0); }
  [[nodiscard]] iterator end() const noexcept {
    return iterator(*this, static_cast<std::ptrdiff_t>(size()));
  }

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
