#pragma once
// pgas::sort: sample sort. Each image sorts its part, the images agree on splitters from
// regular samples, one all-to-all moves every element to its bucket's image, and a second one
// rebalances so every image again holds exactly its distribution's share.

#include <pgas/algorithms/detail.hpp>
#include <pgas/algorithms/local_sort.hpp>
#include <pgas/algorithms/transform.hpp>
#include <pgas/array.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/sync.hpp>

#include <algorithm>
#include <functional>
#include <vector>

namespace pgas {

namespace detail {

// Merges `counts.size()` consecutive sorted runs of v into one sorted sequence, pairwise, each
// round from v into a buffer of v's allocator and back (std::inplace_merge would take a new
// buffer of its own every call).
template <class T, class Allocator, class Compare>
void merge_runs(std::vector<T, Allocator>& v, std::vector<std::size_t> counts, Compare comp) {
  std::vector<std::size_t> starts{0};
  for (std::size_t c : counts) starts.push_back(starts.back() + c);
  std::vector<T, Allocator> merged;
  while (starts.size() > 2) {
    merged.resize(v.size());
    const auto at = [](auto& w, std::size_t k) {
      return w.begin() + static_cast<std::ptrdiff_t>(k);
    };
    std::vector<std::size_t> next{0};
    for (std::size_t r = 0; r + 2 < starts.size(); r += 2) {
      std::merge(at(v, starts[r]), at(v, starts[r + 1]), at(v, starts[r + 1]), at(v, starts[r + 2]),
                 at(merged, starts[r]), comp);
      next.push_back(starts[r + 2]);
    }
    if (starts.size() % 2 == 0) {  // an odd run waits a round
      std::copy(at(v, starts[starts.size() - 2]), v.end(), at(merged, starts[starts.size() - 2]));
      next.push_back(starts.back());
    }
    v.swap(merged);
    starts = std::move(next);
  }
}

// Sorts an image-ordered range whose local part is contiguous memory of T.
template <class R, class Compare>
void sample_sort(R& r, Compare comp) {
  using T = range_value_t<R>;
  const std::size_t p = num_images();
  auto mine_span = r.local();
  // Every buffer on the kept scratch: tens of megabytes each, which a fresh allocation would
  // fault in (and clear) again on every call.
  runtime::scratch_vector<T> mine(mine_span.begin(), mine_span.end());
  local_sort(mine, comp);
  if (p > 1) {
    // p - 1 regular samples per image, gathered and sorted everywhere; every (p)th is a splitter.
    std::vector<T> samples;
    for (std::size_t s = 1; s < p && !mine.empty(); ++s)
      samples.push_back(mine[s * mine.size() / p]);
    auto all = runtime::allgatherv(std::span<const T>(samples), runtime::current_comm());
    std::sort(all.begin(), all.end(), comp);
    std::vector<T> splitters;
    for (std::size_t s = 1; s < p && !all.empty(); ++s)
      splitters.push_back(all[s * all.size() / p]);
    std::vector<std::size_t> counts(p, 0);
    auto from = mine.begin();
    for (std::size_t t = 0; t < p; ++t) {
      const auto to = t < splitters.size() ? std::upper_bound(from, mine.end(), splitters[t], comp)
                                           : mine.end();
      counts[t] = static_cast<std::size_t>(to - from);
      from = to;
    }
    std::vector<std::size_t> received;
    mine = runtime::exchange<T, runtime::scratch_allocator<T>>(std::span<const T>(mine), counts,
                                                               runtime::current_comm(), &received);
    merge_runs(mine, received, comp);
    // Rebalance: global position of my first element, then send each image its share.
    const std::size_t start = runtime::exclusive_prefix(mine.size(), runtime::reduce_op::sum,
                                                        std::size_t{0}, runtime::current_comm());
    std::vector<std::size_t> share(p, 0);
    std::size_t share_begin = 0;
    for (std::size_t t = 0; t < p; ++t) {
      const std::size_t share_end = share_begin + static_cast<std::size_t>(r.local_size_of(t));
      const std::size_t lo = std::max(start, share_begin);
      const std::size_t hi = std::min(start + mine.size(), share_end);
      share[t] = hi > lo ? hi - lo : 0;
      share_begin = share_end;
    }
    mine = runtime::exchange<T, runtime::scratch_allocator<T>>(std::span<const T>(mine), share,
                                                               runtime::current_comm());
  }
  std::copy(mine.begin(), mine.end(), mine_span.begin());
}

}  // namespace detail

/// Sorts the whole distributed range by comp (not stable). Integers in ascending order are
/// sorted locally by radix sort, anything else by std::sort. Collective; ends with a sync point.
/// A block-distributed container is sorted in place by sample sort; anything else is sorted in
/// a block-distributed copy and copied back.
template <distributed_range R, class Compare = std::less<>>
void sort(R&& r, Compare comp = {}) {
  const auto acting = detail::act_on(r);
  using T = detail::range_value_t<R>;
  const layout l = r.layout();
  if constexpr (requires {
                  r.local_size_of(std::size_t{});
                  r.local().data();
                }) {
    if (l.image_ordered() && l.start == 0 && l.size == l.extent) {
      detail::sample_sort(r, comp);
      sync_all();
      return;
    }
  }
  array<T> tmp(r.size());
  pgas::copy(r, tmp);
  pgas::sort(tmp, comp);
  pgas::copy(tmp, r);
}

}  // namespace pgas
