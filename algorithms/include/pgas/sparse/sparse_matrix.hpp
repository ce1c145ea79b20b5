#pragma once
// pgas::sparse_matrix: compressed sparse rows, rows distributed over a team, column indices
// global. Built collectively from entries every image holds for any rows: each entry goes to its
// row's owner through the owner-side engine (batches_to_owners), which then sorts its rows and
// combines repeated (row, col) entries.

#include <pgas/detail/container_core.hpp>
#include <pgas/dist_object.hpp>
#include <pgas/distribution.hpp>
#include <pgas/rpc.hpp>
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/sparse/owner_batches.hpp>
#include <pgas/sparse/random_permutation.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgas {

/// One non-zero: row, column (both global) and value.
template <class T>
struct entry {
  std::size_t row;
  std::size_t col;
  T value;
};

/// What a sparse_matrix makes of entries of one (row, col): their sum, or one of them (a graph's
/// repeated edges).
enum class repeated_entries { sum, keep_one };

template <class T, distribution Dist = block>
class sparse_matrix;

namespace detail {
namespace testing {
/// The largest row or column count whose entries travel compact (32-bit indices); tests lower
/// it to take the other path on small matrices.
inline std::size_t compact_index_limit = UINT32_MAX;
}  // namespace testing

/// usage_error (every image sees the same shape) unless m is square; `who` names the kernel and
/// `what` the matrix ("pgas::bfs", "the adjacency matrix").
template <class M>
void require_square(const char* who, const char* what, const M& m) {
  if (m.rows() != m.cols()) {
    throw usage_error(std::string(who) + ": " + what + " must be square, not " +
                      std::to_string(m.rows()) + " x " + std::to_string(m.cols()));
  }
}
}  // namespace detail

template <class T, distribution Dist>
class sparse_matrix {
  static_assert(std::is_trivially_copyable_v<T>,
                "sparse_matrix values travel to their rows' owners as bytes");

 public:
  using value_type = T;

  /// One local row: its columns, ascending, and their values.
  struct row_view {
    std::span<const std::size_t> cols;
    std::span<const T> values;
  };

  /// Collective over the team in force. `entries`: this image's, for any rows; entries of one
  /// (row, col) are summed (or, with repeated_entries::keep_one, one of them is kept).
  /// out_of_range on every image if any image's entry lies outside the shape; usage_error on
  /// every image if the images disagree on the shape or distribution.
  sparse_matrix(std::size_t rows,
                std::size_t cols,
                std::span<const entry<T>> entries,
                Dist dist = {},
                repeated_entries repeats = repeated_entries::sum)
      : sparse_matrix(current_team(), rows, cols, entries, dist, repeats) {}
  /// Collective over team t: the rows are spread over t's images.
  sparse_matrix(const pgas::team& t,
                std::size_t rows,
                std::size_t cols,
                std::span<const entry<T>> entries,
                Dist dist = {},
                repeated_entries repeats = repeated_entries::sum)
      : team_{t}, me_{t.this_image()}, rows_{rows}, cols_{cols}, dist_{dist.bind(rows, t.size())} {
    runtime::require_environment("pgas::sparse_matrix");
    const long long shape[5] = {static_cast<long long>(rows), static_cast<long long>(cols),
                                static_cast<long long>(dist.kind()),
                                static_cast<long long>(dist.parameter()),
                                static_cast<long long>(sizeof(T))};
    detail::require_same_container("pgas::sparse_matrix", t, shape,
                                   "the shape, the distribution or the value type");
    require_inside(entries);
    gather_and_build(entries, repeats);
    nnz_ = runtime::allreduce(static_cast<unsigned long long>(col_index_.size()),
                              runtime::reduce_op::sum, t.native());
  }

