#pragma once
// The walks of a transfer: which elements it names, as runs one image stores `stride` apart
// (a range, a strided range, an index list), handed to a mover one run at a time.

#include <algorithm>
#include <cstddef>
#include <span>

namespace pgas::detail {

// Calls f(buffer position, first element, length, 1) for every run of [first, first + count):
// consecutive global indices one image stores consecutively.
template <class C, class F>
void for_each_range_run(C& c, std::size_t first, std::size_t count, F f) {
  std::size_t i = first;
  const std::size_t end = first + count;
  while (i < end) {
    const std::size_t stop = std::min<std::size_t>(c.run_end(i), end);
    f(i - first, c.element(i), stop - i, std::size_t{1});
    i = stop;
  }
}

// Calls f(buffer position, first element, length, stride) for the elements first + k * stride
// (k < count) that lie in one run of the container: `stride` apart in one image's memory.
template <class C, class F>
void for_each_strided(C& c, std::size_t first, std::size_t stride, std::size_t count, F f) {
  std::size_t k = 0;
  while (k < count) {
    const std::size_t i = first + k * stride;
    const std::size_t end = c.run_end(i);
    const std::size_t in_run = std::min(count - k, (end - 1 - i) / stride + 1);
    f(k, c.element(i), in_run, stride);
    k += in_run;
  }
}

template <class C>
auto range_walk(C& c, std::size_t first, std::size_t count) {
  return [&c, first, count](auto add) { for_each_range_run(c, first, count, add); };
}
template <class C>
auto strided_walk(C& c, std::size_t first, std::size_t stride, std::size_t count) {
  return [&c, first, stride, count](auto add) { for_each_strided(c, first, stride, count, add); };
}
template <class C>
auto list_walk(C& c, std::span<const std::size_t> indices) {
  return [&c, indices](auto add) {
    for (std::size_t k = 0; k < indices.size(); ++k)
      add(k, c.element(indices[k]), std::size_t{1}, std::size_t{1});
  };
}

}  // namespace pgas::detail
