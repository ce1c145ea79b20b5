// One image's writes to one element take effect in program order — put after put, put after
// accumulate, accumulate after put — with no sync point between them, through every kind of
// write (element assignment and compound assignment, ranges, strided, scatter, async put,
// scatter_accumulate), to peers and to this image's own elements, over block, cyclic and a
// vector (dynamic window). MPI leaves overlapping puts in one epoch undefined, so the library
// orders them itself; registered with PGAS_SHARED_MEMORY=0 too, where every peer is reached
// through MPI, and there also with PGAS_TEST_REORDER_PUTS=1, where the test's MPI layer
// (support/reordering_rma.cpp) issues each flush's puts in reverse, as MPI may: without the
// library's ordering these tests then fail (the MPIs here keep issue order by themselves).
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <numeric>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::me;

struct block_array {
  using type = pgas::array<long, pgas::block>;
};
struct cyclic_array {
  using type = pgas::array<long, pgas::cyclic>;
};
struct growable_vector {
  using type = pgas::vector<long>;
};

template <class Maker>
class WriteOrder : public ::testing::Test {};
using Containers = ::testing::Types<block_array, cyclic_array, growable_vector>;
TYPED_TEST_SUITE(WriteOrder, Containers);

// The elements this image writes: every p-th from `me`, so no two images write one element.
std::vector<std::size_t> mine_to_write(std::size_t n) {
  std::vector<std::size_t> out;
  for (std::size_t i = me(); i < n; i += images()) out.push_back(i);
  return out;
}

TYPED_TEST(WriteOrder, element_puts_and_accumulates_land_in_program_order) {
  const std::size_t n = 13 * images() + 5;
  typename TypeParam::type a(n);
  pgas::sync_all();
  for (std::size_t i : mine_to_write(n)) {
    a[i] = 1;
    a[i] += 10;                        // accumulate after put
    a[i] = 5;                          // put after accumulate
    a[i] += 2;                         // accumulate after put
    a[i] *= 3;                         // accumulate after accumulate
    a[i] = static_cast<long>(i) + 21;  // put after accumulate
    a[i] = static_cast<long>(i) + 7;   // put after put
    a[i] += 14;
  }
  pgas::sync_all();
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(a[i].get(), static_cast<long>(i) + 21) << i;
}

TYPED_TEST(WriteOrder, an_image_reads_its_own_accumulates_at_once) {
  typename TypeParam::type a(4 * images());
  pgas::sync_all();
  const std::size_t i = 4 * me() + 1;
  a[i] += 5;
  EXPECT_EQ(a[i].get(), 5);
  a[i] = 3;
  a[i] += 4;
  EXPECT_EQ(a[i].get(), 7);
  pgas::sync_all();
}

TYPED_TEST(WriteOrder, overlapping_range_and_strided_puts_keep_the_later_values) {
  const std::size_t n = 40 * images();
  typename TypeParam::type a(n);
  pgas::sync_all();
  if (me() == images() - 1) {  // one writer, ranges crossing every owner
    std::vector<long> first(n, 1);
    pgas::put(a, 0, std::span<const long>(first));
    std::vector<long> second(n / 2, 2);
    pgas::put(a, n / 4, std::span<const long>(second));  // overlaps the middle
    std::vector<long> third(n / 3, 3);
    pgas::put_strided(a, 1, 3, std::span<const long>(third));  // every third, over both
    const std::vector<long> fourth{4, 4};  // untouched until the future is ready, as async_put asks
    auto pending = pgas::async_put(a, n - 2, std::span<const long>(fourth));
    pending.wait();
    std::vector<long> fifth(1, 5);
    pgas::put(a, n - 1, std::span<const long>(fifth));  // after the async one
  }
  pgas::sync_all();
  for (std::size_t i = 0; i < n; ++i) {
    long want = 1;
    if (i >= n / 4 && i < n / 4 + n / 2)
      want = 2;
    if (i % 3 == 1 && (i - 1) / 3 < n / 3)
      want = 3;
    if (i >= n - 2)
      want = i == n - 1 ? 5 : 4;
    EXPECT_EQ(a[i].get(), want) << i;
  }
}

TYPED_TEST(WriteOrder, scatter_accumulate_then_scatter_then_accumulate_again) {
  const std::size_t n = 30 * images();
  typename TypeParam::type a(n);
  pgas::sync_all();
  const std::vector<std::size_t> idx = mine_to_write(n);
  const std::vector<long> tens(idx.size(), 10);
  std::vector<long> values(idx.size());
  std::iota(values.begin(), values.end(), 100);
  pgas::scatter_accumulate(a, std::span<const std::size_t>(idx), std::span<const long>(tens),
                           pgas::reduce_op::sum);
  pgas::scatter(a, std::span<const std::size_t>(idx),
                std::span<const long>(values));  // put after accumulate
  pgas::scatter_accumulate(a, std::span<const std::size_t>(idx), std::span<const long>(tens),
                           pgas::reduce_op::sum);
  pgas::sync_all();
  for (std::size_t k = 0; k < idx.size(); ++k) EXPECT_EQ(a[idx[k]].get(), values[k] + 10) << idx[k];
}

TYPED_TEST(WriteOrder, many_scattered_puts_then_overwrites_of_the_first_ones) {
  // More distinct pending writes to one target than the runtime keeps a record of.
  const std::size_t n = 600 * images();
  typename TypeParam::type a(n);
  pgas::sync_all();
  const std::vector<std::size_t> idx = mine_to_write(n);
  for (std::size_t k = 0; k < idx.size(); k += 2) a[idx[k]] = 1;  // gaps: no range merges
  for (std::size_t k = 0; k < idx.size(); k += 2) a[idx[k]] = 2;
  pgas::sync_all();
  for (std::size_t k = 0; k < idx.size(); ++k)
    EXPECT_EQ(a[idx[k]].get(), k % 2 == 0 ? 2 : 0) << idx[k];
}

}  // namespace
