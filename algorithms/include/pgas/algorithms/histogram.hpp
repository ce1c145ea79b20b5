#pragma once
// pgas::histogram: bins[k] += 1 for every index k any image holds, through the runtime's
// aggregation: updates are counted locally per owner and each owner gets one accumulate.

#include <pgas/algorithms/detail.hpp>
#include <pgas/runtime/aggregation.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/sync.hpp>

#include <cstddef>
#include <optional>
#include <ranges>
#include <string>
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
/// distributed range, whose local part is used). Collective; ends with a sync point. Duplicates
/// are combined before sending, and each image sends one MPI_Accumulate per owner image, never
/// one per update. Memory: one counter per bin on every image for the combining. Throws
/// out_of_range on every image, before anything is sent, if any image holds an index >= the
/// number of bins.
template <class Bins, class Indices>
  requires requires(Bins& b) {
    b.window();
    b.distribution();
    b.local_size_of(std::size_t{});
  }
void histogram(Bins& bins, const Indices& indices) {
  using C = typename Bins::value_type;
  static_assert(runtime::accumulable<C>, "histogram bins must be of an MPI arithmetic type");
  const auto& local_indices = detail::local_part(indices);
  const std::size_t n = bins.size();
  std::optional<std::size_t> bad;
  for (const auto k : local_indices) {
    if (static_cast<std::size_t>(k) >= n) {
      bad = static_cast<std::size_t>(k);
      break;
    }
  }
  if (!runtime::everyone(!bad, runtime::world_comm())) {
    throw out_of_range("pgas::histogram: an index is out of range for " + std::to_string(n) +
                       " bins" + (bad ? " (image " + std::to_string(this_image()) + " holds " +
                                            std::to_string(*bad) + ")"
                                      : std::string(" on another image")));
  }
  std::vector<std::size_t> sizes(num_images());
  for (std::size_t img = 0; img < sizes.size(); ++img) sizes[img] = bins.local_size_of(img);
  runtime::accumulate_batcher<C> batcher(bins.window(), std::move(sizes), runtime::reduce_op::sum,
                                         C{0});
  const auto& dist = bins.distribution();
  for (const auto k : local_indices) {
    const auto i = static_cast<std::size_t>(k);
    batcher.add(dist.owner(i), dist.local_offset(i), C{1});
  }
  batcher.flush();
  sync_all();
}

}  // namespace pgas
