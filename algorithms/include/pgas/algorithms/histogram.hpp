#pragma once
// pgas::histogram: bins[k] += 1 for every index k any image holds, through the runtime's
// aggregation: updates are counted locally per owner and each owner gets one accumulate.

#include <pgas/algorithms/detail.hpp>
#include <pgas/detail/in_place.hpp>
#include <pgas/detail/internal_only.hpp>
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

namespace detail {

// The value of every update when it is one and the same (a histogram's 1): the in-place path
// may then reorder the updates by where they go.
template <class C>
struct same_value {
  C value;
  C operator()(std::size_t) const noexcept { return value; }
};

// Many updates for the table: combine them all in one table-sized buffer indexed by global
// element, regroup it owner by owner, and let one MPI_Reduce_scatter combine every image's
// buffer straight into each owner's piece. `Count` may be narrower than the elements (32-bit
// counters for a histogram).
template <class Count, class Bins, class Local, class Value>
void dense_accumulate(Bins& bins,
                      const Local& local_indices,
                      Value value,
                      runtime::reduce_op op,
                      Count identity,
                      std::size_t& bad_index,
                      bool& bad) {
  using C = typename Bins::value_type;
  const std::size_t n = bins.size();
  std::vector<Count> combined(n, identity);
  std::size_t u = 0;
  for (const auto k : local_indices) {
    const auto i = static_cast<std::size_t>(k);
    if (i < n) {
      combined[i] = runtime::combine(op, combined[i], static_cast<Count>(value(u)));
    } else if (!bad) {
      bad = true;
      bad_index = i;
    }
    ++u;
  }
  if (!runtime::everyone(!bad, runtime::current_comm()))
    return;
  // Owner-major order: image 0's elements in its local order, then image 1's, ...
  std::vector<Count> regrouped(n);
  std::vector<int> pieces(num_images());
  std::size_t at = 0;
  for (std::size_t img = 0; img < num_images(); ++img) {
    const std::size_t m = bins.local_size_of(img);
    for (std::size_t off = 0; off < m; ++off)
      regrouped[at++] = combined[bins.distribution().global_index(img, off)];
    pieces[img] = runtime::to_count(m);
  }
  std::vector<Count> mine(bins.local().size());
  runtime::reduce_scatter(std::span<const Count>(regrouped), std::span<Count>(mine),
                          std::span<const int>(pieces), op, runtime::current_comm());
  auto local = bins.local();
  for (std::size_t off = 0; off < mine.size(); ++off)
    local[off] = runtime::combine(op, local[off], static_cast<C>(mine[off]));
}

// Combines value(u) into bins[indices[u]] where the owners apply updates (no shared memory) and
// the updates are a fair share of the table: each image buckets its updates by owner as 32-bit
// offsets (with their values, unless every update adds one value: a histogram's 1), one
// all-to-all hands each owner its buckets, and the owner applies them with plain loads and
// stores: the hand-written program's way, in half its bytes. Returns false, doing nothing, alike
// everywhere, where a part is too large for 32-bit offsets or the bins cannot say where their
// elements are. Checks every index first; if any image holds a bad one, nothing is sent anywhere.
// Collective.
template <class Bins, class Local, class Value>
bool exchanged_accumulate(Bins& bins,
                          const Local& local_indices,
                          Value value,
                          runtime::reduce_op op,
                          std::size_t& bad_index,
                          bool& bad) {
  using C = typename Bins::value_type;
  if constexpr (!requires { bins.finder(); }) {
    return false;
  } else {
    constexpr bool same = std::is_same_v<Value, same_value<C>>;
    const std::size_t n = bins.size();
    const std::size_t p = num_images();
    const auto e = bins.finder().lock("pgas::histogram");
    for (std::size_t img = 0; img < p; ++img) {
      if (e.part_size(img) > std::numeric_limits<std::uint32_t>::max())
        return false;
    }
    std::vector<std::size_t> counts(p, 0);
    for (const auto k : local_indices) {
      const auto i = static_cast<std::size_t>(k);
      if (i >= n) {
        bad = true;
        bad_index = i;
        break;
      }
      ++counts[e.place_of(i).image];
    }
    if (!runtime::everyone(!bad, runtime::current_comm()))
      return true;
    std::vector<std::size_t> next(p, 0);
    for (std::size_t img = 1; img < p; ++img) next[img] = next[img - 1] + counts[img - 1];
    const std::size_t total = p == 0 ? 0 : next[p - 1] + counts[p - 1];
    std::vector<std::uint32_t> offsets(total);
    std::vector<C> values(same ? 0 : total);
    std::size_t u = 0;
    for (const auto k : local_indices) {
      const auto place = e.place_of(static_cast<std::size_t>(k));
      const std::size_t slot = next[place.image]++;
      offsets[slot] = static_cast<std::uint32_t>(place.offset);
      if constexpr (!same)
        values[slot] = static_cast<C>(value(u));
      ++u;
    }
    const MPI_Comm comm = runtime::current_comm();
    const std::vector<std::uint32_t> mine =
        runtime::exchange(std::span<const std::uint32_t>(offsets), counts, comm);
    auto local = bins.local();
    if constexpr (same) {
      for (const std::uint32_t off : mine)
        local[off] = runtime::combine(op, local[off], value.value);
    } else {
      const std::vector<C> theirs = runtime::exchange(std::span<const C>(values), counts, comm);
      for (std::size_t m = 0; m < mine.size(); ++m)
        local[mine[m]] = runtime::combine(op, local[mine[m]], theirs[m]);
    }
    return true;
  }
}

// Combines bins[indices[u]] op= value(u): updates of one element combined here, then each
// owner gets one accumulate (what pgas::scatter_accumulate does, without checking and copying
// the lists again), so the cost grows with the updates, not with the table. Checks every index
// first; if any image holds a bad one, nothing is sent anywhere. Collective.
template <class Bins, class Local, class Value>
void batched_accumulate(Bins& bins,
                        const Local& local_indices,
                        Value value,
                        runtime::reduce_op op,
                        std::size_t& bad_index,
                        bool& bad) {
  using C = typename Bins::value_type;
  const std::size_t n = bins.size();
  std::vector<std::size_t> indices;
  std::vector<C> values;
  std::size_t u = 0;
  for (const auto k : local_indices) {
    const auto i = static_cast<std::size_t>(k);
    if (i >= n) {
      bad = true;
      bad_index = i;
      break;
    }
    indices.push_back(i);
    values.push_back(static_cast<C>(value(u++)));
  }
  if (!runtime::everyone(!bad, runtime::current_comm()))
    return;
  std::vector<owner_share<C>> shares;
  accumulate_scattered(bins, indices, values, op, shares);
}

// Combines bins[indices[u]] op= value(u) with the processor's atomics, straight into the memory
// every image shares (detail/in_place.hpp), when the bins' window is updated in place; returns
// false otherwise (every image decides alike: the window is the same everywhere). Checks every
// index first; if any image holds a bad one, nothing is updated anywhere. Collective.
template <class Bins, class Local, class Value>
bool in_place_accumulate(Bins& bins,
                         const Local& local_indices,
                         Value value,
                         runtime::reduce_op op,
                         std::size_t& bad_index,
                         bool& bad) {
  using C = typename Bins::value_type;
  if constexpr (!runtime::processor_atomic<C>) {
    return false;
  } else {
    if (!bins.window(pgas::detail::internal).updates_in_place())
      return false;
    const std::size_t n = bins.size();
    for (const auto k : local_indices) {
      if (static_cast<std::size_t>(k) >= n) {
        bad = true;
        bad_index = static_cast<std::size_t>(k);
        break;
      }
    }
    if (!runtime::everyone(!bad, runtime::current_comm()))
      return true;
    if constexpr (std::is_same_v<Value, same_value<C>>) {
      return combine_same_value_in_place<C>(bins, local_indices, n, value.value, op, this_image(),
                                            num_images());
    } else {
      return combine_in_place<C>(bins, local_indices, value, op);
    }
  }
}

[[noreturn]] inline void throw_bad_index(const char* algorithm,
                                         std::size_t bins,
                                         bool mine,
                                         std::size_t index) {
  throw out_of_range(
      std::string(algorithm) + ": an index is out of range for " + std::to_string(bins) +
      " elements" +
      (mine ? " (image " + std::to_string(this_image()) + " holds " + std::to_string(index) + ")"
            : std::string(" on another image")));
}

// Combines value(u) into bins[indices[u]] with op on every image: in a table-sized buffer of
// Count with one reduce-scatter when the most updates any image holds (`most`, the same on
// every image, so all choose alike) are a fair share of the table, per owner with one
// accumulate each otherwise. Throws out_of_range everywhere, before sending, for a bad index;
// ends with a sync point. Collective.
template <class Count, class Bins, class Local, class Value>
void accumulate_everywhere(const char* algorithm,
                           Bins& bins,
                           const Local& local_indices,
                           Value value,
                           runtime::reduce_op op,
                           typename Bins::value_type identity,
                           std::size_t most) {
  bool bad = false;
  std::size_t bad_index = 0;
  // Many times more updates than bins: one pass over a table of narrow counters beats an atomic
  // per update, even in place.
  const bool many = most >= 2 * bins.size();
  if (!many && in_place_accumulate(bins, local_indices, value, op, bad_index, bad)) {
    // applied in place, or refused everywhere for a bad index
  } else if (most * 4 >= bins.size()) {
    // Where owners apply updates, buckets to the owners move fewer bytes than the table, unless
    // the updates outnumber it many times.
    if (many || !bins.window(pgas::detail::internal).owner_applies_updates() ||
        !exchanged_accumulate(bins, local_indices, value, op, bad_index, bad)) {
      dense_accumulate(bins, local_indices, value, op, static_cast<Count>(identity), bad_index,
                       bad);
    }
  } else {
    batched_accumulate(bins, local_indices, value, op, bad_index, bad);
  }
  if (!runtime::everyone(!bad, runtime::current_comm()))
    throw_bad_index(algorithm, bins.size(), bad, bad_index);
  sync_all();
}

}  // namespace detail

/// Adds 1 to bins[k] for every k in this image's `indices` (a local range of integers, or a
/// distributed range, whose local part is used). Collective; ends with a sync point. Duplicates
/// are combined before anything is sent, never one message per update: with many updates for
/// the table, in a table-sized buffer of 32-bit counters summed by one MPI_Reduce_scatter; with
/// few, per owner, each owner getting one MPI_Accumulate (the runtime's aggregation). Throws
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
