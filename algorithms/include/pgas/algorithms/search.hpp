#pragma once
// Queries over a distributed range: count, find, min/max element, equal, all/any/none_of.
// Each image looks at its part; one collective combines the answers.

#include <pgas/algorithms/detail.hpp>
#include <pgas/runtime/collective.hpp>

#include <cstddef>
#include <functional>
#include <optional>

namespace pgas {

/// How many elements satisfy pred. Collective.
template <distributed_range R, class Pred>
[[nodiscard]] std::size_t count_if(R&& r, Pred pred) {
  const auto acting = detail::act_on(r);
  std::size_t n = 0;
  for (auto&& x : r.local()) {
    if (pred(x))
      ++n;
  }
  return runtime::allreduce(n, runtime::reduce_op::sum, runtime::current_comm());
}

/// How many elements equal v. Collective.
template <distributed_range R, class T>
[[nodiscard]] std::size_t count(R&& r, const T& v) {
  return count_if(r, [&v](const auto& x) { return x == v; });
}

/// The global index of the first element (in global order) satisfying pred, or size() if
/// none does. Collective.
template <distributed_range R, class Pred>
[[nodiscard]] std::size_t find_if(R&& r, Pred pred) {
  const auto acting = detail::act_on(r);
  std::size_t first = r.size();
  std::size_t k = 0;
  for (auto&& x : r.local()) {
    if (pred(x)) {
      first = r.global_index(k);  // local order follows global order: the first is the least
      break;
    }
    ++k;
  }
  return runtime::allreduce(first, runtime::reduce_op::min, runtime::current_comm());
}

/// The global index of the first element equal to v, or size(). Collective.
template <distributed_range R, class T>
[[nodiscard]] std::size_t find(R&& r, const T& v) {
  return find_if(r, [&v](const auto& x) { return x == v; });
}

/// True if pred holds for every element (for none: true). Collective.
template <distributed_range R, class Pred>
[[nodiscard]] bool all_of(R&& r, Pred pred) {
  const auto acting = detail::act_on(r);
  bool ok = true;
  for (auto&& x : r.local()) {
    if (!pred(x)) {
      ok = false;
      break;
    }
  }
  return runtime::everyone(ok, runtime::current_comm());
}
/// True if pred holds for some element. Collective.
template <distributed_range R, class Pred>
[[nodiscard]] bool any_of(R&& r, Pred pred) {
  return !all_of(r, [&pred](const auto& x) { return !pred(x); });
}
/// True if pred holds for no element. Collective.
template <distributed_range R, class Pred>
[[nodiscard]] bool none_of(R&& r, Pred pred) {
  return all_of(r, [&pred](const auto& x) { return !pred(x); });
}

/// True if both ranges have the same size and equal elements. Collective; the ranges must be
/// aligned when their sizes match (usage_error on every image otherwise).
template <distributed_range A, distributed_range B>
[[nodiscard]] bool equal(A&& a, B&& b) {
  const auto acting = detail::act_on(a);
  if (a.size() != b.size())
    return false;  // the same answer on every image, no communication
  if (!detail::aligned(a, b)) {
    throw usage_error(
        "pgas::equal: the ranges are laid out differently; copy one into the "
        "other's distribution first");
  }
  bool same = true;
  auto y = std::ranges::begin(b.local());
  for (auto&& x : a.local()) {
    if (!(x == *y++)) {
      same = false;
      break;
    }
  }
  return runtime::everyone(same, runtime::current_comm());
}

/// Where an extreme element is: its global index (size() for an empty range) and its value.
template <class T>
struct element_result {
  std::size_t index;
  T value;
};

namespace detail {
// The first (in global order) element that no other element beats under `better`.
template <distributed_range R, class Better>
element_result<range_value_t<R>> extreme_element(R& r, Better better) {
  using T = range_value_t<R>;
  std::optional<element_result<T>> mine;
  std::size_t k = 0;
  for (auto&& x : r.local()) {
    if (!mine || better(static_cast<T>(x), mine->value))
      mine = element_result<T>{r.global_index(k), x};
    ++k;
  }
  const auto all =
      fold_in_image_order(mine, [&better](const element_result<T>& a, const element_result<T>& b) {
        if (better(b.value, a.value))
          return b;
        if (better(a.value, b.value))
          return a;
        return a.index < b.index ? a : b;  // ties go to the earlier index, whatever the layout
      });
  return all ? *all : element_result<T>{r.size(), T{}};
}
}  // namespace detail

/// The least element under comp (the first of equals) and its index. Collective.
template <distributed_range R, class Compare = std::less<>>
[[nodiscard]] auto min_element(R&& r, Compare comp = {}) {
  const auto acting = detail::act_on(r);
  return detail::extreme_element(r, [&comp](const auto& a, const auto& b) { return comp(a, b); });
}

/// The greatest element under comp (the first of equals) and its index. Collective.
template <distributed_range R, class Compare = std::less<>>
[[nodiscard]] auto max_element(R&& r, Compare comp = {}) {
  const auto acting = detail::act_on(r);
  return detail::extreme_element(r, [&comp](const auto& a, const auto& b) { return comp(b, a); });
}

}  // namespace pgas
