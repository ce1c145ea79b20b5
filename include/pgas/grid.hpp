#pragma once
// pgas::grid: how the images of a team are arranged for an n-dimensional array, one extent per
// dimension, images numbered row-major over it (as MPI's Cartesian topologies number them).

#include <array>
#include <cstddef>

namespace pgas {

/// The extents of a process grid of N dimensions. `pgas::grid({2, 1})`: two images along the
/// first dimension, one along the second. A grid of all zeros (the default) means "as square as
/// the team allows" (MPI_Dims_create), decided when an array is made.
template <std::size_t N>
class grid {
 public:
  grid() noexcept = default;
  explicit grid(const std::array<std::size_t, N>& extents) noexcept : extents_{extents} {}
  /// From a braced list, which fixes N: `pgas::grid({2, 2})`.
  explicit grid(const std::size_t (&extents)[N]) noexcept {
    for (std::size_t d = 0; d < N; ++d) extents_[d] = extents[d];
  }

  [[nodiscard]] std::size_t extent(std::size_t d) const noexcept { return extents_[d]; }
  [[nodiscard]] const std::array<std::size_t, N>& extents() const noexcept { return extents_; }
  /// True for the default grid, which the array chooses.
  [[nodiscard]] bool unspecified() const noexcept {
    for (std::size_t e : extents_) {
      if (e != 0)
        return false;
    }
    return true;
  }
  /// Images in the grid: the product of the extents.
  [[nodiscard]] std::size_t images() const noexcept {
    std::size_t p = 1;
    for (std::size_t e : extents_) p *= e;
    return p;
  }
  /// The grid coordinates of image `img` (row-major: the last dimension varies fastest).
  [[nodiscard]] std::array<std::size_t, N> coordinates(std::size_t img) const noexcept {
    std::array<std::size_t, N> c{};
    for (std::size_t d = N; d-- > 0;) {
      c[d] = img % extents_[d];
      img /= extents_[d];
    }
    return c;
  }
  /// The image at grid coordinates c.
  [[nodiscard]] std::size_t image_at(const std::array<std::size_t, N>& c) const noexcept {
    std::size_t img = 0;
    for (std::size_t d = 0; d < N; ++d) img = img * extents_[d] + c[d];
    return img;
  }
  friend bool operator==(const grid&, const grid&) noexcept = default;

 private:
  std::array<std::size_t, N> extents_{};
};

template <std::size_t N>
grid(const std::size_t (&)[N]) -> grid<N>;

}  // namespace pgas
