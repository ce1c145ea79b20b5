#pragma once
// The sort each image runs on its own part: LSD radix sort for integers in ascending order
// (linear time, which is where a distributed sort gains most), std::sort otherwise.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace pgas::detail {

template <class T, class Compare>
inline constexpr bool radix_sortable =
    std::integral<T> && !std::is_same_v<T, bool> &&
    (std::is_same_v<Compare, std::less<>> || std::is_same_v<Compare, std::less<T>>);

/// Sorts v ascending by 11-bit digits, least significant first; signed values have their sign
/// bit flipped so that the unsigned order of the keys is the signed order of the values.
template <std::integral T, class Allocator>
void radix_sort(std::vector<T, Allocator>& v) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned bits = 11;
  constexpr std::size_t buckets = std::size_t{1} << bits;
  constexpr unsigned width = sizeof(T) * 8;
  const auto key = [](T x) {
    U u = static_cast<U>(x);
    if constexpr (std::is_signed_v<T>)
      u ^= U{1} << (width - 1);
    return u;
  };
  // Of v's allocator: on the kept scratch (sort.hpp), the second buffer neither faults in nor
  // is cleared again on every call.
  std::vector<T, Allocator> scratch(v.size());
  for (unsigned shift = 0; shift < width; shift += bits) {
    std::array<std::size_t, buckets> count{};
    for (T x : v) ++count[(key(x) >> shift) & (buckets - 1)];
    // A digit every value shares moves nothing: skip the pass.
    if (std::any_of(count.begin(), count.end(), [&](std::size_t c) { return c == v.size(); }))
      continue;
    std::size_t sum = 0;
    for (auto& c : count) {
      const std::size_t here = c;
      c = sum;
      sum += here;
    }
    for (T x : v) scratch[count[(key(x) >> shift) & (buckets - 1)]++] = x;
    v.swap(scratch);
  }
}

/// Sorts v by comp.
template <class T, class Allocator, class Compare>
void local_sort(std::vector<T, Allocator>& v, Compare comp) {
  if constexpr (radix_sortable<T, Compare>) {
    radix_sort(v);
  } else {
    std::sort(v.begin(), v.end(), comp);
  }
}

}  // namespace pgas::detail
