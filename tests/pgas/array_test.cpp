// pgas::array over every distribution: element access from every image against a serial
// reference, local parts, segments, iterators with ranges algorithms. Bad input is tested in
// tests/reliability/bad_input_catalogue.cpp.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>
#include <range/v3/algorithm/copy.hpp>
#include <range/v3/algorithm/count.hpp>
#include <range/v3/algorithm/find.hpp>
#include <range/v3/range/concepts.hpp>
#include <range/v3/view/iota.hpp>
#include <ranges>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <vector>

namespace {

static_assert(std::ranges::random_access_range<pgas::array<int>>);
static_assert(std::ranges::random_access_range<const pgas::array<int>>);
static_assert(std::ranges::sized_range<pgas::array<int>>);
static_assert(ranges::random_access_range<pgas::array<int>>);
static_assert(ranges::random_access_range<pgas::array<double, pgas::cyclic>>);
static_assert(std::random_access_iterator<pgas::array<int>::iterator>);
static_assert(std::indirectly_writable<pgas::array<int>::iterator, int>);
static_assert(!std::indirectly_writable<pgas::array<int>::const_iterator, int>);
static_assert(!std::is_copy_constructible_v<pgas::array<int>>);
static_assert(std::is_nothrow_move_constructible_v<pgas::array<int>>);

template <class Dist>
Dist make_dist() {
  if constexpr (std::is_same_v<Dist, pgas::block_cyclic>) {
    return pgas::block_cyclic(3);
  } else {
    return Dist{};
  }
}

template <class Dist>
class Array : public ::testing::Test {};
using Distributions = ::testing::Types<pgas::block, pgas::cyclic, pgas::block_cyclic>;
TYPED_TEST_SUITE(Array, Distributions);

// 0, 1, fewer than images, uneven, larger.
const std::vector<std::size_t> array_lengths = {0, 1, 3, 10, 1001};

TYPED_TEST(Array, every_image_reads_what_others_wrote) {
  for (std::size_t n : array_lengths) {
    pgas::array<long, TypeParam> a(n, make_dist<TypeParam>());
    EXPECT_EQ(a.size(), n);
    // Each image writes a strided share, mostly remote.
    for (std::size_t i = pgas::this_image(); i < n; i += pgas::num_images())
      a[i] = 3 * static_cast<long>(i) + 1;
    pgas::sync_all();
    std::vector<long> got(n);
    for (std::size_t i = 0; i < n; ++i) got[i] = a[i];
    std::vector<long> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 3 * static_cast<long>(i) + 1;
    EXPECT_EQ(got, want) << "n=" << n;
    pgas::sync_all();  // no image frees the window while another still reads it
  }
}

TYPED_TEST(Array, local_parts_and_segments_cover_every_index_once) {
  for (std::size_t n : array_lengths) {
    pgas::array<std::size_t, TypeParam> a(n, make_dist<TypeParam>());
    auto mine = a.local();
    EXPECT_EQ(mine.size(), a.distribution().local_size(pgas::this_image()));
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = a.global_index(k);
    pgas::sync_all();
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(static_cast<std::size_t>(a[i]), i);
      EXPECT_EQ(a.owner(i), a.distribution().owner(i));
    }
    std::size_t next = 0;
    for (const pgas::segment& s : a.segments()) {
      EXPECT_EQ(s.global_begin, next);
      EXPECT_GT(s.size, 0u);
      for (std::size_t k = 0; k < s.size; ++k) {
        EXPECT_EQ(a.owner(s.global_begin + k), s.image);
        EXPECT_EQ(a.distribution().local_offset(s.global_begin + k), s.local_begin + k);
      }
      next += s.size;
    }
    EXPECT_EQ(next, n);
    pgas::sync_all();
  }
}

TYPED_TEST(Array, ranges_algorithms_and_range_for_work_over_the_whole_array) {
  const std::size_t n = 37;
  pgas::array<int, TypeParam> a(n, make_dist<TypeParam>());
  if (pgas::this_image() == 0) {
    ranges::copy(ranges::views::iota(0, static_cast<int>(n)), a.begin());
  }
  pgas::sync_all();
  long sum = 0;
  for (int v : a) sum += v;
  EXPECT_EQ(sum, static_cast<long>(n * (n - 1) / 2));
  EXPECT_EQ(std::ranges::count_if(a, [](int v) { return v % 2 == 0; }), 19);
  EXPECT_EQ(ranges::count(a, 5), 1);
  const auto it = ranges::find(a, 20);
  EXPECT_EQ(it - a.begin(), 20);
  const pgas::array<int, TypeParam>& ca = a;
  EXPECT_TRUE(std::ranges::is_sorted(ca));
  EXPECT_EQ(*std::ranges::max_element(ca), static_cast<int>(n) - 1);
  pgas::sync_all();
  if (pgas::this_image() == 0)
    std::ranges::reverse(a);
  pgas::sync_all();
  EXPECT_EQ(static_cast<int>(a[0]), static_cast<int>(n) - 1);
  EXPECT_EQ(static_cast<int>(a[n - 1]), 0);
  pgas::sync_all();
}

TYPED_TEST(Array, assigning_one_element_to_another_copies_the_value) {
  pgas::array<double, TypeParam> a(8, make_dist<TypeParam>(), 0.0);
  pgas::array<double, pgas::block> b(8);
  if (pgas::this_image() == 0) {
    for (std::size_t i = 0; i < 8; ++i) b[i] = 0.5 * static_cast<double>(i);
  }
  pgas::sync_all();
  if (pgas::this_image() + 1 == pgas::num_images()) {
    for (std::size_t i = 0; i < 8; ++i) a[i] = b[7 - i];
  }
  pgas::sync_all();
  for (std::size_t i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(a[i], 0.5 * static_cast<double>(7 - i));
  pgas::sync_all();
}

TYPED_TEST(Array, a_million_elements_with_an_initial_value) {
  const std::size_t n = 1'000'000;
  pgas::array<int, TypeParam> a(n, make_dist<TypeParam>(), 7);
  long local_sum = 0;
  for (int v : a.local()) local_sum += v;
  EXPECT_EQ(pgas::co_sum(local_sum), 7L * static_cast<long>(n));
  EXPECT_EQ(static_cast<int>(a[n - 1]), 7);
  pgas::sync_all();
}

TEST(ArrayView, exposes_caller_memory_that_others_write_into) {
  const auto d = pgas::block{}.bind(10, pgas::num_images());
  std::vector<int> memory(d.local_size(pgas::this_image()), -1);
  {
    pgas::array_view<int> view(memory, 10);
    EXPECT_EQ(view.local().data(), memory.data());
    if (pgas::this_image() == 0) {
      for (std::size_t i = 0; i < 10; ++i) view[i] = static_cast<int>(i * i);
    }
    pgas::sync_all();
    for (std::size_t k = 0; k < memory.size(); ++k) {
      const auto i = d.global_index(pgas::this_image(), k);
      EXPECT_EQ(memory[k], static_cast<int>(i * i));
    }
    pgas::sync_all();
  }
  // The memory outlives the view and keeps the values.
  if (!memory.empty()) {
    EXPECT_EQ(memory[0],
              static_cast<int>(d.first_of(pgas::this_image()) * d.first_of(pgas::this_image())));
  }
}

}  // namespace