  /// The shape, and the non-zeros over all images (entries of one place counted once). Local.
  [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] std::size_t nnz() const noexcept { return static_cast<std::size_t>(nnz_); }
  /// The image (of team()) that owns row r; out_of_range for r >= rows(). Local.
  [[nodiscard]] std::size_t owner(std::size_t r) const {
    if (r >= rows_)
      runtime::throw_out_of_range("row", r, rows_);
    return dist_.owner(r);
  }
  /// How many rows this image owns, and the global index of its local row k. Local.
  [[nodiscard]] std::size_t local_rows() const noexcept { return dist_.local_size(me_); }
  [[nodiscard]] std::size_t global_row(std::size_t k) const {
    require_local_row(k);
    return dist_.global_index(me_, k);
  }
  /// Local row k's columns (ascending) and values. Local.
  [[nodiscard]] row_view row(std::size_t k) const {
    require_local_row(k);
    const std::size_t from = row_start_[k];
    const std::size_t n = row_start_[k + 1] - from;
    return {std::span<const std::size_t>(col_index_).subspan(from, n),
            std::span<const T>(values_).subspan(from, n)};
  }
  /// This image's non-zeros, in local row order. Local.
  [[nodiscard]] std::size_t local_nnz() const noexcept { return col_index_.size(); }
  /// The team the rows are spread over. Local.
  [[nodiscard]] const pgas::team& team() const noexcept { return team_; }
  /// The distribution of the rows, bound to rows() and the team's size. Local.
  [[nodiscard]] const Dist& distribution() const noexcept { return dist_; }

 private:
  // Bounded by the row starts (one per local row, and one past the last), not local_rows():
  // the distribution's arithmetic is a division per call, in every kernel's inner loop.
  void require_local_row(std::size_t k) const {
    if (k + 1 >= row_start_.size())
      runtime::throw_out_of_range("local row", k, local_rows());
  }
  // Every image's entries inside the shape, or out_of_range on every image.
  void require_inside(std::span<const entry<T>> entries) const {
    std::optional<std::string> bad;
    for (const entry<T>& e : entries) {
      if (e.row >= rows_ || e.col >= cols_) {
        bad = "pgas::sparse_matrix: entry (" + std::to_string(e.row) + ", " +
              std::to_string(e.col) + ") on image " + std::to_string(me_) + " is outside the " +
              std::to_string(rows_) + " x " + std::to_string(cols_) + " shape";
        break;
      }
    }
    if (const auto failed = runtime::first_failure(bad, team_.native()))
      throw out_of_range(*failed);
  }

  // An entry as it travels when both indices fit 32 bits: a third less to move for doubles.
  struct compact_entry {
    std::uint32_t row;
    std::uint32_t col;
    T value;
  };
  // Each batch as it came: one vector apiece, so that nothing is copied again as a single
  // vector grows.
  template <class Item>
  using batches = std::vector<std::vector<Item>>;
  template <class Item>
  static void keep(batches<Item>& to, std::size_t, std::span<const Item> got) {
    to.emplace_back(got.begin(), got.end());
  }

  // Sends every entry to its row's owner through the engine, compact where the shape allows;
  // this image's own stay here. Lays out, after the team's sync point, this image's rows.
  void gather_and_build(std::span<const entry<T>> entries, repeated_entries repeats) {
    if (rows_ <= detail::testing::compact_index_limit &&
        cols_ <= detail::testing::compact_index_limit) {
      gather_and_build_as<compact_entry>(entries, repeats, [](const entry<T>& e) {
        return compact_entry{static_cast<std::uint32_t>(e.row), static_cast<std::uint32_t>(e.col),
                             e.value};
      });
    } else {
      gather_and_build_as<entry<T>>(entries, repeats, [](const entry<T>& e) { return e; });
    }
  }
  template <class Item, class Travelling>
  void gather_and_build_as(std::span<const entry<T>> entries,
                           repeated_entries repeats,
                           Travelling as_item) {
    batches<Item> received;
    {
      detail::batches_to_owners<Item, batches<Item>, &keep<Item>> to_owners(team_, received);
      for (const entry<T>& e : entries) to_owners.push(dist_.owner(e.row), as_item(e));
      to_owners.deliver();
    }
    build_rows(std::move(received), repeats);
  }

