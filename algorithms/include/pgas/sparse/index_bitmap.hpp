#pragma once
// pgas::detail::index_bitmap: a set of indices below a bound, one bit each, taken out in
// increasing order. What BFS's frontier and triangle counting's distinct columns need: marking
// is one store, and reading them back in order one pass over bound / 64 words, where keeping
// them in a list costs a sort (or, unsorted, a cache miss per row when they are used).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pgas::detail {

class index_bitmap {
 public:
  explicit index_bitmap(std::size_t bound) : words_((bound + 63) / 64, 0) {}
  /// Adds i (below the bound) to the set.
  void mark(std::size_t i) noexcept { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  /// Replaces `out` with the marked indices, smallest first, and empties the set.
  void take(std::vector<std::size_t>& out) {
    out.clear();
    for (std::size_t w = 0; w < words_.size(); ++w) {
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        out.push_back(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      words_[w] = 0;
    }
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace pgas::detail
