// pgas::aggregator: streams of small updates held within a capacity and sent as one accumulate
// per owner; exact XOR replay from several images at once, duplicates, every sync point sending
// what is held, different numbers of updates per image, over block, cyclic, block_cyclic(7)
// and vector. Also registered with PGAS_SHARED_MEMORY=0.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::me;

struct block_table {
  using type = pgas::array<std::uint64_t, pgas::block>;
  static type make(std::size_t n) { return type(n); }
};
struct cyclic_table {
  using type = pgas::array<std::uint64_t, pgas::cyclic>;
  static type make(std::size_t n) { return type(n); }
};
struct block_cyclic_table {
  using type = pgas::array<std::uint64_t, pgas::block_cyclic>;
  static type make(std::size_t n) { return type(n, pgas::block_cyclic(7)); }
};
struct vector_table {
  using type = pgas::vector<std::uint64_t>;
  static type make(std::size_t n) { return type(n); }
};

template <class Maker>
class Aggregator : public ::testing::Test {};
using Tables = ::testing::Types<block_table, cyclic_table, block_cyclic_table, vector_table>;
TYPED_TEST_SUITE(Aggregator, Tables);

// Image img's stream: a different length on every image, random indices (with repeats).
std::vector<std::pair<std::size_t, std::uint64_t>> stream_of(std::size_t img, std::size_t n) {
  std::mt19937_64 gen(1000 + img);
  std::vector<std::pair<std::size_t, std::uint64_t>> out(3 * n + 17 * img);
  for (auto& [i, v] : out) {
    v = gen();
    i = static_cast<std::size_t>(v % n);
  }
  return out;
}

TYPED_TEST(Aggregator, xor_streams_from_every_image_replay_exactly_at_any_capacity) {
  const std::size_t n = 1000;
  for (std::size_t capacity :
       {std::size_t{1}, std::size_t{7}, std::size_t{1024}, std::size_t{100000}}) {
    auto t = TypeParam::make(n);
    for (std::size_t k = 0; k < t.local().size(); ++k) t.local()[k] = t.global_index(k);
    pgas::sync_all();
    for (int pass = 0; pass < 2; ++pass) {
      pgas::aggregator agg(t, pgas::reduce_op::bxor, capacity);
      for (const auto& [i, v] : stream_of(me(), n)) {
        agg.add(i, v);
        EXPECT_LE(agg.held_updates(), capacity);
      }
      pgas::sync_all();  // sends what the aggregator holds, then completes it everywhere
      EXPECT_EQ(agg.held_updates(), 0u);
      if (pass == 0) {
        // Once: every element is its index XOR every update of it from every image.
        std::vector<std::uint64_t> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = i;
        for (std::size_t img = 0; img < images(); ++img) {
          for (const auto& [i, v] : stream_of(img, n)) want[i] ^= v;
        }
        for (std::size_t k = 0; k < t.local().size(); ++k) {
          EXPECT_EQ(t.local()[k], want[t.global_index(k)]) << "capacity " << capacity;
        }
        pgas::sync_all();
      }
    }
    // Twice is nothing: XOR is its own inverse.
    for (std::size_t k = 0; k < t.local().size(); ++k) EXPECT_EQ(t.local()[k], t.global_index(k));
    pgas::sync_all();
  }
}

TEST(AggregatorSums, duplicates_combine_and_each_sync_point_sends_what_is_held) {
  pgas::array<long, pgas::cyclic> a(3 * images() + 1);
  {
    pgas::aggregator agg(a, pgas::reduce_op::sum, 64);
    for (int k = 0; k < 10; ++k) agg.add(0, 1);  // one index ten times: combined into one
    agg.add(a.size() - 1, 5);
    EXPECT_EQ(agg.held_updates(), 11u);
    pgas::sync_memory();  // this image's updates complete; others see them after a sync
    EXPECT_EQ(agg.held_updates(), 0u);
    pgas::sync_all();
    EXPECT_EQ(static_cast<long>(a[0]), 10 * static_cast<long>(images()));
    EXPECT_EQ(static_cast<long>(a[a.size() - 1]), 5 * static_cast<long>(images()));
    pgas::sync_all();
    // sync_images sends too: each image updates its right neighbour's first element.
    const std::size_t right = (me() + 1) % images();
    const std::size_t left = (me() + images() - 1) % images();
    std::vector<std::size_t> neighbours{left};
    if (right != left)
      neighbours.push_back(right);
    agg.add(right, 100);
    pgas::sync_images(neighbours);
    EXPECT_EQ(agg.held_updates(), 0u);
    pgas::sync_images(neighbours);
    if (images() > 1) {
      EXPECT_EQ(static_cast<long>(a[me()]),
                100 + (me() == 0 ? 10 * static_cast<long>(images()) : 0));
    }
    pgas::sync_all();  // every image has read before any sends more
    agg.add(1, 2);
    agg.add(1, 3);
  }  // the destructor sends what is left
  pgas::sync_all();
  // Element 1 also got image 0's 100 when image 1 is its right neighbour.
  EXPECT_EQ(static_cast<long>(a[1]), 5 * static_cast<long>(images()) + (images() > 1 ? 100 : 0));
  pgas::sync_all();
}

