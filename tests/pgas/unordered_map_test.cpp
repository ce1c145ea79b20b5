// pgas::unordered_map: overlapping concurrent inserts give the exact union, deterministic
// winners, counting with accumulate, erase, growth far past the initial capacity, lookups
// from every image.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace {

std::size_t me() {
  return pgas::this_image();
}
std::size_t images() {
  return pgas::num_images();
}

TEST(UnorderedMap, overlapping_inserts_from_every_image_give_the_exact_union) {
  pgas::unordered_map<long, long> m(4);  // tiny on purpose: growth happens at commit
  // Image i inserts keys [100 i, 100 i + 300): neighbours overlap by 200 keys.
  for (long k = 100 * static_cast<long>(me()); k < 100 * static_cast<long>(me()) + 300; ++k) {
    m.insert(k, 1000 * static_cast<long>(me()) + k);
  }
  EXPECT_EQ(m.pending(), 300u);
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

}  // namespace
