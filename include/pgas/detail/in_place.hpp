#pragma once
// Many updates `element op= value` applied by this process's processor, in place, on a
// container whose window every image shares (runtime/in_place_updates.hpp says when and why
// that is sound). No grouping per owner and no combining of duplicates: each update is one
// atomic instruction, and the memory accesses of the next ones overlap with it.

#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/window.hpp>

#include <array>
#include <cstddef>
#include <ranges>

namespace pgas::detail {

/// Applies `*where op= value` for each add(where, value), each update a few adds after it was
/// added: its cache line is asked for (prefetched) at once, so the memory accesses of the
/// updates in between overlap. finish() applies the rest. T must be processor_atomic.
template <class T>
class in_place_combiner {
 public:
  /// The op must be defined on T (runtime::require_op_defined).
  explicit in_place_combiner(runtime::reduce_op op) noexcept : op_{op} {}
  void add(T* where, const T& value) noexcept {
    slot& s = ring_[added_ % runtime::in_place_lookahead];
    if (added_ >= runtime::in_place_lookahead) (void)runtime::fetch_and_combine_in_place(s.where, s.value, op_);
    __builtin_prefetch(where, 1);
    s = {where, value};
    ++added_;
  }
  void finish() noexcept {
    runtime::statistics::count_many(&rma_stats::in_place_updates, added_, added_ * sizeof(T));
    const std::size_t first = added_ > runtime::in_place_lookahead ? added_ - runtime::in_place_lookahead : 0;
    for (std::size_t k = first; k < added_; ++k) {
      const slot& s = ring_[k % runtime::in_place_lookahead];
      (void)runtime::fetch_and_combine_in_place(s.where, s.value, op_);
    }
    added_ = 0;
  }

 private:
  struct slot {
    T* where;
    T value;
  };
  runtime::reduce_op op_;
  std::array<slot, runtime::in_place_lookahead> ring_{};
  std::size_t added_ = 0;
};

/// Applies `elements[i_u] op= value(u)` for the u-th index i_u of `indices` (any range of
/// integers, checked already) in place and returns true when the window of `elements` (a
/// container, or its locked_elements) is updated in place, or there is nothing to apply;
/// returns false, having done nothing, when MPI must carry the updates.
template <class T, class Elements, class Indices, class Value>
bool combine_in_place(Elements& elements, const Indices& indices, Value value, runtime::reduce_op op) {
  if constexpr (!runtime::processor_atomic<T>) {
    return false;
  } else {
    auto first = std::ranges::begin(indices);
    if (first == std::ranges::end(indices)) return true;
    if (!elements.element(static_cast<std::size_t>(*first)).window()->begin_in_place_updates()) return false;
    runtime::require_op_defined<T>(op);
    in_place_combiner<T> combiner(op);
    std::size_t u = 0;
    for (const auto i : indices) combiner.add(elements.element(static_cast<std::size_t>(i)).local(), static_cast<T>(value(u++)));
    combiner.finish();
    return true;
  }
}

}  // namespace pgas::detail
