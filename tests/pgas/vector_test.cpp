// pgas::vector: growth in many steps past the attachment limit, resize up and down, reserve,
// clear, shrink, every image reading every element, bad input, algorithms on a vector.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <numeric>
#include <vector>

namespace {

static_assert(std::ranges::random_access_range<pgas::vector<int>>);
static_assert(pgas::distributed_range<pgas::vector<int>>);

using pgas_test::images;
using pgas_test::me;

// Image img appends `per` values img * 1'000'000 + k per round.
long value_of(std::size_t img, std::size_t k) {
  return static_cast<long>(img * 1'000'000 + k);
}

TEST(Vector, starts_empty_or_block_distributed) {
  pgas::vector<long> empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.local().empty());
  pgas::vector<long> v(10, 4L);
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(v.local().size(), pgas::block{}.bind(10, images()).local_size(me()));
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(static_cast<long>(v[i]), 4L);
  pgas::sync_all();
}

TEST(Vector, a_thousand_commits_of_local_growth_and_every_image_reads_everything) {
  pgas::vector<long> v;
  std::size_t appended = 0;
  for (int round = 0; round < 1000; ++round) {
    // Uneven growth: image i appends i+1 values per round (image 0 sometimes none).
    const std::size_t count = round % 7 == 0 && me() == 0 ? 0 : me() + 1;
    for (std::size_t k = 0; k < count; ++k) v.push_back(value_of(me(), appended++));
    EXPECT_EQ(v.uncommitted(), count);
    v.commit();
    EXPECT_EQ(v.uncommitted(), 0u);
    EXPECT_EQ(v.local().size(), appended);
    EXPECT_LE(pgas::detail::window_of(v).attachments(), 1u);
  }
  // Global order: image 0's elements, then image 1's, ...
  std::size_t i = 0;
  bool all_right = true;
  for (std::size_t img = 0; img < images(); ++img) {
    const std::size_t n_img = img == 0 ? 1000 - (1000 + 6) / 7 : 1000 * (img + 1);
    for (std::size_t k = 0; k < n_img; ++k, ++i)
      all_right = all_right && static_cast<long>(v[i]) == value_of(img, k);
  }
  EXPECT_TRUE(all_right);
  EXPECT_EQ(i, v.size());
  pgas::sync_all();
}

TEST(Vector, between_commits_everyone_sees_the_committed_state) {
  pgas::vector<int> v;
  v.push_back(static_cast<int>(me()));
  EXPECT_EQ(v.size(), 0u);  // not yet committed, not even here
  v.commit();
  EXPECT_EQ(v.size(), images());
  v.push_back(7);
  v.emplace_back(8);
  EXPECT_EQ(v.size(), images());
  for (std::size_t i = 0; i < images(); ++i) EXPECT_EQ(static_cast<int>(v[i]), static_cast<int>(i));
  EXPECT_THROW((void)v[images()], pgas::out_of_range);
  v.commit();
  EXPECT_EQ(v.size(), 3 * images());
  EXPECT_EQ(static_cast<int>(v[3 * images() - 1]), 8);
  pgas::sync_all();
}

TEST(Vector, remote_writes_land_and_survive_growth) {
  pgas::vector<long> v(images() * 2);
  v[(2 * me() + 3) % v.size()] = 100 + static_cast<long>(me());
  pgas::sync_all();
  for (int k = 0; k < 100; ++k) v.push_back(-1);  // forces the memory to move at commit
  v.commit();
  for (std::size_t img = 0; img < images(); ++img) {
    // The written slot kept its value through the move; find it by its writer.
    bool found = false;
    for (std::size_t i = 0; i < v.size(); ++i)
      found = found || static_cast<long>(v[i]) == 100 + static_cast<long>(img);
    EXPECT_TRUE(found) << "write of image " << img;
  }
  pgas::sync_all();
}

TEST(Vector, resize_up_and_down_keeps_values_and_rebalances) {
  pgas::vector<long> v;
  for (std::size_t k = 0; k < 5 * (me() + 1); ++k) v.push_back(value_of(me(), k));
  v.commit();
  std::vector<long> before;
  pgas::copy(v, before, 0);
  const std::size_t old = v.size();
  v.resize(old + 13, -5L);
  EXPECT_EQ(v.size(), old + 13);
  EXPECT_EQ(v.local().size(), pgas::block{}.bind(old + 13, images()).local_size(me()));
  std::vector<long> after;
  pgas::copy(v, after, 0);
  if (me() == 0) {
    for (std::size_t i = 0; i < old; ++i) EXPECT_EQ(after[i], before[i]);
    for (std::size_t i = old; i < old + 13; ++i) EXPECT_EQ(after[i], -5L);
  }
  v.resize(3);
  pgas::copy(v, after, 0);
  if (me() == 0) {
    ASSERT_EQ(after.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(after[i], before[i]);
  }
  v.resize(0);
  EXPECT_EQ(v.size(), 0u);
  v.resize(2);
  EXPECT_EQ(static_cast<long>(v[1]), 0L);
  pgas::sync_all();
}

TEST(Vector, reserve_clear_and_shrink) {
  pgas::vector<int> v(10);
  pgas::iota(v, 0);
  v.reserve(1000);
  EXPECT_GE(v.capacity(), pgas::block{}.bind(1000, images()).local_size(me()));
  EXPECT_EQ(v.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(static_cast<int>(v[i]), static_cast<int>(i));
  const std::size_t room = v.capacity();
  while (v.local().size() + v.uncommitted() < room) v.push_back(1);
  v.commit();
  EXPECT_EQ(v.capacity(), room);  // reserved room is used without moving memory
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), v.local().size());
  v.clear();
  EXPECT_EQ(v.size(), 0u);
  v.push_back(3);
  v.commit();
  EXPECT_EQ(v.size(), images());
  EXPECT_EQ(pgas::reduce(v), 3 * static_cast<int>(images()));
  pgas::sync_all();
}

TEST(Vector, algorithms_work_on_a_vector) {
  pgas::vector<long> v;
  for (std::size_t k = 0; k < 100 + me(); ++k)
    v.push_back(static_cast<long>((k * 7919 + me() * 31) % 1000));
  v.commit();
  std::vector<long> all;
  pgas::copy(v, all, 0);
  pgas::sort(v);
  std::vector<long> sorted;
  pgas::copy(v, sorted, 0);
  if (me() == 0) {
    std::sort(all.begin(), all.end());
    EXPECT_EQ(sorted, all);
  }
  pgas::array<long> a(v.size());
  pgas::copy(v, a);  // different layouts: a redistributing copy
  EXPECT_EQ(pgas::reduce(a), pgas::reduce(v));
  pgas::inclusive_scan(v, v);
  EXPECT_EQ(static_cast<long>(v[v.size() - 1]), pgas::reduce(a));
  pgas::sync_all();
}

}  // namespace
