#pragma once
// What the algorithm tests share: the distributions they are typed over, the sizes they run
// at, and a serial reference computed alike on every image.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

namespace pgas_test {

template <class Dist>
Dist make_dist() {
  if constexpr (std::is_same_v<Dist, pgas::block_cyclic>) {
    return pgas::block_cyclic(4);
  } else {
    return Dist{};
  }
}

template <class Dist>
class Algorithms : public ::testing::Test {};
using Distributions = ::testing::Types<pgas::block, pgas::cyclic, pgas::block_cyclic>;

// The largest gives each of 4 images more than the runtime's 64 KiB staging chunk of elements.
inline const std::vector<std::size_t> sizes = {0, 1, 3, 10, 1001, 40000};

// The same pseudo-random values on every image.
inline std::vector<long> reference_values(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::vector<long> v(n);
  for (auto& x : v) x = static_cast<long>(gen() % 1000) - 500;
  return v;
}

// Fills a distributed range from the serial reference through its local part.
template <class A>
void load(A& a, const std::vector<long>& ref) {
  auto mine = a.local();
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = ref[a.global_index(k)];
  pgas::sync_all();
}

// How many elements of this image's part differ from want(global index): each image checks its
// own part against the serial reference, independently of the library's movers.
template <class A, class F>
std::size_t mismatches(A& a, F want) {
  std::size_t wrong = 0;
  const auto mine = a.local();
  for (std::size_t k = 0; k < mine.size(); ++k)
    wrong += mine[k] != want(a.global_index(k)) ? 1u : 0u;
  return wrong;
}

template <class A>
std::vector<long> gather(A& a) {
  std::vector<long> out;
  pgas::copy(a, out, 0);
  return out;
}

}  // namespace pgas_test
