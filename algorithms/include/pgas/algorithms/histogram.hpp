#pragma once
// pgas::histogram: bins[k] += 1 for every index k any image holds, and accumulate_at: every
// image's updates combined into one container, the way detail/locality.hpp chooses.

#include <pgas/algorithms/detail.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/sync.hpp>
#include <pgas/transfers.hpp>

#include <ranges>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas {

namespace detail {
template <class R>
decltype(auto) local_part(R& r) {
  if constexpr (distributed_range<R>) {
    return r.local();
  } else {
    return (r);
  }
}
}  // namespace detail

/// Adds 1 to bins[k] for every k in this image's `indices` (a local range of integers, or a
/// distributed range, whose local part is used). Collective; ends with a sync point. Never one
/// message per update: with many updates for the table, a table-sized buffer of 32-bit counters
/// summed by one MPI_Reduce_scatter; with a fair share of it, buckets of offsets each owner
/// applies after one all-to-all; with few, duplicates combined and one accumulate per owner (the
/// runtime's aggregation; in place on one node). Throws
/// out_of_range on every image, before anything is sent, if any image holds an index >= the
/// number of bins.
template <class Bins, class Indices>
requires requires(Bins& b) {
  b.window(pgas::detail::internal);
  b.distribution();
  b.local_size_of(std::size_t{});
}
void histogram(Bins& bins, const Indices& indices) {
  const auto acting = detail::act_on(bins);
  using C = typename Bins::value_type;
  static_assert(runtime::accumulable<C>, "histogram bins must be of an MPI arithmetic type");
  const auto& local_indices = detail::local_part(indices);
  const auto updates = static_cast<std::size_t>(std::ranges::size(local_indices));
  // Dense pays one pass over the table; worth it once updates are a fair share of the bins.
  // Every image must choose alike, so the choice uses the largest update count of all.
  const std::size_t most =
      runtime::allreduce(updates, runtime::reduce_op::max, runtime::current_comm());
  const detail::same_value<C> one{C{1}};
  // One image's counts fit 32-bit combining counters unless it holds 2^32 updates or more.
  if (most < (std::size_t{1} << 32)) {
    detail::accumulate_everywhere<std::uint32_t>("pgas::histogram", bins, local_indices, one,
                                                 runtime::reduce_op::sum, C{0}, most);
  } else {
    detail::accumulate_everywhere<std::uint64_t>("pgas::histogram", bins, local_indices, one,
                                                 runtime::reduce_op::sum, C{0}, most);
  }
}

/// Combines values[u] into elements[indices[u]] with op (sum, prod, min, max, band, bor, bxor),
/// for every u of this image's indices and values (of equal length). Collective; ends with a
/// sync point. Updates are combined per owner first (duplicates merged), and each owner gets one
/// MPI_Accumulate. Throws usage_error if the lengths differ or for a bitwise or logical op on
/// floating point, and out_of_range if an index is outside the container, in every case on
/// every image and before anything is sent.
template <class Elements, class T>
requires requires(Elements& b) {
  b.window(pgas::detail::internal);
  b.distribution();
  b.local_size_of(std::size_t{});
}
void accumulate_at(Elements& elements,
                   std::span<const std::size_t> indices,
                   std::span<const T> values,
                   runtime::reduce_op op) {
  const auto acting = detail::act_on(elements);
  using C = typename Elements::value_type;
  if (!runtime::everyone(indices.size() == values.size(), runtime::current_comm())) {
    throw usage_error("pgas::accumulate_at: indices and values differ in length on some image");
  }
  runtime::require_op_defined<C>(op);  // the op is the same on every image: all throw alike
  C identity{};
  switch (op) {
    case runtime::reduce_op::prod:
      identity = C{1};
      break;
    case runtime::reduce_op::min:
      identity = std::numeric_limits<C>::max();
      break;
    case runtime::reduce_op::max:
      identity = std::numeric_limits<C>::lowest();
      break;
    case runtime::reduce_op::band:
      if constexpr (std::is_integral_v<C>)
        identity = static_cast<C>(~C{});
      break;
    default:
      break;
  }
  const auto value = [&values](std::size_t u) { return static_cast<C>(values[u]); };
  const std::size_t most =
      runtime::allreduce(indices.size(), runtime::reduce_op::max, runtime::current_comm());
  detail::accumulate_everywhere<C>("pgas::accumulate_at", elements, indices, value, op, identity,
                                   most);
}

}  // namespace pgas
