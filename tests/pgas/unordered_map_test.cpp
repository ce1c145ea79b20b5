// pgas::unordered_map: overlapping concurrent inserts give the exact union, deterministic
// winners, counting with accumulate, erase, growth far past the initial capacity, lookups
// from every image; the async stream (combined at the caller, applied by the owner) against a
// serial replay, with keys kept beside a full table, moves and commit in between.
#include <pgas/detail/keyed_combiner.hpp>
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::me;

TEST(UnorderedMap, overlapping_inserts_from_every_image_give_the_exact_union) {
  pgas::unordered_map<long, long> m(4);  // tiny on purpose: growth happens at commit
  // Image i inserts keys [100 i, 100 i + 300): neighbours overlap by 200 keys.
  for (long k = 100 * static_cast<long>(me()); k < 100 * static_cast<long>(me()) + 300; ++k) {
    m.insert(k, 1000 * static_cast<long>(me()) + k);
  }
  EXPECT_EQ(m.uncommitted(), 300u);
  EXPECT_EQ(m.size(), 0u);  // nothing committed yet
  m.commit();
  const long last = 100 * static_cast<long>(images() - 1) + 300;
  EXPECT_EQ(m.size(), static_cast<std::size_t>(last));
  std::size_t owned = m.local_size();
  EXPECT_EQ(pgas::co_sum(owned), m.size());
  bool all_right = true;
  for (long k = 0; k < last; ++k) {
    // The lowest image that inserted k wins: image max(0, ceil((k - 299) / 100)).
    const long first_image = k < 300 ? 0 : (k - 300) / 100 + 1;
    const auto v = m.find(k);
    all_right = all_right && v && *v == 1000 * first_image + k;
  }
  EXPECT_TRUE(all_right);
  EXPECT_FALSE(m.contains(-1));
  EXPECT_FALSE(m.contains(last));
  pgas::sync_all();
}

TEST(UnorderedMap, accumulate_counts_exactly_and_assign_keeps_the_last) {
  pgas::unordered_map<int, long> counts;
  std::map<int, long> want;
  for (std::size_t img = 0; img < images(); ++img) {
    std::mt19937 gen(static_cast<unsigned>(img) + 5);
    for (int u = 0; u < 2000; ++u) {
      const int k = static_cast<int>(gen() % 500);
      want[k] += 1;
      if (img == me())
        counts.accumulate(k, 1);
    }
  }
  counts.commit();
  EXPECT_EQ(counts.size(), want.size());
  bool exact = true;
  for (const auto& [k, n] : want) exact = exact && counts.find(k) == std::optional<long>(n);
  EXPECT_TRUE(exact);
  counts.insert_or_assign(7, static_cast<long>(me()));
  counts.commit();
  EXPECT_EQ(counts.find(7), std::optional<long>(static_cast<long>(images() - 1)));
  pgas::sync_all();
}

TEST(UnorderedMap, erase_then_reinsert_and_grow_many_times) {
  pgas::unordered_map<std::uint64_t, std::uint64_t> m(1);
  for (int round = 0; round < 20; ++round) {
    for (std::uint64_t k = 0; k < 500; ++k) {
      const std::uint64_t key = (k * images() + me()) * 20 + static_cast<std::uint64_t>(round);
      m.insert(key, key * 3);
    }
    m.commit();
  }
  EXPECT_EQ(m.size(), 500u * images() * 20);
  // Erase the even rounds' keys from image 0 only; everyone sees it after commit.
  if (me() == 0) {
    for (std::uint64_t k = 0; k < 500 * images(); ++k) {
      for (std::uint64_t round = 0; round < 20; round += 2) m.erase(k * 20 + round);
    }
  }
  m.commit();
  EXPECT_EQ(m.size(), 500u * images() * 10);
  bool right = true;
  for (std::uint64_t k = 0; k < 500 * images(); k += 7) {
    right = right && !m.contains(k * 20 + 4) &&
            m.find(k * 20 + 5) == std::optional<std::uint64_t>((k * 20 + 5) * 3);
  }
  EXPECT_TRUE(right);
  // Erased keys can come back.
  if (me() + 1 == images())
    m.insert(4, 44);
  m.commit();
  EXPECT_EQ(m.find(4), std::optional<std::uint64_t>(44));
  std::size_t seen = 0;
  m.for_each_local([&seen](std::uint64_t, std::uint64_t) { ++seen; });
  EXPECT_EQ(seen, m.local_size());
  pgas::sync_all();
}

// The stream one image makes in the async tests: keys in [0, 3000) with many repeats, so that
// the caller's combining matters, and values that tell the images apart.
struct stream_step {
  bool insert;
  long key;
  long value;
};
std::vector<stream_step> async_stream_of(std::size_t image) {
  std::mt19937 gen(static_cast<unsigned>(image) * 7 + 1);
  std::vector<stream_step> steps;
  for (int u = 0; u < 20000; ++u) {
    const bool insert = gen() % 4 == 0;
    const long key = static_cast<long>(gen() % 3000);
    steps.push_back({insert, key, insert ? 1000 + static_cast<long>(image) : key % 7 + 1});
  }
  return steps;
}

