#pragma once
// Where the elements of an n-dimensional array live when each dimension is split in balanced
// blocks over one extent of a process grid: which image owns an index, how big each image's
// tile is, and where an element sits in its tile (row-major, ghost cells included). Pure index
// arithmetic, the same on every image.

#include <pgas/distribution.hpp>
#include <pgas/grid.hpp>

#include <array>
#include <cstddef>
#include <utility>

namespace pgas::detail {

template <std::size_t N>
class tile_layout {
 public:
  using index = std::array<std::size_t, N>;

  tile_layout() = default;
  /// `g` must have no zero extent.
  tile_layout(const index& extents, const grid<N>& g, const index& halos)
      : grid_{g}, halos_{halos} {
    for (std::size_t d = 0; d < N; ++d) {
      split_[d] = block{}.bind(extents[d], g.extent(d));
      owners_[d] = 0;
      while (owners_[d] < g.extent(d) && split_[d].local_size(owners_[d]) > 0) ++owners_[d];
    }
  }

  [[nodiscard]] const grid<N>& process_grid() const noexcept { return grid_; }
  [[nodiscard]] std::size_t extent(std::size_t d) const noexcept { return split_[d].size(); }
  [[nodiscard]] index extents() const noexcept {
    index e{};
    for (std::size_t d = 0; d < N; ++d) e[d] = split_[d].size();
    return e;
  }
  [[nodiscard]] const index& halos() const noexcept { return halos_; }
  [[nodiscard]] std::size_t elements() const noexcept {
    std::size_t n = 1;
    for (std::size_t d = 0; d < N; ++d) n *= split_[d].size();
    return n;
  }
  /// Grid positions along d whose tiles hold elements: positions 0 .. owners(d) - 1 (balanced
  /// blocks give the extra elements to the first positions, so empty ones come last).
  [[nodiscard]] std::size_t owners(std::size_t d) const noexcept { return owners_[d]; }

  /// The tile at grid coordinates c: its extents and the global index of its first element.
  [[nodiscard]] index tile_extents(const index& c) const noexcept {
    index e{};
    for (std::size_t d = 0; d < N; ++d) e[d] = split_[d].local_size(c[d]);
    return e;
  }
  [[nodiscard]] index tile_origin(const index& c) const noexcept {
    index o{};
    for (std::size_t d = 0; d < N; ++d) o[d] = split_[d].first_of(c[d]);
    return o;
  }
  /// True when the tile at c holds no element.
  [[nodiscard]] bool empty_tile(const index& c) const noexcept {
    for (std::size_t d = 0; d < N; ++d) {
      if (split_[d].local_size(c[d]) == 0)
        return true;
    }
    return false;
  }
  /// Elements of the tile at c with its ghosts (0 for an empty tile): what its image stores.
  [[nodiscard]] std::size_t stored_elements(const index& c) const noexcept {
    if (empty_tile(c))
      return 0;
    std::size_t n = 1;
    for (std::size_t d = 0; d < N; ++d) n *= split_[d].local_size(c[d]) + 2 * halos_[d];
    return n;
  }
  /// Row-major strides of the tile at c, ghosts counted.
  [[nodiscard]] index strides(const index& c) const noexcept {
    index s{};
    std::size_t step = 1;
    for (std::size_t d = N; d-- > 0;) {
      s[d] = step;
      step *= split_[d].local_size(c[d]) + 2 * halos_[d];
    }
    return s;
  }
  /// Grid coordinates of the tile holding global index i.
  [[nodiscard]] index owner_coordinates(const index& i) const noexcept {
    index c{};
    for (std::size_t d = 0; d < N; ++d) c[d] = split_[d].owner(i[d]);
    return c;
  }
  /// Offset in its tile's storage of the element at tile-local position `local` (which may be
  /// negative down to -halo: a ghost cell), given the tile's strides.
  [[nodiscard]] std::ptrdiff_t offset_in_tile(const std::array<std::ptrdiff_t, N>& local,
                                              const index& strides) const noexcept {
    std::ptrdiff_t off = 0;
    for (std::size_t d = 0; d < N; ++d) {
      off += (local[d] + static_cast<std::ptrdiff_t>(halos_[d])) *
             static_cast<std::ptrdiff_t>(strides[d]);
    }
    return off;
  }
  /// The image owning global index i and the element's offset in that image's storage.
  struct place {
    std::size_t image;
    std::size_t offset;
  };
  [[nodiscard]] place locate(const index& i) const noexcept {
    const index c = owner_coordinates(i);
    const index origin = tile_origin(c);
    std::array<std::ptrdiff_t, N> local{};
    for (std::size_t d = 0; d < N; ++d) local[d] = static_cast<std::ptrdiff_t>(i[d] - origin[d]);
    return {grid_.image_at(c), static_cast<std::size_t>(offset_in_tile(local, strides(c)))};
  }
  /// The split along d, for loops over the tiles a range crosses.
  [[nodiscard]] const block& split(std::size_t d) const noexcept { return split_[d]; }

 private:
  grid<N> grid_;
  std::array<block, N> split_{};
  index halos_{};
  index owners_{};
};

/// Calls f(position) for every position of a box of `sizes`, row-major (the last dimension
/// fastest), over the first M dimensions only: the later ones stay 0. Nothing is called when any
/// size is 0.
template <std::size_t N, std::size_t M = N, class F>
void for_each_index(const std::array<std::size_t, N>& sizes, F f) {
  for (std::size_t d = 0; d < N; ++d) {
    if (sizes[d] == 0)
      return;
  }
  std::array<std::size_t, N> at{};
  while (true) {
    f(std::as_const(at));
    std::size_t d = M;
    while (true) {
      if (d == 0)
        return;
      --d;
      if (++at[d] < sizes[d])
        break;
      at[d] = 0;
    }
  }
}

/// Calls f(position) for every row of a box of `sizes`: every position over all dimensions but
/// the last (each call stands for sizes[N - 1] elements along it).
template <std::size_t N, class F>
void for_each_box_row(const std::array<std::size_t, N>& sizes, F f) {
  for_each_index<N, N - 1>(sizes, f);
}

/// Calls f(offset) for every row of a box of `sizes` in storage of `strides`: the element offset
/// of the row's first element from the box's first corner.
template <std::size_t N, class F>
void for_each_box_row_offset(const std::array<std::size_t, N>& sizes,
                             const std::array<std::size_t, N>& strides,
                             F f) {
  for_each_box_row<N>(sizes, [&](const std::array<std::size_t, N>& at) {
    std::ptrdiff_t row = 0;
    for (std::size_t d = 0; d + 1 < N; ++d) row += static_cast<std::ptrdiff_t>(at[d] * strides[d]);
    f(row);
  });
}

}  // namespace pgas::detail
