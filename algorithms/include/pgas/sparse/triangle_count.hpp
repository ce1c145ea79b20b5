#pragma once
// pgas::triangle_count (bale's triangles): the triangles of an undirected graph, each counted
// once: with every edge directed from the vertex of larger key to the smaller (a fixed
// scramble of the vertex numbers, so that each row keeps about half its entries), the sum over
// directed edges (i, j) of |L(i, :) ∩ L(j, :)|, L(v, :) the neighbours v points to. Each image asks
// the owners of the rows j its rows name for their lower parts (one round of requests, one of
// replies, both batches to owners through the engine) and intersects sorted lists locally.

#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/sparse/index_bitmap.hpp>
#include <pgas/sparse/owner_batches.hpp>
#include <pgas/sparse/random_permutation.hpp>
#include <pgas/sparse/sparse_matrix.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace pgas {

namespace detail {

struct row_request {
  std::size_t row;
  std::size_t image;  // who asks, in the team
};
struct row_entry {
  std::size_t row;
  std::size_t col;
};
struct lower_row_requests {
  std::vector<row_request> asked;
};
// Each batch as it came (one vector apiece: nothing copied again as one vector grows). One
// owner answers a row, in one stretch, columns ascending, and its answers follow the order of
// the requests, which ascend: within a batch rows ascend.
struct lower_row_replies {
  std::vector<std::vector<row_entry>> got;
};
inline void note_requests(lower_row_requests& s, std::size_t, std::span<const row_request> got) {
  s.asked.insert(s.asked.end(), got.begin(), got.end());
}
inline void note_replies(lower_row_replies& s, std::size_t, std::span<const row_entry> got) {
  s.got.emplace_back(got.begin(), got.end());
}

// Visits every reply with the index of its row in `needed` (ascending), walking each batch's
// ascending rows from where its first row lies.
template <class Visit>
void for_each_reply(const lower_row_replies& s,
                    const std::vector<std::size_t>& needed,
                    Visit visit) {
  for (const auto& batch : s.got) {
    if (batch.empty())
      continue;
    auto at = static_cast<std::size_t>(
        std::lower_bound(needed.begin(), needed.end(), batch.front().row) - needed.begin());
    for (const row_entry& e : batch) {
      while (needed[at] != e.row) ++at;
      visit(at, e.col);
    }
  }
}

// The order edges are directed by: a vertex's neighbours "below" it are those of smaller key.
// Keys are a fixed scramble of the vertex numbers (a bijection), so every vertex keeps about half
// its neighbours whatever its number: with rows in blocks, ordering by the number instead would
// leave the last image with most of the work. The places digest uses the same keys.
[[nodiscard]] inline std::uint64_t order_key(std::size_t v) noexcept {
  return mixed(static_cast<std::uint64_t>(v));
}

// The neighbours of every local row below it (in key order), columns ascending, as compressed
// rows; and, from the same pass over the entries, this image's parts of the matrix's places
// digest as stored and transposed (their sums over the team agree for a symmetric matrix).
struct lower_rows {
  std::vector<std::size_t> start{0};
  std::vector<std::size_t> cols;
  std::uint64_t digest_as_stored = 0;
  std::uint64_t digest_transposed = 0;
  [[nodiscard]] std::span<const std::size_t> row(std::size_t k) const {
    return {cols.data() + start[k], start[k + 1] - start[k]};
  }
};
template <class M>
[[nodiscard]] lower_rows lower_rows_of(const M& m) {
  lower_rows l;
  l.start.reserve(m.local_rows() + 1);
  l.cols.reserve(m.local_nnz() / 2);
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const std::uint64_t key = order_key(m.global_row(k));
    for (const std::size_t c : m.row(k).cols) {
      const std::uint64_t c_key = order_key(c);
      l.digest_as_stored += place_term(key, c_key);
      l.digest_transposed += place_term(c_key, key);
      if (c_key < key)
        l.cols.push_back(c);
    }
    l.start.push_back(l.cols.size());
  }
  return l;
}