TEST(UnorderedMap, async_accumulates_from_every_image_sum_exactly_at_the_owners) {
  // Accumulates only: the result does not depend on arrival order, so the serial replay is exact.
  pgas::unordered_map<long, long> m(4);  // tiny: most keys are kept beside the table at first
  std::map<long, long> want;
  for (std::size_t img = 0; img < images(); ++img) {
    for (const stream_step& s : async_stream_of(img)) {
      want[s.key] += s.key % 7 + 1;
      if (img == me())
        m.async_accumulate(s.key, s.key % 7 + 1);
    }
  }
  pgas::sync_all();  // every image's stream has been applied
  // Every key through futures in flight together; every 7th also through find(), which reads
  // the table one-sidedly and asks the owner, one call at a time, for keys kept beside it.
  std::vector<std::pair<long, pgas::future<std::optional<long>>>> asked;
  for (const auto& [k, n] : want) asked.emplace_back(n, m.async_find(k));
  std::size_t wrong = 0;
  for (auto& [n, answer] : asked) wrong += answer.get() == std::optional<long>(n) ? 0u : 1u;
  EXPECT_EQ(wrong, 0u) << "keys with a wrong sum, asked of the owners";
  wrong = 0;
  for (const auto& [k, n] : want) {
    if (k % 7 == 0)
      wrong += m.find(k) == std::optional<long>(n) ? 0u : 1u;
  }
  EXPECT_EQ(wrong, 0u) << "keys with a wrong sum, read one-sidedly";
  EXPECT_EQ(pgas::co_sum(m.local_size()), want.size());
  EXPECT_FALSE(m.contains(-5));
  EXPECT_FALSE(m.contains(3000));
  // commit() moves the keys kept beside into the table, and counts them.
  m.commit();
  EXPECT_EQ(m.size(), want.size());
  wrong = 0;
  for (const auto& [k, n] : want) wrong += m.find(k) == std::optional<long>(n) ? 0u : 1u;
  EXPECT_EQ(wrong, 0u) << "keys with a wrong sum after commit";
  pgas::sync_all();
}

TEST(UnorderedMap, async_inserts_keep_one_value_and_accumulates_add_to_it) {
  pgas::unordered_map<long, long> m(8);
  // The owner sees one image's inserts and accumulates of a key in call order; images race.
  // So a key's final value is (one inserting image's 1000 + image, if it was inserted before
  // that image or any other accumulated it) + the accumulates after it; the test checks the
  // bounds that hold in every order: the value is the sum of all accumulates, plus either 0 or
  // one inserting image's value.
  std::map<long, long> sums;
  std::map<long, std::vector<long>> inserted;
  for (std::size_t img = 0; img < images(); ++img) {
    for (const stream_step& s : async_stream_of(img)) {
      if (s.insert) {
        inserted[s.key].push_back(s.value);
      } else {
        sums[s.key] += s.value;
      }
      if (img != me())
        continue;
      if (s.insert) {
        m.async_insert(s.key, s.value);
      } else {
        m.async_accumulate(s.key, s.value);
      }
    }
  }
  pgas::sync_all();
  // Answers from the owners, in flight together; every 7th key also read by find().
  std::vector<pgas::future<std::optional<long>>> answers;
  for (long k = 0; k < 3000; ++k) answers.push_back(m.async_find(k));
  std::size_t wrong = 0;
  for (long k = 0; k < 3000; ++k) {
    const auto v = answers[static_cast<std::size_t>(k)].get();
    if (k % 7 == 0 && m.find(k) != v)
      ++wrong;
    const long sum = sums.count(k) ? sums[k] : 0;
    const bool known = sums.count(k) || inserted.count(k);
    if (!known) {
      wrong += v.has_value() ? 1u : 0u;
      continue;
    }
    bool fits = v && *v == sum && sums.count(k);
    for (long first : inserted[k]) fits = fits || (v && *v == sum + first);
    wrong += fits ? 0u : 1u;
  }
  EXPECT_EQ(wrong, 0u);
  pgas::sync_all();
}

