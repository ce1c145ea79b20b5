#pragma once
// What two updates of one element amount to, so updates can be combined before they are sent.

#include <pgas/runtime/reduce_op.hpp>

#include <concepts>
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

}  // namespace pgas::runtime