  // Lays out the local rows: entries placed by row (a counting pass, in the order they came),
  // each row's sorted by column, repeats combined. Work proportional to the entries.
  template <class Item>
  void build_rows(batches<Item> received, repeated_entries repeats) {
    const std::size_t rows = local_rows();
    std::vector<std::size_t> start(rows + 1, 0);
    for (const auto& batch : received) {
      for (const Item& e : batch) ++start[dist_.local_offset(e.row) + 1];
    }
    for (std::size_t k = 0; k < rows; ++k) start[k + 1] += start[k];
    std::vector<std::pair<std::size_t, T>> placed(start[rows]);
    {
      std::vector<std::size_t> next(start.begin(), start.end() - 1);
      for (auto& batch : received) {
        for (const Item& e : batch) placed[next[dist_.local_offset(e.row)]++] = {e.col, e.value};
        batch = {};
      }
    }
    received = {};
    row_start_.assign(rows + 1, 0);
    col_index_.reserve(placed.size());
    values_.reserve(placed.size());
    const auto by_column = [](const auto& a, const auto& b) { return a.first < b.first; };
    for (std::size_t k = 0; k < rows; ++k) {
      const auto first = placed.begin() + static_cast<std::ptrdiff_t>(start[k]);
      const auto last = placed.begin() + static_cast<std::ptrdiff_t>(start[k + 1]);
      // Stable: of repeats kept once, the one that came first. Most rows are short: insertion
      // sort needs no buffer (std::stable_sort allocates one per call).
      if (last - first <= 32) {
        for (auto it = first + (first != last ? 1 : 0); it < last; ++it) {
          auto value = std::move(*it);
          auto hole = it;
          for (; hole != first && value.first < (hole - 1)->first; --hole)
            *hole = std::move(*(hole - 1));
          *hole = std::move(value);
        }
      } else {
        std::stable_sort(first, last, by_column);
      }
      for (auto it = first; it != last;) {
        T sum = it->second;
        auto next = it + 1;
        for (; next != last && next->first == it->first; ++next) {
          if (repeats == repeated_entries::sum)
            sum = static_cast<T>(sum + next->second);
        }
        col_index_.push_back(it->first);
        values_.push_back(sum);
        it = next;
      }
      row_start_[k + 1] = col_index_.size();
    }
  }

  pgas::team team_;
  std::size_t me_;
  std::size_t rows_;
  std::size_t cols_;
  Dist dist_;
  unsigned long long nnz_ = 0;
  std::vector<std::size_t> row_start_;  // local row k's entries are [row_start_[k], [k + 1])
  std::vector<std::size_t> col_index_;
  std::vector<T> values_;
};

namespace detail {
// Digests of where a matrix's entries lie, to check in one pass and one sum that a matrix is
// another's transpose, or its own (symmetric). Each entry adds place_term(key of its row, key of
// its column), the keys mixed(row) and mixed(col); the term is not symmetric in the two, so the
// sum over a matrix equals the sum over its transpose with the keys swapped, and differs from
// any other matrix's but for a chance of about 2^-64.
[[nodiscard]] inline std::uint64_t place_term(std::uint64_t row_key,
                                              std::uint64_t col_key) noexcept {
  return row_key * (std::rotl(col_key, 29) | 1U);
}
// This image's part of the digest of m, with every entry's row and column swapped if
// `transposed`.
template <class T, distribution Dist>
[[nodiscard]] std::uint64_t local_places_digest(const sparse_matrix<T, Dist>& m, bool transposed) {
  std::uint64_t sum = 0;
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const std::uint64_t r = mixed(m.global_row(k));
    for (const std::uint64_t c : m.row(k).cols)
      sum += transposed ? place_term(mixed(c), r) : place_term(r, mixed(c));
  }
  return sum;
}
// Whether two digests' parts sum to the same over the team: one allreduce of both; the same
// answer on every image.
[[nodiscard]] inline bool digests_agree(std::uint64_t mine_a, std::uint64_t mine_b, const team& t) {
  std::uint64_t both[2] = {mine_a, mine_b};
  runtime::reduce_in_place(std::span<std::uint64_t>(both), runtime::reduce_op::sum, -1, t.native());
  return both[0] == both[1];
}
}  // namespace detail

}  // namespace pgas
