#pragma once
// pgas::bfs (Graph500's kernel 2): a breadth-first search tree as an array of parents, level by
// level. Each image walks its frontier's rows and hands every neighbour (v, u) to v's owner in
// batches through the engine; the owner, applying a batch, adopts u as v's parent if v has none
// yet and marks v in its next frontier. One round (a sync point and a sum) per level.
//
// The frontier is a bitmap of local rows, walked in increasing order as Graph500's reference
// codes walk theirs: rows reached in the order batches arrive are scattered over the matrix,
// and reading their row starts and columns in that order misses the cache on nearly every row
// (bench_sparse's Erdős–Rényi graph, 10^5 rows per image through MPI: 41 ms per search in
// arrival order, 16 ms in row order).

#include <pgas/array.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/sparse/index_bitmap.hpp>
#include <pgas/sparse/owner_batches.hpp>
#include <pgas/sparse/row_values.hpp>
#include <pgas/sparse/sparse_matrix.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pgas {

namespace detail {

struct visit {
  std::size_t vertex;
  std::size_t parent;
};

template <class Dist>
struct bfs_state {
  Dist rows;                         // the matrix's distribution, bound
  std::vector<std::int64_t> parent;  // of this image's rows, -1 until reached
  index_bitmap next;                 // local rows reached in this level
};

template <class Dist>
void adopt(bfs_state<Dist>& s, std::size_t, std::span<const visit> got) {
  for (const visit& v : got) {
    const std::size_t k = s.rows.local_offset(v.vertex);
    if (s.parent[k] < 0) {
      s.parent[k] = static_cast<std::int64_t>(v.parent);
      s.next.mark(k);
    }
  }
}

}  // namespace detail

/// The parents of a breadth-first search tree of the graph whose adjacency matrix is m (square;
/// a stored (u, v) is an edge from u to v) from `source`: parent[source] == source, -1 where
/// unreached. The array is block distributed over m's team. out_of_range on every image for a
/// source past the last row, usage_error for a matrix that is not square. Collective over m's
/// team.
template <class T, distribution Dist>
[[nodiscard]] pgas::array<std::int64_t> bfs(const sparse_matrix<T, Dist>& m, std::size_t source) {
  detail::require_square("pgas::bfs", "the adjacency matrix", m);
  if (source >= m.rows())
    runtime::throw_out_of_range("pgas::bfs: source", source, m.rows());
  detail::bfs_state<Dist> s{m.distribution(), std::vector<std::int64_t>(m.local_rows(), -1),
                            detail::index_bitmap(m.local_rows())};
  if (m.owner(source) == m.team().this_image()) {
    const std::size_t k = s.rows.local_offset(source);
    s.parent[k] = static_cast<std::int64_t>(source);
    s.next.mark(k);
  }
  {
    detail::batches_to_owners<detail::visit, detail::bfs_state<Dist>, &detail::adopt<Dist>> visits(
        m.team(), s);
    const std::size_t me = m.team().this_image();
    std::vector<std::size_t> frontier;
    // The frontier is taken before the sum: an image that has the sum first may send its next
    // level's batches while this one still waits in it, and those belong to the level after.
    s.next.take(frontier);
    while (runtime::allreduce(static_cast<unsigned long long>(frontier.size()),
                              runtime::reduce_op::sum, m.team().native()) != 0) {
      for (const std::size_t k : frontier) {
        const std::size_t u = m.global_row(k);
        for (const std::size_t v : m.row(k).cols) {
          const std::size_t owner = m.owner(v);
          // A row of this image reached already needs no batch.
          if (owner == me && s.parent[s.rows.local_offset(v)] >= 0)
            continue;
          visits.push(owner, {v, u});
        }
      }
      visits.deliver();
      s.next.take(frontier);
    }
  }
  pgas::array<std::int64_t> parent(m.team(), m.rows());
  detail::store_row_values(m, parent, std::span<const std::int64_t>(s.parent));
  parent.sync();
  return parent;
}

}  // namespace pgas
