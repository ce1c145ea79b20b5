#pragma once
// Many updates `element op= value` applied by this process's processor, in place, on a
// container whose window every image shares (runtime/in_place_updates.hpp says when and why
// that is sound). No grouping per owner and no combining of duplicates: each update is one
// atomic instruction, and the memory accesses of the next ones overlap with it. Whether a
// container's updates go this way is locality.hpp's choice (begin_updates_in_place).

#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/prefetch.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/stats.hpp>

#include <ranges>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace pgas::detail {

/// combine_same_value_in_place goes block by block for tables of at least this many bytes (half
/// the shared cache: the images' updates and other data compete for the rest), in blocks of
/// this many (a quarter of a core's own cache: the updates' own stream passes through it too).
/// From the machine the program runs on (runtime/machine.hpp).
[[nodiscard]] inline std::size_t in_place_blocked_table_bytes() {
  return runtime::machine_caches().shared / 2;
}
[[nodiscard]] inline std::size_t in_place_block_bytes() {
  return runtime::core_cache_block_bytes();
}

/// Applies `*where op= value` for each add(where, value), each update some adds after it was
/// added (as far as in-place updates run best on this machine, runtime/ask_ahead.hpp): its
/// cache line is asked for (prefetched) at once, so the memory accesses of the updates in
/// between overlap. finish(), once, applies the rest. One combiner runs at one distance, a
/// piece of the tuner's trial while it chooses. T must be processor_atomic.
template <class T>
class in_place_combiner {
 public:
  struct slot {
    T* where;
    T value;
  };
  /// The updates in flight. The caller keeps it, apart from the combiner: with the array
  /// inside, the combiner's counts lived in memory and were loaded again after every atomic
  /// update (gups on one node ran 6 % slower); without it they stay in registers.
  using ring = std::array<slot, runtime::ask_ahead_tuner::largest_distance>;

  /// The op must be defined on T (runtime::require_op_defined). `r` is written before it is
  /// read (nothing to clear).
  in_place_combiner(runtime::reduce_op op, ring& r)
      : op_{op},
        tuner_(runtime::ask_ahead_for(runtime::scattered_loop::updates_in_place)),
        piece_(tuner_.begin()),
        ahead_(piece_.distance),
        mask_(ahead_ == 0 ? 0 : ahead_ - 1),
        ring_(r.data()) {}
  /// Always inlined: out of line (as GCC left it in examples/gups) the counts go through memory
  /// on every call, next to an atomic that orders them.
  [[gnu::always_inline]] void add(T* where, const T& value) noexcept {
    if (ahead_ == 0) {
      (void)runtime::fetch_and_combine_in_place(where, value, op_);
      ++added_;
      return;
    }
    slot& s = ring_[added_ & mask_];
    if (added_ >= ahead_)
      (void)runtime::fetch_and_combine_in_place(s.where, s.value, op_);
    runtime::prefetch_for_write(where);
    s = {where, value};
    ++added_;
  }
  void finish() noexcept {
    for (std::size_t k = added_ > ahead_ ? added_ - ahead_ : 0; ahead_ != 0 && k < added_; ++k) {
      const slot& s = ring_[k & mask_];
      (void)runtime::fetch_and_combine_in_place(s.where, s.value, op_);
    }
    runtime::statistics::count_many(&rma_stats::in_place_updates, added_, added_ * sizeof(T));
    tuner_.end(piece_, added_);
    added_ = 0;
  }

 private:
  runtime::reduce_op op_;
  runtime::ask_ahead_tuner& tuner_;
  runtime::ask_ahead_tuner::batch piece_;
  std::size_t ahead_;  // a power of two, or 0
  std::size_t mask_;
  slot* ring_;
  std::size_t added_ = 0;
};