// Each kind of sync point alone delivers what an aggregator holds: the image to the right reads
// the update after nothing but that sync point (and, for sync_memory, a flag it orders).
TEST(AggregatorSums, each_kind_of_sync_point_alone_sends_what_is_held) {
  const std::size_t right = (me() + 1) % images();
  const std::size_t left = (me() + images() - 1) % images();
  std::vector<std::size_t> neighbours{left};
  if (right != left)
    neighbours.push_back(right);
  pgas::array<long> a(images());  // element i on image i
  pgas::array<std::int64_t> flag(images());
  pgas::event ev;
  pgas::aggregator agg(a, pgas::reduce_op::sum, 64);
  long expected = 0;  // what the left neighbour has added to this image's element so far
  const auto round = [&](const char* kind, auto sync_point) {
    agg.add(right, 7);
    expected += 7;
    sync_point();
    EXPECT_EQ(agg.held_updates(), 0u) << kind;
    EXPECT_EQ(a.local()[0], expected) << kind;
    pgas::sync_all();  // nobody adds again before every image has read
  };
  round("sync_all", [] { pgas::sync_all(); });
  round("sync_images", [&] { pgas::sync_images(neighbours); });
  round("event post and wait", [&] {
    ev.post(right);
    ev.wait();
  });
  round("sync_memory then a flag", [&] {
    pgas::sync_memory();
    flag[right].atomic_store(static_cast<std::int64_t>(expected));
    const pgas::global_ref<std::int64_t> mine = flag[me()];
    while (mine.atomic_load() != static_cast<std::int64_t>(expected)) pgas::progress();
    pgas::sync_memory();
  });
}

TEST(AggregatorSums, images_add_different_numbers_and_flush_at_different_times) {
  pgas::array<long> a(5 * images());
  pgas::aggregator agg(a, pgas::reduce_op::sum, 3);
  for (std::size_t k = 0; k < 10 * (me() + 1); ++k) {
    agg.add(k % a.size(), 1);
    if (k % (me() + 2) == 0)
      agg.flush();  // whenever this image likes, not collectively
  }
  pgas::sync_all();
  long total = 0;
  for (long x : a.local()) total += x;
  EXPECT_EQ(pgas::co_sum(total), 10 * static_cast<long>(images() * (images() + 1) / 2));
  pgas::sync_all();
}

TEST(AggregatorSums, a_container_destroyed_first_receives_what_was_held_for_it) {
  std::optional<pgas::aggregator<pgas::array<long>>> agg;
  long seen = 0;
  {
    pgas::array<long> a(images());
    agg.emplace(a, pgas::reduce_op::sum, 100);
    agg->add(me(), 5);
    {
      const pgas::array<long> other(3);  // destroying any container sends held updates first
    }
    EXPECT_EQ(agg->held_updates(), 0U);
    pgas::sync_all();
    seen = a.local()[0];
    pgas::sync_all();                    // every image has read before the next update can land
    agg->add((me() + 1) % images(), 7);  // still held when a goes
    EXPECT_EQ(agg->held_updates(), 1U);
  }
  // a's destruction sent the held update before its window went, rather than dropping it; the
  // aggregator then refuses new updates for the container that is gone.
  EXPECT_EQ(agg->held_updates(), 0U);
  EXPECT_THROW(agg->add(0, 1), pgas::usage_error);
  EXPECT_EQ(seen, 5);
  agg.reset();
  pgas::sync_all();
}

// A sync point sends what the aggregators that hold updates hold, however many others are idle
// (it visits only those), round after round, and an aggregator destroyed while another's
// updates are held leaves them to be sent.
TEST(AggregatorSums, a_sync_point_sends_the_holding_aggregators_among_idle_ones) {
  pgas::array<long> a(images());
  std::vector<std::unique_ptr<pgas::aggregator<pgas::array<long>>>> aggs;
  for (int k = 0; k < 20; ++k) {
    aggs.push_back(
        std::make_unique<pgas::aggregator<pgas::array<long>>>(a, pgas::reduce_op::sum, 16));
  }
  const std::size_t right = (me() + 1) % images();
  long expected = 0;
  for (long round = 1; round <= 3; ++round) {
    aggs[3]->add(right, round);
    aggs[17]->add(right, 10 * round);
    const auto gone = static_cast<std::size_t>(4 + round);
    aggs[gone]->add(right, 100);  // held, then destroyed:
    aggs[gone].reset();           // it sends what it holds as it goes
    expected += 11 * round + 100;
    pgas::sync_all();
    EXPECT_EQ(a.local()[0], expected) << "round " << round;
    EXPECT_EQ(aggs[3]->held_updates() + aggs[17]->held_updates(), 0u);
    pgas::sync_all();
  }
}

// An aggregator on a vector checks each index against the vector's size when it is added,
// after the vector shrank or grew.
TEST(AggregatorSums, an_index_is_checked_against_the_vectors_size_now) {
  pgas::vector<long> v(4 * images());
  pgas::aggregator agg(v, pgas::reduce_op::sum, 8);
  v.resize(images());
  EXPECT_THROW(agg.add(2 * images(), 1), pgas::out_of_range);
  v.resize(8 * images());
  agg.add(7 * images(), 1);
  pgas::sync_all();
  long total = 0;
  for (long x : v.local()) total += x;
  EXPECT_EQ(pgas::co_sum(total), static_cast<long>(images()));
  pgas::sync_all();
}

TEST(AggregatorSums, moving_keeps_the_held_updates) {
  pgas::array<long> a(2 * images());
  pgas::aggregator first(a, pgas::reduce_op::sum, 10);
  first.add(0, 1);
  pgas::aggregator second = std::move(first);
  EXPECT_EQ(second.held_updates(), 1u);
  EXPECT_THROW(first.add(0, 1), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  pgas::sync_all();
  EXPECT_EQ(static_cast<long>(a[0]), static_cast<long>(images()));
  pgas::sync_all();
}

}  // namespace
