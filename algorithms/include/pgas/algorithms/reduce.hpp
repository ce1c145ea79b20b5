#pragma once
// pgas::reduce, transform_reduce and dot: one local pass per image, then one combination.

#include <pgas/algorithms/detail.hpp>
#include <pgas/algorithms/local_pass.hpp>
#include <pgas/runtime/collective.hpp>

#include <range/v3/range/access.hpp>
#include <range/v3/range/concepts.hpp>

#include <functional>
#include <numeric>
#include <optional>
#include <type_traits>

namespace pgas {

namespace detail {

template <class Op, class T>
inline constexpr bool is_plus = std::is_same_v<Op, std::plus<>> || std::is_same_v<Op, std::plus<T>>;

/// Combines one local partial per image with op and init, in image order. Sums of MPI types
/// go through one MPI_Allreduce; anything else through an ordered fold.
template <class T, class Op>
T combine_partials(const std::optional<T>& mine, const T& init, Op op) {
  if constexpr (runtime::accumulable<T> && is_plus<Op, T>) {
    return static_cast<T>(init + runtime::allreduce(mine.value_or(T{}), runtime::reduce_op::sum,
                                                    runtime::current_comm()));
  } else {
    const std::optional<T> all = fold_in_image_order(mine, op);
    return all ? op(init, *all) : init;
  }
}

}  // namespace detail

/// init op r[0] op r[1] op ...: each image folds its part, then the parts are combined in
/// image order (op must be associative; for a non-block layout also commutative). Collective;
/// every image gets the result.
template <distributed_range R, class T, class Op>
[[nodiscard]] T reduce(R&& r, T init, Op op) {
  const auto acting = detail::act_on(r);
  auto&& local = r.local();
  const std::optional<T> mine =
      detail::fold_part<T>(::ranges::begin(local), ::ranges::end(local), std::identity{}, op);
  return detail::combine_partials(mine, init, op);
}

/// The sum of all elements, grouped as std::reduce groups them. Collective.
template <distributed_range R>
[[nodiscard]] auto reduce(R&& r) {
  const auto acting = detail::act_on(r);
  using T = detail::range_value_t<R>;
  T sum{};
  auto&& local = r.local();
  if constexpr (::ranges::common_range<decltype(local)>) {
    // Partial sums that do not wait for each other: one chain of dependent adds runs at the
    // adder's latency, and a quarter slower again when its loop straddles a 64-byte line. Out
    // of line (local_pass.hpp): inlined, the sum that outlives the calls after it was kept on
    // the stack, a store per four elements (0.44-0.64 of the hand-written loop, EPYC VM).
    sum = detail::reduce_part<T>(::ranges::begin(local), ::ranges::end(local));
  } else {
    sum = detail::fold_part<T>(::ranges::begin(local), ::ranges::end(local), std::identity{},
                               std::plus<>{})
              .value_or(T{});
  }
  if constexpr (runtime::accumulable<T>) {
    return runtime::allreduce(sum, runtime::reduce_op::sum, runtime::current_comm());
  } else {
    return detail::combine_partials(std::optional<T>(sum), T{}, std::plus<>{});
  }
}

/// init red tr(a[0], b[0]) red tr(a[1], b[1]) ... over two aligned ranges. Collective; throws
/// usage_error on every image if their sizes or layouts differ.
template <distributed_range A, distributed_range B, class T, class Reduce, class Transform>
[[nodiscard]] T transform_reduce(A&& a, B&& b, T init, Reduce red, Transform tr) {
  const auto acting = detail::act_on(a);
  detail::require_same_size("pgas::transform_reduce", a.size(), b.size());
  if (!detail::aligned(a, b)) {
    throw usage_error(
        "pgas::transform_reduce: the ranges are laid out differently; copy one "
        "into the other's distribution first");
  }
  auto&& la = a.local();
  const std::optional<T> mine = detail::fold_part<T>(
      ::ranges::begin(la), ::ranges::end(la),
      [&tr, y = ::ranges::begin(b.local())](auto&& x) mutable { return tr(x, *y++); }, red);
  return detail::combine_partials(mine, init, red);
}

/// init red tr(r[0]) red tr(r[1]) ... Collective.
template <distributed_range R, class T, class Reduce, class Transform>
[[nodiscard]] T transform_reduce(R&& r, T init, Reduce red, Transform tr) {
  const auto acting = detail::act_on(r);
  auto&& local = r.local();
  const std::optional<T> mine = detail::fold_part<T>(
      ::ranges::begin(local), ::ranges::end(local), [&tr](auto&& x) { return tr(x); }, red);
  return detail::combine_partials(mine, init, red);
}

/// The dot product of two aligned ranges. Collective.
template <distributed_range A, distributed_range B>
[[nodiscard]] auto dot(A&& a, B&& b) {
  const auto acting = detail::act_on(a);
  using T =
      decltype(std::declval<detail::range_value_t<A>>() * std::declval<detail::range_value_t<B>>());
  detail::require_same_size("pgas::dot", a.size(), b.size());
  if (!detail::aligned(a, b))
    throw usage_error("pgas::dot: the ranges are laid out differently");
  auto&& la = a.local();
  const std::optional<T> sum = detail::fold_part<T>(
      ::ranges::begin(la), ::ranges::end(la),
      [y = ::ranges::begin(b.local())](auto&& x) mutable { return x * *y++; }, std::plus<>{});
  return detail::combine_partials(std::optional<T>(sum.value_or(T{})), T{}, std::plus<>{});
}

}  // namespace pgas
