#pragma once
// pgas::transpose: b = aᵀ (or b = b op aᵀ) for two 2-D arrays on any grids. Each image fills its
// own tile of b: the part of a it needs is read straight from the owners' memory where this
// process maps it (its own tile, same-node peers), or fetched with one get per owning tile
// otherwise, and transposed into place in cache-sized blocks.

#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/patches.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/sync.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace pgas {

namespace detail {

// Elements a transpose sweeps between two calls of its `between`: some 0.1 ms of work, so that
// a get waiting on this image is answered within a fraction of a block's sweep, while the calls
// cost nothing beside the sweep.
inline constexpr std::size_t transposed_between_calls = std::size_t{1} << 16;

// to(i, j) = to(i, j) op from(j, i) for i < rows, j < cols, with rows `to_stride` and
// `from_stride` elements apart; in square blocks so that both sides stay in cache. Calls
// between() after every transposed_between_calls elements or so.
template <class T, class Op, class Between>
void transpose_block(T* to,
                     std::size_t to_stride,
                     const T* from,
                     std::size_t from_stride,
                     std::size_t rows,
                     std::size_t cols,
                     Op op,
                     Between between) {
  constexpr std::size_t edge = 32;
  std::size_t since_call = 0;
  for (std::size_t i0 = 0; i0 < rows; i0 += edge) {
    const std::size_t i1 = std::min(rows, i0 + edge);
    since_call += (i1 - i0) * cols;
    if (since_call >= transposed_between_calls) {
      since_call = 0;
      between();
    }
    for (std::size_t j0 = 0; j0 < cols; j0 += edge) {
      const std::size_t j1 = std::min(cols, j0 + edge);
      for (std::size_t i = i0; i < i1; ++i) {
        T* out = to + i * to_stride;
        const T* in = from + i;
        for (std::size_t j = j0; j < j1; ++j) out[j] = op(out[j], in[j * from_stride]);
      }
    }
  }
}

template <class T, class Op>
void transpose_into_tile(ndarray<T, 2>& b, const ndarray<T, 2>& a, Op op) {
  const ndarray_view<T, 2> mine = b.local();
  if (mine.size() == 0)
    return;
  const auto origin = b.local_origin();
  // b's rows [r0, r1) and columns [c0, c1) come from a's rows [c0, c1) and columns [r0, r1).
  const std::size_t r0 = origin[0];
  const std::size_t r1 = r0 + mine.extent(0);
  const std::size_t c0 = origin[1];
  const std::size_t c1 = c0 + mine.extent(1);
  const tile_layout<2>& from = a.tiles();
  runtime::scratch_vector<T> fetched;
  // Blocks read through MPI first, then those in this process's memory: between nodes a get is
  // answered only while its owner is inside MPI, so an image transposing its own block first
  // would keep the others' gets waiting until it is done, and then wait for theirs in turn.
  // Fetching first, every image answers the others' gets while waiting for its own.
  // And where MPI answers a get only inside a call of its owner — between nodes, and under
  // MPICH's UCX even on one node without shared memory —, an image whose own gets ended first
  // would keep another's waiting through the whole of its sweeps (MPICH through MPI: a block's
  // get of 6 ms took 30, bench/README): so the sweeps make progress every so often, which
  // answers such gets (and runs arrived handlers, as any pgas call may).
  const auto answer_others = [] { (void)runtime::messages::progress(); };
  for (const bool in_memory_pass : {false, true}) {
    for (std::size_t ta = from.split(0).owner(c0); ta <= from.split(0).owner(c1 - 1); ++ta) {
      const std::size_t ai0 = std::max(c0, from.split(0).first_of(ta));
      const std::size_t ai1 =
          std::min(c1, from.split(0).first_of(ta) + from.split(0).local_size(ta));
      for (std::size_t tb = from.split(1).owner(r0); tb <= from.split(1).owner(r1 - 1); ++tb) {
        const std::size_t aj0 = std::max(r0, from.split(1).first_of(tb));
        const std::size_t aj1 =
            std::min(r1, from.split(1).first_of(tb) + from.split(1).local_size(tb));
        if (a.element({ai0, aj0}).is_local() != in_memory_pass)
          continue;
        // a's part [ai0, ai1) x [aj0, aj1) lands in b's rows aj and columns ai.
        T* to = &mine(static_cast<std::ptrdiff_t>(aj0 - r0), static_cast<std::ptrdiff_t>(ai0 - c0));
        const std::size_t rows = aj1 - aj0;
        const std::size_t cols = ai1 - ai0;
        // a's block has `cols` of a's rows (from ai0) and `rows` of its columns (from aj0).
        with_tile_block(a, {ai0, aj0}, cols, rows, fetched, "pgas::transpose",
                        [&](const T* there, std::size_t stride) {
                          transpose_block(to, mine.stride(0), there, stride, rows, cols, op,
                                          answer_others);
                        });
      }
    }
  }
}

template <class T>
void require_transposable(const char* what, const ndarray<T, 2>& b, const ndarray<T, 2>& a) {
  if (b.extent(0) != a.extent(1) || b.extent(1) != a.extent(0)) {
    throw usage_error(std::string(what) + ": b is " + std::to_string(b.extent(0)) + " x " +
                      std::to_string(b.extent(1)) + " but a is " + std::to_string(a.extent(0)) +
                      " x " + std::to_string(a.extent(1)) + "; b must have a's extents swapped");
  }
  if (b.team().native() != a.team().native()) {
    throw usage_error(std::string(what) + ": a and b live on different teams");
  }
  if (same_container(b, a))
    throw usage_error(std::string(what) + ": b and a are the same array");
}

}  // namespace detail

/// b = aᵀ: b(i, j) = a(j, i). a and b may lie on different grids (and differ from each other's
/// in every way but the swapped extents and the team). Collective over their team; every
/// image's writes to a before the call are seen, and a may change again once it returns. Each
/// image writes only its own tile of b. Throws usage_error on every image, before anything is
/// written, for mismatched shapes, arrays on different teams or b being a.
template <class T>
void transpose(ndarray<T, 2>& b, const ndarray<T, 2>& a) {
  detail::require_transposable("pgas::transpose", b, a);
  sync_all(a.team());
  detail::transpose_into_tile(b, a, [](const T&, const T& x) { return x; });
  sync_all(a.team());
}

/// b = b op aᵀ, element by element (PRK's Transpose does B += Aᵀ: reduce_op::sum). As above.
template <class T>
void transpose(ndarray<T, 2>& b, const ndarray<T, 2>& a, reduce_op op) {
  detail::require_transposable("pgas::transpose", b, a);
  runtime::require_op_defined<T>(op);
  sync_all(a.team());
  if (op == reduce_op::sum) {
    detail::transpose_into_tile(b, a, [](const T& old, const T& x) { return old + x; });
  } else {
    detail::transpose_into_tile(
        b, a, [op](const T& old, const T& x) { return runtime::combine(op, old, x); });
  }
  sync_all(a.team());
}

}  // namespace pgas
