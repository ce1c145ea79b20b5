#pragma once
// bale's kernels' random streams: image img's n random indices into a table, the same on every
// image that regenerates them (so each can recount independently), and what the index-gather
// table holds. Shared by the histogram and index_gather examples and benchmarks.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace bale {

inline std::vector<std::size_t> updates_of(std::size_t img, std::size_t n, std::size_t table) {
  std::mt19937_64 gen(0x5eed + img);
  std::vector<std::size_t> out(n);
  for (auto& k : out) k = gen() % table;
  return out;
}

/// What the index-gather table holds at index i: a value no other index holds.
inline std::int64_t table_value(std::size_t i) {
  return -static_cast<std::int64_t>(i) - 1;
}

}  // namespace bale
