#pragma once
// Collective ways to combine every image's updates into one container (a histogram's bins,
// accumulate_at's elements), each the best on some machine and load: a table-sized buffer of
// narrow counters cut into the owners' pieces, or offset buckets, handed to the owners by one
// all-to-all; the processor's atomics in memory every image shares. Which one runs is
// locality.hpp's choice (accumulate_everywhere).

#include <pgas/detail/in_place.hpp>
#include <pgas/detail/to_owners.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/team.hpp>

#include <ranges>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas::detail {

/// The first index out of range among this image's updates, if any: a collective update checks
/// every index before it sends anything, and if any image found one, every image throws.
struct index_check {
  bool found = false;
  std::size_t index = 0;
  void note(std::size_t i) noexcept {
    if (!found) {
      found = true;
      index = i;
    }
  }
  /// True on every image when no image found one. Collective over the team in force.
  [[nodiscard]] bool none_anywhere() const {
    return runtime::everyone(!found, runtime::current_comm());
  }
  /// The out_of_range every image throws once some image found one (none_anywhere() false).
  [[noreturn]] void throw_everywhere(const char* algorithm, std::size_t elements) const {
    throw out_of_range(
        std::string(algorithm) + ": an index is out of range for " + std::to_string(elements) +
        " elements" +
        (found ? " (image " + std::to_string(this_image()) + " holds " + std::to_string(index) + ")"
               : std::string(" on another image")));
  }
};

// The value of every update when it is one and the same (a histogram's 1): the in-place path
// may then reorder the updates by where they go.
template <class C>
struct same_value {
  C value;
  C operator()(std::size_t) const noexcept { return value; }
};

// Many updates for the table: combine them all in one table-sized buffer indexed by global
// element, hand each owner its piece of it (owner-major, one all-to-all) and let the owner fold
// the pieces into its elements in one pass. `Count` may be narrower than the elements (32-bit
// counters for a histogram). Not MPI_Reduce_scatter: Open MPI allocates its table-sized
// temporaries afresh on every call, and on a VM where a page fault is dear those faults cost
// more than the reduction (bench/README, nineteenth session); here every buffer is kept scratch.
template <class Count, class Bins, class Local, class Value>
void dense_accumulate(Bins& bins,
                      const Local& local_indices,
                      Value value,
                      runtime::reduce_op op,
                      Count identity,
                      index_check& bad) {
  using C = typename Bins::value_type;
  const std::size_t n = bins.size();
  // Kept scratch, here and below: mapped already when the next call comes.
  runtime::scratch_vector<Count> combined(n, identity);
  runtime::with_combiner<Count>(op, [&](auto f) {
    // The loop holds what it needs in registers, and stops at a bad index (nothing is applied
    // then): read through the closure, and with a store that might alias them in the loop, g++
    // loaded the table's address, its size and the value again at every update. A loop of random
    // updates runs as fast as the misses it keeps in flight, and those loads took the room: 2.5
    // to 4 times slower on an AMD EPYC VM (family 25; bench/README, forty-first session).
    Count* const table = combined.data();
    const std::size_t size = n;
    const Value each = value;
    std::size_t u = 0;
    for (const auto k : local_indices) {
      const auto i = static_cast<std::size_t>(k);
      if (i >= size) {
        bad.note(i);
        break;
      }
      table[i] = f(table[i], static_cast<Count>(each(u)));
      ++u;
    }
  });
  if (!bad.none_anywhere())
    return;
  // The other owners' pieces, owner-major: image 0's elements in its local order, then image
  // 1's, ...; this image's own piece is read where it is.
  const std::size_t p = num_images();
  const std::size_t me = this_image();
  const auto& d = bins.distribution();
  runtime::scratch_vector<Count> others(n - bins.local().size());
  std::vector<std::size_t> pieces(p, 0);
  std::size_t at = 0;
  for (std::size_t img = 0; img < p; ++img) {
    if (img == me)
      continue;
    pieces[img] = bins.local_size_of(img);
    for (std::size_t off = 0; off < pieces[img]; ++off)
      others[at++] = combined[d.global_index(img, off)];
  }
  const auto arrived = runtime::exchange<Count, runtime::scratch_allocator<Count>>(
      others, pieces, runtime::current_comm());
  // What arrived holds one piece of this image's size from every other image, in rank order.
  // Folded in the elements' type: each image's counts fit a Count, their sum need not.
  C* const local = bins.local().data();
  const std::size_t m = bins.local().size();
  runtime::with_combiner<C>(op, [&](auto f) {
    const Count* const counts = combined.data();
    const Count* const theirs = arrived.data();
    for (std::size_t off = 0; off < m; ++off) {
      C sum = static_cast<C>(counts[d.global_index(me, off)]);
      for (std::size_t from = 0; from + 1 < p; ++from)
        sum = f(sum, static_cast<C>(theirs[from * m + off]));
      local[off] = f(local[off], sum);
    }
  });
}

