#pragma once
// pgas::detail::column_values: the values a distributed array holds at the columns a sparse
// matrix's local rows name — each column read once (one gather: a request per owner), then
// found again for every non-zero. Where the columns named are dense in their range (the usual
// case: rows spread over all columns) a table over the range finds them in one load, and no
// sort is needed; otherwise the distinct columns are sorted and searched.

#include <pgas/transfers.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace pgas::detail {

template <class V>
class column_values {
 public:
  /// Reads source[c] for every column c that m's local rows name. Local; blocks.
  template <class Matrix, class Array>
  column_values(const Matrix& m, const Array& source) {
    std::size_t low = std::numeric_limits<std::size_t>::max();
    std::size_t high = 0;
    for (std::size_t k = 0; k < m.local_rows(); ++k) {
      const auto cols = m.row(k).cols;
      if (!cols.empty()) {
        low = std::min(low, cols.front());
        high = std::max(high, cols.back());
      }
    }
    std::vector<std::size_t> named;
    if (low <= high && high - low < 4 * m.local_nnz()) {
      // Dense: mark the columns named, list them in order, keep where each went.
      first_ = low;
      slot_.assign(high - low + 1, absent);
      for (std::size_t k = 0; k < m.local_rows(); ++k) {
        for (const std::size_t c : m.row(k).cols) slot_[c - low] = 0;
      }
      for (std::size_t c = 0; c < slot_.size(); ++c) {
        if (slot_[c] == 0) {
          slot_[c] = named.size();
          named.push_back(low + c);
        }
      }
    } else {
      for (std::size_t k = 0; k < m.local_rows(); ++k) {
        const auto cols = m.row(k).cols;
        named.insert(named.end(), cols.begin(), cols.end());
      }
      std::sort(named.begin(), named.end());
      named.erase(std::unique(named.begin(), named.end()), named.end());
      sorted_ = named;
    }
    values_.resize(named.size());
    gather(source, std::span<const std::size_t>(named), std::span<V>(values_));
  }

  /// source[col], for a column the local rows name. Local.
  [[nodiscard]] const V& operator[](std::size_t col) const {
    if (!slot_.empty())
      return values_[slot_[col - first_]];
    const auto at = std::lower_bound(sorted_.begin(), sorted_.end(), col) - sorted_.begin();
    return values_[static_cast<std::size_t>(at)];
  }

  /// Calls f(value_of), value_of(col) being (*this)[col] with the choice between the table and
  /// the search made once: a kernel's loop over every non-zero pays no branch per non-zero.
  template <class F>
  void with_lookup(F&& f) const {
    if (!slot_.empty()) {
      f([slot = slot_.data(), values = values_.data(),
         first = first_](std::size_t col) -> const V& { return values[slot[col - first]]; });
    } else {
      f([this](std::size_t col) -> const V& { return (*this)[col]; });
    }
  }

 private:
  static constexpr std::size_t absent = std::numeric_limits<std::size_t>::max();
  std::size_t first_ = 0;
  std::vector<std::size_t> slot_;    // dense: column - first_ -> index into values_
  std::vector<std::size_t> sorted_;  // sparse: the distinct columns, ascending
  std::vector<V> values_;
};

}  // namespace pgas::detail
