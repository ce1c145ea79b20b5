#pragma once
// pgas::views::rows: a matrix (a 2-D ndarray on a P x 1 grid) as a distributed range of its
// rows, each a std::span over the row's interior columns. Rows are block-distributed, so the
// view is aligned with a block-distributed array of one element per row.

#include <pgas/distributed_range.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/runtime/error.hpp>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

#include <cstddef>
#include <span>

namespace pgas::views {

/// Row i of the matrix is element i. Local, lazy; the spans write into the matrix.
template <class T>
class rows_view {
 public:
  /// usage_error unless m's grid splits rows only (a matrix's P x 1): other tiles cut rows.
  explicit rows_view(ndarray<T, 2>& m) : m_{&m} {
    if (m.grid().extent(1) != 1) {
      throw usage_error(
          "pgas::views::rows: the array's grid splits its columns too; rows are "
          "whole only on a P x 1 grid (pgas::matrix)");
    }
  }
  using value_type = std::span<T>;
  [[nodiscard]] std::size_t size() const { return m_->extent(0); }
  [[nodiscard]] auto local() const {
    const ndarray_view<T, 2> tile = m_->local();
    return ranges::views::transform(
        ranges::views::iota(std::size_t{0}, tile.extent(0)), [tile](std::size_t k) {
          return std::span<T>(tile.row(static_cast<std::ptrdiff_t>(k)), tile.extent(1));
        });
  }
  [[nodiscard]] std::size_t global_index(std::size_t k) const { return m_->local_origin()[0] + k; }
  /// The layout of a block-distributed array of rows() elements.
  [[nodiscard]] pgas::layout layout() const {
    return {distribution_kind::block, 0, 0, size(), 0, size(), m_->team().native()};
  }

 private:
  ndarray<T, 2>* m_;
};

/// rows(m) or m | rows: the rows of m as a distributed range. Local, lazy.
struct rows_fn {
  template <class T>
  [[nodiscard]] rows_view<T> operator()(ndarray<T, 2>& m) const {
    return rows_view<T>(m);
  }
  template <class T>
  [[nodiscard]] friend rows_view<T> operator|(ndarray<T, 2>& m, const rows_fn& f) {
    return f(m);
  }
};
inline constexpr rows_fn rows{};

}  // namespace pgas::views