TEST(UnorderedMap, async_find_sees_this_images_earlier_async_updates_without_a_sync_point) {
  pgas::unordered_map<long, long> m;
  const long base = 1'000'000 * static_cast<long>(me());
  for (long k = 0; k < 500; ++k) m.async_insert(base + k, k);
  for (long k = 0; k < 500; k += 2) m.async_accumulate(base + k, 1000);
  std::vector<pgas::future<std::optional<long>>> answers;
  for (long k = 0; k < 500; ++k) answers.push_back(m.async_find(base + k));
  auto absent = m.async_find(-1 - base);
  std::size_t wrong = 0;
  for (long k = 0; k < 500; ++k) {
    const auto v = answers[static_cast<std::size_t>(k)].get();
    wrong += v == std::optional<long>(k % 2 == 0 ? k + 1000 : k) ? 0u : 1u;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(absent.get(), std::nullopt);
  pgas::sync_all();
}

TEST(UnorderedMap, async_updates_come_before_the_operations_queued_for_the_same_commit) {
  pgas::unordered_map<long, long> m;
  const long key = 77 + static_cast<long>(me());
  m.async_insert(key, 1);
  m.insert(key, 2);  // queued: finds the key present, does nothing
  m.insert_or_assign(-key, 3);
  m.async_insert(-key, 4);  // applied first, then the queued assign overwrites it
  m.commit();
  EXPECT_EQ(m.find(key), std::optional<long>(1));
  EXPECT_EQ(m.find(-key), std::optional<long>(3));
  pgas::sync_all();
}

TEST(UnorderedMap, a_moved_map_receives_the_async_updates_sent_to_it) {
  pgas::unordered_map<long, long> first(4);
  for (long k = 0; k < 1000; ++k) first.async_accumulate(k, 1);  // held here, partly sent
  pgas::unordered_map<long, long> second(std::move(first));
  for (long k = 0; k < 1000; ++k) second.async_accumulate(k, 1);
  pgas::sync_all();
  std::size_t wrong = 0;
  for (long k = 0; k < 1000; ++k) {
    wrong += second.find(k) == std::optional<long>(2 * static_cast<long>(images())) ? 0u : 1u;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_THROW(first.async_insert(1, 1), pgas::usage_error);
  EXPECT_THROW((void)first.async_find(1), pgas::usage_error);
  pgas::sync_all();
}

// A sync point sends the async updates of the maps that hold some, however many others are
// idle, and a map that held updates at one sync point and none at the next is sent again once
// it holds some again.
TEST(UnorderedMap, a_sync_point_sends_the_held_async_updates_among_idle_maps) {
  std::vector<std::unique_ptr<pgas::unordered_map<long, long>>> maps;
  for (int k = 0; k < 12; ++k) maps.push_back(std::make_unique<pgas::unordered_map<long, long>>());
  for (long round = 1; round <= 3; ++round) {
    for (const std::size_t m : {std::size_t{2}, std::size_t{9}}) {
      for (long key = 0; key < 40; ++key) maps[m]->async_accumulate(key, round);
    }
    pgas::sync_all();
    const long want = static_cast<long>(images()) * round * (round + 1) / 2;
    std::size_t wrong = 0;
    for (const std::size_t m : {std::size_t{2}, std::size_t{9}}) {
      for (long key = 0; key < 40; ++key) wrong += maps[m]->find(key) == want ? 0u : 1u;
    }
    EXPECT_EQ(wrong, 0u) << "round " << round;
    EXPECT_EQ(pgas::co_sum(maps[5]->local_size()), 0u);
    pgas::sync_all();
  }
}

TEST(KeyedCombiner, repeated_keys_are_combined_where_they_are_made_within_a_bounded_batch) {
  pgas::detail::keyed_combiner<int, long> held(3, 16);
  const auto same = [](int a, int b) { return a == b; };
  bool full = false;
  for (int u = 0; u < 1000; ++u) {
    full = held.accumulate(1, u % 10, static_cast<std::uint64_t>(u % 10) * 0x9e3779b9u, 2L, same);
    ASSERT_FALSE(full);
  }
  held.insert(1, 3, 3u * 0x9e3779b9u, 99L, same);  // 3 is present: the insert does nothing
  held.insert(1, 50, 50u * 0x9e3779b9u, 7L, same);
  held.accumulate(1, 50, 50u * 0x9e3779b9u, 1L, same);
  ASSERT_EQ(held.held(1).size(), 11u);
  for (const auto& u : held.held(1)) {
    if (u.key == 50) {
      EXPECT_TRUE(u.has_insert && u.has_sum);
      EXPECT_EQ(u.inserted, 7);
      EXPECT_EQ(u.sum, 1);
    } else {
      EXPECT_FALSE(u.has_insert);
      EXPECT_EQ(u.sum, 200);
    }
  }
  EXPECT_TRUE(held.held(0).empty());
  for (int k = 100; k < 104; ++k) full = held.insert(1, k, static_cast<std::uint64_t>(k), 1L, same);
  EXPECT_FALSE(full);
  full = held.insert(1, 104, 104u, 1L, same);
  EXPECT_TRUE(full);  // 16 distinct keys: the batch must go
  held.clear(1);
  EXPECT_TRUE(held.held(1).empty());
  EXPECT_FALSE(held.accumulate(1, 5, 5u, 1L, same));
  EXPECT_EQ(held.held(1).size(), 1u);
}

}  // namespace
