#pragma once
// Accumulates and atomics that this process's processor applies itself, with its atomic
// read-modify-write instructions, to memory every process of the window shares (an
// allocate_shared window, so one node), instead of handing them to MPI.
//
// Why: a same-node MPI_Accumulate pays a lock and a datatype walk per call; the processor's
// atomic costs what the memory access costs (HPCC RandomAccess on one node: about ten times
// faster). Why it is sound: MPI makes its accumulates atomic only with respect to other MPI
// accumulates (MPI-4.1 §12.7.1), so the two kinds must never meet on one element, and they do
// not: on such a window every accumulate and atomic the runtime issues, from every process,
// goes this way while the window is in its passive epoch (window::updates_in_place), and the
// processor's atomics on coherent shared memory are atomic across processes. The one exception,
// batches that may wait for the next sync point, go to their owners, who apply them with plain
// stores only while no image updates the window this way (runtime/src/update_exclusion.hpp).
// Inside a fence or neighbourhood phase, which every process enters and leaves through
// synchronisation, they go through MPI again. Element types whose std::atomic_ref is not always
// lock-free (long double, complex) would be guarded by libatomic's locks, which are private to
// each process: they always go through MPI.

#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/reduce_op.hpp>

#include <atomic>
#include <concepts>
#include <cstddef>
#include <type_traits>

namespace pgas::runtime {

/// Element types the processor updates atomically in shared memory.
template <class T>
inline constexpr bool processor_atomic =
    ((std::is_integral_v<T> && !std::is_same_v<T, bool>) ||
     std::is_floating_point_v<T>)&&std::atomic_ref<T>::is_always_lock_free;

/// Throws usage_error for an op MPI does not define on T: bitwise and logical ops on floating
/// point (MPI-4.1 §6.9.2); the runtime asks before every accumulate, on either path.
template <class T>
void require_op_defined(reduce_op op) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == reduce_op::band || op == reduce_op::bor || op == reduce_op::bxor ||
        op == reduce_op::land || op == reduce_op::lor) {
      throw usage_error(
          "bitwise and logical accumulates need an integer element type (MPI-4.1 §6.9.2)");
    }
  }
  if constexpr (!std::totally_ordered<T>) {
    if (op == reduce_op::min || op == reduce_op::max) {
      throw usage_error(
          "min and max accumulates need an ordered element type, not complex (MPI-4.1 §6.9.2)");
    }
  }
}

/// Atomically *where = *where op value; returns the previous value. no_op is an atomic read,
/// replace an atomic exchange. The op must be defined on T (require_op_defined). Always inlined:
/// batches of updates call it in their inner loop.
template <class T>
requires processor_atomic<T>
[[gnu::always_inline]] inline T fetch_and_combine_in_place(T* where,
                                                           const T& value,
                                                           reduce_op op) noexcept {
  std::atomic_ref<T> element(*where);
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case reduce_op::sum:
        return element.fetch_add(value);
      case reduce_op::band:
        return element.fetch_and(value);
      case reduce_op::bor:
        return element.fetch_or(value);
      case reduce_op::bxor:
        return element.fetch_xor(value);
      default:
        break;
    }
  }
  if (op == reduce_op::no_op)
    return element.load();
  if (op == reduce_op::replace)
    return element.exchange(value);
  T old = element.load(std::memory_order_relaxed);
  while (!element.compare_exchange_weak(old, combine(op, old, value))) {
  }
  return old;
}

/// Atomically replaces *where by `desired` if it holds `expected`; returns what it held.
template <class T>
requires processor_atomic<T> T compare_and_swap_in_place(T* where,
                                                         const T& desired,
                                                         const T& expected)
noexcept {
  T seen = expected;
  std::atomic_ref<T>(*where).compare_exchange_strong(seen, desired);
  return seen;
}

}  // namespace pgas::runtime
