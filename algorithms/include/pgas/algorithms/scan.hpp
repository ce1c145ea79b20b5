#pragma once
// pgas::inclusive_scan and pgas::exclusive_scan: one local pass, one exchange of the images'
// partial results, one local fix-up.

#include <pgas/algorithms/detail.hpp>
#include <pgas/algorithms/local_pass.hpp>
#include <pgas/algorithms/reduce.hpp>
#include <pgas/algorithms/transform.hpp>
#include <pgas/array.hpp>
#include <pgas/sync.hpp>

#include <range/v3/range/access.hpp>

#include <functional>
#include <optional>

namespace pgas {

namespace detail {

// The op-fold of every element on images before this one, given this image's own fold.
template <class T, class Op>
std::optional<T> prefix_before_me(const std::optional<T>& mine, Op op) {
  if constexpr (runtime::accumulable<T> && is_plus<Op, T>) {
    const T sum = runtime::exclusive_prefix(mine.value_or(T{}), runtime::reduce_op::sum, T{},
                                            runtime::current_comm());
    return this_image() == 0 ? std::nullopt : std::optional<T>(sum);
  } else {
    return fold_before_me(mine, op);
  }
}

// Scans go image after image, so they need in and out aligned and in global order image by
// image; anything else is scanned in a block-distributed copy.
template <class In, class Out>
bool scannable_in_place(In& in, Out& out) {
  return aligned(in, out) && in.layout().image_ordered();
}

}  // namespace detail

/// out[i] = in[0] op ... op in[i]. Collective; ends with a sync point. op must be associative,
/// not necessarily commutative. Throws usage_error on every image if the sizes differ.
template <distributed_range In, distributed_range Out, class Op = std::plus<>>
void inclusive_scan(In&& in, Out&& out, Op op = {}) {
  const auto acting = detail::act_on(in);
  detail::require_same_size("pgas::inclusive_scan", in.size(), out.size());
  using T = detail::range_value_t<Out>;
  if (!detail::scannable_in_place(in, out)) {
    array<T> tmp(in.size());
    pgas::copy(in, tmp);
    pgas::inclusive_scan(tmp, tmp, op);
    pgas::copy(tmp, out);
    return;
  }
  auto&& mine = in.local();
  const std::optional<T> carry = detail::scan_part<T>(::ranges::begin(mine), ::ranges::end(mine),
                                                      ::ranges::begin(out.local()), op);
  if (const auto prefix = detail::prefix_before_me(carry, op)) {
    for (auto&& y : out.local()) y = op(*prefix, static_cast<T>(y));
  }
  sync_all();
}

/// out[i] = init op in[0] op ... op in[i-1] (out[0] = init). Collective; ends with a sync
/// point. op must be associative.
template <distributed_range In, distributed_range Out, class T, class Op = std::plus<>>
void exclusive_scan(In&& in, Out&& out, T init, Op op = {}) {
  const auto acting = detail::act_on(in);
  detail::require_same_size("pgas::exclusive_scan", in.size(), out.size());
  using V = detail::range_value_t<Out>;
  if (!detail::scannable_in_place(in, out)) {
    array<V> tmp(in.size());
    pgas::copy(in, tmp);
    pgas::exclusive_scan(tmp, tmp, init, op);
    pgas::copy(tmp, out);
    return;
  }
  auto&& mine = in.local();
  const std::optional<V> total =
      detail::fold_part<V>(::ranges::begin(mine), ::ranges::end(mine), std::identity{}, op);
  const auto prefix = detail::prefix_before_me(total, op);
  detail::exclusive_scan_part(
      ::ranges::begin(mine), ::ranges::end(mine), ::ranges::begin(out.local()),
      prefix ? op(static_cast<V>(init), *prefix) : static_cast<V>(init), op);
  sync_all();
}

}  // namespace pgas
