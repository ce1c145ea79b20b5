#pragma once
// The histogram kernel's updates: image img's n random indices into a table, the same on every
// image that regenerates them (so each can recount independently). Shared by the histogram
// example and benchmark.

#include <cstddef>
#include <random>
#include <vector>

namespace bale {

inline std::vector<std::size_t> updates_of(std::size_t img, std::size_t n, std::size_t table) {
  std::mt19937_64 gen(0x5eed + img);
  std::vector<std::size_t> out(n);
  for (auto& k : out) k = gen() % table;
  return out;
}

}  // namespace bale