// The buckets of the other images end to end in rank order, as one exchange sends them: where
// at most one of them holds anything (two images) that bucket itself, else a copy in `joined`.
template <class T>
std::span<const T> others_end_to_end(const std::vector<std::span<const T>>& buckets,
                                     std::size_t me,
                                     std::vector<T>& joined) {
  std::size_t total = 0;
  std::size_t holders = 0;
  std::size_t holder = me;
  for (std::size_t img = 0; img < buckets.size(); ++img) {
    if (img != me && !buckets[img].empty()) {
      total += buckets[img].size();
      ++holders;
      holder = img;
    }
  }
  if (holders == 0)
    return {};
  if (holders == 1)
    return buckets[holder];
  joined.clear();
  joined.reserve(total);
  for (std::size_t img = 0; img < buckets.size(); ++img) {
    if (img != me)
      joined.insert(joined.end(), buckets[img].begin(), buckets[img].end());
  }
  return std::span<const T>(joined);
}

// Combines value(u) into bins[indices[u]] where the updates are a fair share of the table, the
// owners applying them (without shared memory, as they apply every update; on a shared window
// inside this collective, which locality.hpp closes with a barrier): each image buckets its updates
// by owner as 32-bit offsets (with their values, unless every update adds one value: a histogram's
// 1), one all-to-all hands each owner its buckets, and the owner applies them with plain loads and
// stores: the hand-written program's way, in half its bytes. Returns false, doing nothing, alike
// everywhere, where a part is too large for 32-bit offsets or the bins cannot say where their
// elements are. Checks every index first; if any image holds a bad one, nothing is sent anywhere.
// Collective.
template <class Bins, class Local, class Value>
bool exchanged_accumulate(
    Bins& bins, const Local& local_indices, Value value, runtime::reduce_op op, index_check& bad) {
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
    // One pass over the updates, each into its owner's bucket, checking the index on the way.
    // (Counting the buckets first, to lay them out end to end, read the index stream from
    // memory twice: the count cost as much as the bucketing, a third of the whole.)
    std::vector<owner_share<C>> shares(p);
    const auto updates = static_cast<std::size_t>(std::ranges::size(local_indices));
    const auto stopped_at = sort_by_owner<!same>(
        e.distribution(), std::ranges::begin(local_indices), updates, n, value, shares);
    if (stopped_at)
      bad.note(*stopped_at);
    if (!bad.none_anywhere())
      return true;
    C* const local = bins.local().data();
    const auto apply = [&](const std::uint32_t* at, const C* with, std::size_t count) {
      const auto offset = [at](std::size_t m) { return at[m]; };
      if constexpr (same) {
        runtime::combine_scattered(local, count, op, offset, value,
                                   runtime::scattered_loop::counted_updates);
      } else {
        runtime::combine_scattered(local, count, op, offset,
                                   [with](std::size_t m) { return with[m]; });
      }
    };
    // This image's own updates stay out of the exchange and are applied here, as the owners
    // apply theirs.
    const std::size_t me = e.me();
    apply(shares[me].offsets.held().data(), shares[me].values.held().data(),
          shares[me].offsets.held().size());
    std::vector<std::size_t> counts(p, 0);
    std::vector<std::span<const std::uint32_t>> offsets(p);
    std::vector<std::span<const C>> values(p);
    for (std::size_t img = 0; img < p; ++img) {
      offsets[img] = shares[img].offsets.held();
      values[img] = shares[img].values.held();
      if (img != me)
        counts[img] = offsets[img].size();
    }
    const MPI_Comm comm = runtime::current_comm();
    std::vector<std::uint32_t> joined_offsets;
    const auto mine = runtime::exchange<std::uint32_t, runtime::scratch_allocator<std::uint32_t>>(
        others_end_to_end(offsets, me, joined_offsets), std::span<const std::size_t>(counts), comm);
    runtime::scratch_vector<C> theirs;
    if constexpr (!same) {
      std::vector<C> joined_values;
      theirs = runtime::exchange<C, runtime::scratch_allocator<C>>(
          others_end_to_end(values, me, joined_values), std::span<const std::size_t>(counts), comm);
    }
    apply(mine.data(), theirs.data(), mine.size());
    return true;
  }
}

// Combines bins[indices[u]] op= value(u) with the processor's atomics, straight into the memory
// every image shares (in_place.hpp); the caller began in-place updates (locality.hpp). Checks
// every index first; if any image holds a bad one, nothing is updated anywhere. Collective.
template <class Bins, class Local, class Value>
requires runtime::processor_atomic<typename Bins::value_type>
void in_place_accumulate(
    Bins& bins, const Local& local_indices, Value value, runtime::reduce_op op, index_check& bad) {
  using C = typename Bins::value_type;
  const std::size_t n = bins.size();
  for (const auto k : local_indices) {
    if (static_cast<std::size_t>(k) >= n) {
      bad.note(static_cast<std::size_t>(k));
      break;
    }
  }
  if (!bad.none_anywhere())
    return;
  if constexpr (std::is_same_v<Value, same_value<C>>) {
    combine_same_value_in_place<C>(bins, local_indices, n, value.value, op, this_image(),
                                   num_images());
  } else {
    combine_in_place<C>(bins, local_indices, value, op);
  }
}

}  // namespace pgas::detail
