#pragma once
// pgas::for_each, pgas::fill, pgas::iota: owner computes on the local part.

#include <pgas/algorithms/detail.hpp>
#include <pgas/sync.hpp>

#include <algorithm>

namespace pgas {

/// Calls f on every element this image owns. Collective; ends with a sync point, so what f
/// wrote is visible to every image afterwards.
template <distributed_range R, class F>
void for_each(R&& r, F f) {
  const auto acting = detail::act_on(r);
  for (auto&& x : r.local()) f(x);
  sync_all();
}

/// Sets every element to v. Collective; ends with a sync point.
template <distributed_range R, class T>
void fill(R&& r, const T& v) {
  const auto acting = detail::act_on(r);
  auto&& mine = r.local();
  std::fill(std::ranges::begin(mine), std::ranges::end(mine), v);
  sync_all();
}

/// Sets element i to start + i. Collective; ends with a sync point.
template <distributed_range R, class T>
void iota(R&& r, const T& start) {
  const auto acting = detail::act_on(r);
  auto&& mine = r.local();
  std::size_t k = 0;
  for (auto&& x : mine) x = static_cast<T>(start + static_cast<T>(r.global_index(k++)));
  sync_all();
}

}  // namespace pgas
