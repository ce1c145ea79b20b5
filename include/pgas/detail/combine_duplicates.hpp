#pragma once
// Duplicate indices of one operation combined into one: MPI allows no target element twice in
// one put or accumulate.

#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/reduce_op.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pgas::detail {

// Makes each index appear once, in place: the updates of one index are combined with op in list
// order (replace: the later value wins), kept where the index first appears. An accumulate's or
// put's target may not name an element twice in one operation. Open addressing, so the cost
// grows with the updates, not with a sort.
template <class T>
void combine_duplicates(std::vector<std::size_t>& indices,
                        std::vector<T>& values,
                        runtime::reduce_op op) {
  constexpr std::size_t empty = SIZE_MAX;
  std::size_t slots = 16;
  while (slots < 2 * indices.size()) slots *= 2;
  std::vector<std::size_t> table(slots, empty);  // slot -> kept position
  std::size_t kept = 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t index = indices[k];
    std::size_t s = (index * 0x9e3779b97f4a7c15ULL) & (slots - 1);
    while (table[s] != empty && indices[table[s]] != index) s = (s + 1) & (slots - 1);
    if (table[s] == empty) {
      table[s] = kept;
      indices[kept] = index;
      values[kept] = values[k];
      ++kept;
    } else {
      values[table[s]] = runtime::combine(op, values[table[s]], values[k]);
    }
  }
  indices.resize(kept);
  values.resize(kept);
}

}  // namespace pgas::detail