// The distinct values of `values`, ascending; every value is below `bound`. Where a bitmap of
// `bound` bits has no more words than there are values, the values are marked in it and read
// back in order: a sort of 5·10^5 columns took a quarter of a triangle count's time (bench_sparse's
// graph, one node), the bitmap a pass. Otherwise (a few values of a huge range) they are sorted.
[[nodiscard]] inline std::vector<std::size_t> sorted_distinct(std::span<const std::size_t> values,
                                                              std::size_t bound) {
  std::vector<std::size_t> out;
  if (bound / 64 > values.size()) {
    out.assign(values.begin(), values.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  index_bitmap seen(bound);
  for (const std::size_t v : values) seen.mark(v);
  seen.take(out);
  return out;
}

// Where each of a sorted list of distinct vertices lies in it: a table over their range where
// they are dense in it, a search otherwise; vertices not in the list map to its length.
class positions {
 public:
  explicit positions(const std::vector<std::size_t>& sorted) : sorted_{sorted} {
    if (!sorted.empty() && sorted.back() - sorted.front() < 4 * sorted.size()) {
      first_ = sorted.front();
      table_.assign(sorted.back() - first_ + 1, sorted.size());
      for (std::size_t q = 0; q < sorted.size(); ++q) table_[sorted[q] - first_] = q;
    }
  }
  [[nodiscard]] std::size_t operator()(std::size_t v) const {
    if (!table_.empty())
      return v >= first_ && v - first_ < table_.size() ? table_[v - first_] : sorted_.size();
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), v);
    return it != sorted_.end() && *it == v ? static_cast<std::size_t>(it - sorted_.begin())
                                           : sorted_.size();
  }

 private:
  const std::vector<std::size_t>& sorted_;
  std::size_t first_ = 0;
  std::vector<std::size_t> table_;
};

}  // namespace detail

/// The triangles of the undirected graph whose adjacency matrix is m (square and symmetric:
/// every edge stored both ways, as erdos_renyi, rmat and symmetric Matrix Market files give it;
/// the diagonal is ignored), each counted once. Of each edge one direction is read, chosen by a
/// fixed scramble of the vertex numbers. usage_error on every image for a matrix that is not
/// square or not symmetric (checked by a digest of the entries' places: one pass, one sum).
/// Collective over m's team.
template <class T, distribution Dist>
[[nodiscard]] std::uint64_t triangle_count(const sparse_matrix<T, Dist>& m) {
  detail::require_square("pgas::triangle_count", "the adjacency matrix", m);
  const std::size_t me = m.team().this_image();
  const detail::lower_rows mine = detail::lower_rows_of(m);
  // One direction of each edge is read: a matrix holding one direction only would undercount.
  if (!detail::digests_agree(mine.digest_as_stored, mine.digest_transposed, m.team())) {
    throw usage_error(
        "pgas::triangle_count: the adjacency matrix must be symmetric (every edge stored both "
        "ways)");
  }
  // Round 1: ask each needed row's owner for its lower part, once per row.
  const std::vector<std::size_t> needed = detail::sorted_distinct(mine.cols, m.cols());
  detail::lower_row_requests requests;
  {
    detail::batches_to_owners<detail::row_request, detail::lower_row_requests,
                              &detail::note_requests>
        ask(m.team(), requests);
    for (const std::size_t j : needed) ask.push(m.owner(j), {j, me});
    ask.deliver();
  }
  // Round 2: answer with the rows' lower entries.
  detail::lower_row_replies replies;
  {
    detail::batches_to_owners<detail::row_entry, detail::lower_row_replies, &detail::note_replies>
        answer(m.team(), replies);
    for (const detail::row_request& q : requests.asked) {
      for (const std::size_t c : mine.row(m.distribution().local_offset(q.row)))
        answer.push(q.image, {q.row, c});
    }
    answer.deliver();
  }
  // The fetched rows, as compressed rows in the order of `needed`: a counting pass, then each
  // reply placed where its row's stretch is, as the position in `needed` of its column.
  const detail::positions position_of(needed);
  std::vector<std::size_t> start(needed.size() + 1, 0);
  detail::for_each_reply(replies, needed, [&](std::size_t at, std::size_t) { ++start[at + 1]; });
  for (std::size_t a = 0; a < needed.size(); ++a) start[a + 1] += start[a];
  std::vector<std::size_t> fetched(start.back());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    detail::for_each_reply(replies, needed, [&](std::size_t at, std::size_t col) {
      fetched[next[at]++] = position_of(col);
    });
  }
  replies.got = {};
  // Each edge (i, j) with j below i meets the rows' lower parts: every common k lies below j,
  // so each triangle is found once, at its top vertex and middle one. Row i's part is marked in
  // a bitmap over `needed` (one bit more, never set, for vertices not in it), and row j's is
  // looked up in it: one load per entry, no search.
  std::vector<std::uint64_t> marked(needed.size() / 64 + 1, 0);
  std::vector<std::size_t> li_at;
  std::uint64_t found = 0;
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto li = mine.row(k);
    li_at.clear();
    for (const std::size_t j : li) {
      const std::size_t q = position_of(j);
      li_at.push_back(q);
      marked[q / 64] |= std::uint64_t{1} << (q % 64);
    }
    for (const std::size_t at : li_at) {
      for (std::size_t e = start[at]; e < start[at + 1]; ++e)
        found += (marked[fetched[e] / 64] >> (fetched[e] % 64)) & 1U;
    }
    for (const std::size_t q : li_at) marked[q / 64] = 0;
  }
  return runtime::allreduce(found, runtime::reduce_op::sum, m.team().native());
}

}  // namespace pgas