/// Calls body(address) once, with address(i) giving where element i (< size, checked already)
/// lives in this process's memory. With every part mapped, from the distribution (by value, in
/// registers) and the parts' addresses of the container's locked_elements, not through a global
/// pointer per element (bench_gups's aggregator on one node ran about 5 % faster without them).
template <class Elements, class Body>
void with_mapped_addresses(Elements& elements, Body&& body) {
  if constexpr (requires { elements.finder(); }) {
    // A container: its elements, held for the loop.
    const auto locked = elements.finder().lock("an update in place");
    with_mapped_addresses(locked, std::forward<Body>(body));
  } else {
    if constexpr (requires {
                    elements.distribution();
                    elements.mapped();
                  }) {
      if (!elements.mapped().empty()) {
        body([dist = elements.distribution(), parts = elements.mapped().data()](
                 std::size_t i) noexcept { return parts[dist.owner(i)] + dist.local_offset(i); });
        return;
      }
    }
    body([&elements](std::size_t i) { return elements.element(i).local(); });
  }
}

/// Applies `elements[i_u] op= value(u)` for the u-th index i_u of `indices` (any range of
/// integers, checked already), in place. `elements`: a container or its locked_elements, whose
/// in-place updates have begun (locality.hpp).
template <class T, class Elements, class Indices, class Value>
requires runtime::processor_atomic<T>
void combine_in_place(Elements& elements,
                      const Indices& indices,
                      Value value,
                      runtime::reduce_op op) {
  runtime::require_op_defined<T>(op);
  typename in_place_combiner<T>::ring ring;
  in_place_combiner<T> combiner(op, ring);
  with_mapped_addresses(elements, [&](auto address) {
    std::size_t u = 0;
    for (const auto i : indices)
      combiner.add(address(static_cast<std::size_t>(i)), static_cast<T>(value(u++)));
  });
  combiner.finish();
}

/// The same value combined in at every index (a histogram's 1). With many updates for a table
/// larger than the caches, the updates go in blocks of the table that fit in the processor's
/// cache: the indices are sorted by block first (a stable counting sort, 4 bytes per update), so
/// each cache line of the table is fetched about once per call instead of once per update (bale's
/// histo at 2^22 counters and 5·10^6 updates per image, 2 images on one node: 30 % less time
/// for the updates, measured). `part` of `parts` (this image among the team's): each image starts
/// at its own share of the blocks, so images do not update one block at once. Updates of one
/// element keep their order. `n`: the container's size, every index below it.
template <class T, class Elements, class Indices>
requires runtime::processor_atomic<T>
void combine_same_value_in_place(Elements& elements,
                                 const Indices& indices,
                                 std::size_t n,
                                 const T& value,
                                 runtime::reduce_op op,
                                 std::size_t part,
                                 std::size_t parts) {
  const auto same = [&value](std::size_t) { return value; };
  const auto updates = static_cast<std::size_t>(std::ranges::size(indices));
  if (n * sizeof(T) < in_place_blocked_table_bytes() || updates < n / 8 ||
      n > std::numeric_limits<std::uint32_t>::max()) {
    combine_in_place<T>(elements, indices, same, op);
    return;
  }
  runtime::require_op_defined<T>(op);
  const int shift = static_cast<int>(std::bit_width(
                        std::max<std::size_t>(1, in_place_block_bytes() / sizeof(T)))) -
                    1;
  const std::size_t blocks = ((n - 1) >> shift) + 1;
  // end[b]: one past block b's last update in `sorted`, once the second pass is done.
  std::vector<std::size_t> end(blocks + 1, 0);
  for (const auto i : indices) ++end[(static_cast<std::size_t>(i) >> shift) + 1];
  for (std::size_t b = 1; b <= blocks; ++b) end[b] += end[b - 1];
  std::vector<std::uint32_t> sorted(updates);
  for (const auto i : indices)
    sorted[end[static_cast<std::size_t>(i) >> shift]++] = static_cast<std::uint32_t>(i);
  typename in_place_combiner<T>::ring ring;
  in_place_combiner<T> combiner(op, ring);
  const std::size_t first = blocks * part / parts;
  with_mapped_addresses(elements, [&](auto address) {
    for (std::size_t k = 0; k < blocks; ++k) {
      const std::size_t b = (first + k) % blocks;
      for (std::size_t u = b == 0 ? 0 : end[b - 1]; u < end[b]; ++u)
        combiner.add(address(sorted[u]), value);
    }
  });
  combiner.finish();
}

}  // namespace pgas::detail
