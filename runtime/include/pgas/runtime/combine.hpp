#pragma once
// What two updates of one element amount to, so updates can be combined before they are sent.

#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/prefetch.hpp>
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

/// to[offset(k)] = to[offset(k)] op value(k) for k < count: an owner applying a batch of
/// updates with plain loads and stores, asking for lines as far ahead as loops of `kind` run
/// best on this machine (ask_ahead.hpp): updates_with_values, or counted_updates where every
/// value is the same (the loop's iterations cost less, and it wants a longer distance).
template <class T, class Offset, class Value>
void combine_scattered(T* to,
                       std::size_t count,
                       reduce_op op,
                       Offset offset,
                       Value value,
                       scattered_loop kind = scattered_loop::updates_with_values) {
  if (op == reduce_op::no_op)
    return;
  with_combiner<T>(op, [&](auto f) {
    for_each_piece_asking_ahead(kind, count,
                                [&](std::size_t first, std::size_t last, std::size_t ahead) {
                                  // Copies no store can reach: read through the closure, `count` is
                                  // loaded again after every store when T is a 64-bit integer,
                                  // signed or not (the store may alias a std::size_t), which made a
                                  // batch of random 64-bit updates 10-15 % slower.
                                  const std::size_t n = count;
                                  if (ahead != 0) {
                                    for (std::size_t k = first; k < last; ++k) {
                                      if (k + ahead < n)
                                        prefetch_for_write(to + offset(k + ahead));
                                      T& e = to[offset(k)];
                                      e = f(e, value(k));
                                    }
                                    return;
                                  }
                                  for (std::size_t k = first; k < last; ++k) {
                                    T& e = to[offset(k)];
                                    e = f(e, value(k));
                                  }
                                });
  });
}

}  // namespace pgas::runtime
