#pragma once
// The algorithms' passes over one image's part: a fold and a running fold (a scan). Each is a
// function of its own, never inlined: a caller keeps the result across calls (the exchange of
// the images' partial results), and x86-64 keeps no floating-point register across a call, so
// inlined g++ held a double accumulator in a general-purpose register or on the stack and moved
// it to the floating-point unit and back at every element — 3.5 to 7 times the time of the
// plain loop for 5*10^6 doubles on the EPYC VM. Out of line the accumulator stays where it is
// added.

#include <numeric>
#include <optional>

namespace pgas::detail {

/// op(...op(op(each(x0), each(x1)), each(x2))..., each(xn)) over [from, end), left to right;
/// none when the range is empty. `each` is called once per element, in order (it may carry a
/// second range's iterator along).
template <class T, class From, class End, class Each, class Op>
[[gnu::noinline]] std::optional<T> fold_part(From from, End end, Each each, Op op) {
  if (from == end)
    return std::nullopt;
  T folded = static_cast<T>(each(*from));
  for (++from; from != end; ++from) folded = op(folded, static_cast<T>(each(*from)));
  return folded;
}

/// std::reduce of [from, end) from T{}: its partial sums, which do not wait for each other.
template <class T, class From, class End>
[[gnu::noinline]] T reduce_part(From from, End end) {
  return std::reduce(from, end, T{});
}

/// Writes the running op-fold of [from, end) through `to` (to[k] = x0 op ... op xk); returns
/// the last value, none when the range is empty. `to` may be `from`'s own range: each element
/// is read before it is written.
template <class T, class From, class End, class To, class Op>
[[gnu::noinline]] std::optional<T> scan_part(From from, End end, To to, Op op) {
  if (from == end)
    return std::nullopt;
  T running = static_cast<T>(*from);
  *to = running;
  for (++from, ++to; from != end; ++from, ++to) {
    running = op(running, static_cast<T>(*from));
    *to = running;
  }
  return running;
}

/// Writes through `to` the running op-fold of [from, end) that starts at `running`, each
/// element's before it is folded in (to[0] = running, to[1] = running op x0, ...). `to` may be
/// `from`'s own range: each element is read before it is written.
template <class T, class From, class End, class To, class Op>
[[gnu::noinline]] void exclusive_scan_part(From from, End end, To to, T running, Op op) {
  for (; from != end; ++from, ++to) {
    const T x = static_cast<T>(*from);
    *to = running;
    running = op(running, x);
  }
}

}  // namespace pgas::detail
