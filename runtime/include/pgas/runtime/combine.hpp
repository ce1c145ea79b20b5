#pragma once
// What two updates of one element amount to, so updates can be combined before they are sent.

#include <pgas/runtime/reduce_op.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace pgas::runtime {

/// a op b: what two updates of one element with `op` amount to. replace keeps the later (b),
/// no_op the element as it was (a).
template <class T>
[[nodiscard]] T combine(reduce_op op, const T& a, const T& b) noexcept {
  switch (op) {
    case reduce_op::sum:
      return static_cast<T>(a + b);
    case reduce_op::prod:
      return static_cast<T>(a * b);
    case reduce_op::min:
      if constexpr (std::totally_ordered<T>)
        return b < a ? b : a;
      return b;  // not reached: MPI defines no order on the type (complex), so it is refused
    case reduce_op::max:
      if constexpr (std::totally_ordered<T>)
        return a < b ? b : a;
      return b;
    case reduce_op::band:
      if constexpr (std::is_integral_v<T>)
        return static_cast<T>(a & b);
      return b;
    case reduce_op::bor:
      if constexpr (std::is_integral_v<T>)
        return static_cast<T>(a | b);
      return b;
    case reduce_op::bxor:
      if constexpr (std::is_integral_v<T>)
        return static_cast<T>(a ^ b);
      return b;
    case reduce_op::land:
      return static_cast<T>(a != T{} && b != T{});
    case reduce_op::lor:
      return static_cast<T>(a != T{} || b != T{});
    case reduce_op::no_op:
      return a;
    case reduce_op::replace:
      return b;
  }
  return b;  // not reached: every op is handled above
}

/// Calls body(f) once with f(a, b) == combine(op, a, b) for T, as a function the compiler can
/// inline: loops over many updates choose the op once, outside the loop (a call per update
/// kept the misses of random updates from overlapping).
template <class T, class Body>
void with_combiner(reduce_op op, Body&& body) {
  switch (op) {
    case reduce_op::sum:
      body([](const T& a, const T& b) { return static_cast<T>(a + b); });
      return;
    case reduce_op::replace:
      body([](const T&, const T& b) { return b; });
      return;
    case reduce_op::no_op:
      body([](const T& a, const T&) { return a; });
      return;
    case reduce_op::bxor:
      if constexpr (std::is_integral_v<T>) {
        body([](const T& a, const T& b) { return static_cast<T>(a ^ b); });
        return;
      }
      break;
    default:
      break;
  }
  body([op](const T& a, const T& b) { return combine(op, a, b); });
}

/// Whether combine_scattered asks for each element's line some updates ahead. Measured on the
/// Xeon VM (random updates into 16–128 MiB): where every update carries its own value, asking
/// ahead made the loop 5–10 % slower (the processor already overlaps those misses, and the
/// extra load of a later offset competes with the value's); where every update adds the same
/// value (a histogram's counts) it cost nothing alone, and the histogram lost 5 % without it in
/// one comparison, so it asks ahead there.
enum class ask_ahead { no, yes };

/// How many updates ahead combine_scattered asks, where it does. bench_histogram at bale's size
/// (2^22 counters per image, one node), alternating with the loop that asked 16 ahead and read
/// its count from memory: 16 lost 6 % once the count stayed in a register, 32 was even, 64 and
/// 128 gained 3–6 % (through MPI and between the hosts 64 was even or ahead).
inline constexpr std::size_t ask_ahead_distance = 64;

/// to[offset(k)] = to[offset(k)] op value(k) for k < count: an owner applying a batch of
/// updates with plain loads and stores.
template <class T, class Offset, class Value>
void combine_scattered(T* to,
                       std::size_t count,
                       reduce_op op,
                       Offset offset,
                       Value value,
                       ask_ahead ahead = ask_ahead::no) {
  if (op == reduce_op::no_op)
    return;
  with_combiner<T>(op, [&](auto f) {
    // A copy no store can reach: read through the closure, `count` is loaded again after every
    // store when T is a 64-bit integer, signed or not (the store may alias a std::size_t), which
    // made a batch of random 64-bit updates 10-15 % slower.
    const std::size_t n = count;
    if (ahead == ask_ahead::yes) {
      for (std::size_t k = 0; k < n; ++k) {
        if (k + ask_ahead_distance < n)
          __builtin_prefetch(to + offset(k + ask_ahead_distance), 1);
        T& e = to[offset(k)];
        e = f(e, value(k));
      }
      return;
    }
    for (std::size_t k = 0; k < n; ++k) {
      T& e = to[offset(k)];
      e = f(e, value(k));
    }
  });
}

}  // namespace pgas::runtime
