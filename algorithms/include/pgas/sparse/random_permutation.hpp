#pragma once
// pgas::random_permutation: a uniformly random permutation of 0..n-1 that depends on the seed
// only, never on the image count: every index gets a 64-bit key from the seed and itself alone,
// and the indices sorted by key (index breaking ties) are the permutation.

#include <pgas/algorithms/sort.hpp>
#include <pgas/array.hpp>

#include <cstddef>
#include <cstdint>

namespace pgas {

namespace detail {
// SplitMix64's output function (Steele, Lea and Flood 2014): keys of consecutive indices are
// independent-looking 64-bit values.
[[nodiscard]] inline std::uint64_t mixed(std::uint64_t v) noexcept {
  v += 0x9e3779b97f4a7c15ULL;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  return v ^ (v >> 31);
}
struct keyed_index {
  std::uint64_t key;
  std::uint64_t index;
  friend bool operator<(const keyed_index& a, const keyed_index& b) noexcept {
    return a.key != b.key ? a.key < b.key : a.index < b.index;
  }
};
}  // namespace detail

/// A uniformly random permutation of 0..n-1, block distributed over the team in force; the
/// same seed gives the same permutation at any image count. Collective.
[[nodiscard]] inline pgas::array<std::size_t> random_permutation(std::size_t n,
                                                                 std::uint64_t seed) {
  pgas::array<detail::keyed_index> keyed(n);
  for (std::size_t k = 0; k < keyed.local().size(); ++k) {
    const std::uint64_t i = keyed.global_index(k);
    keyed.local()[k] = {detail::mixed(detail::mixed(seed) ^ i), i};
  }
  pgas::sort(keyed);
  pgas::array<std::size_t> out(n);
  // Both block distributed over the same team: each image's parts line up.
  for (std::size_t k = 0; k < out.local().size(); ++k)
    out.local()[k] = static_cast<std::size_t>(keyed.local()[k].index);
  out.sync();
  return out;
}

}  // namespace pgas
