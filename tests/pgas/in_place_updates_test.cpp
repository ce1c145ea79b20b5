// Accumulates and atomics from every image at once, through every path the library has
// (global_ref compound assignment and atomics, scatter_accumulate, accumulate_at, histogram,
// an aggregator) aimed at the same elements with no sync point between them: every update
// must count exactly once, whether the window is updated in place (one node) or by MPI (also
// registered with PGAS_SHARED_MEMORY=0). Also: which windows are updated in place, and ops
// MPI does not define.
#include <pgas/algorithms.hpp>
#include <pgas/runtime/in_place_updates.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/team_window.hpp>

#include <gtest/gtest.h>

#include "../support/one_node.hpp"
#include "../support/ring_neighbours.hpp"
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::me;
using pgas_test::world_on_one_node;

bool shared_memory_wanted() {
  const char* v = std::getenv("PGAS_SHARED_MEMORY");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

TEST(InPlaceUpdates, every_path_counts_every_update_once_when_all_images_hit_the_same_elements) {
  constexpr std::size_t n = 16;
  constexpr std::size_t rounds = 300;
  pgas::array<long, pgas::cyclic> a(n);
  {
    pgas::aggregator agg(a, pgas::reduce_op::sum, 5);
    std::vector<std::size_t> indices(n);
    std::vector<long> ones(n, 1);
    for (std::size_t i = 0; i < n; ++i) indices[i] = i;
    for (std::size_t r = 0; r < rounds; ++r) {
      const std::size_t i = r % n;
      a[i] += 1;                          // 1 per round
      (void)a[(i + 1) % n].fetch_add(2);  // 2 per round
      agg.add((i + 2) % n, 3);            // 3 per round
      if (r % n == 0)
        pgas::scatter_accumulate(a, std::span<const std::size_t>(indices),
                                 std::span<const long>(ones), pgas::reduce_op::sum);
    }
  }  // the aggregator sends the rest
  pgas::sync_all();
  std::vector<long> per_image(n, 0);  // what one image's rounds add, replayed here
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i = r % n;
    per_image[i] += 1;
    per_image[(i + 1) % n] += 2;
    per_image[(i + 2) % n] += 3;
    if (i == 0) {
      for (long& e : per_image) e += 1;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(a[i].get(), per_image[i] * static_cast<long>(images())) << i;
}

// On one node the owners apply aggregators' batches with plain stores until an image starts
// updating in place; here the last image starts halfway, while the others' batches stream in.
// Four containers one after another, each on the last one's window (from the pool): each
// starts plain again.
TEST(InPlaceUpdates, an_image_starting_atomics_amid_batches_applied_plainly_loses_no_update) {
  constexpr std::size_t n = 16;
  constexpr std::size_t rounds = 20000;
  const bool starts_atomics = me() == images() - 1;
  std::vector<long> expected(n, 0);
  for (std::size_t img = 0; img < images(); ++img) {
    for (std::size_t r = 0; r < rounds; ++r) {
      expected[(r + img) % n] += 1;
      if (img == images() - 1 && r >= rounds / 2)
        expected[(r * 7) % n] += 10;
    }
  }
  for (int container = 0; container < 4; ++container) {
    pgas::array<long, pgas::cyclic> a(n);
    {
      pgas::aggregator agg(a, pgas::reduce_op::sum, 7);
      for (std::size_t r = 0; r < rounds; ++r) {
        agg.add((r + me()) % n, 1);
        if (starts_atomics && r >= rounds / 2)
          (void)a[(r * 7) % n].fetch_add(10);
      }
    }  // the aggregator sends the rest
    pgas::sync_all();
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(a[i].get(), expected[i]) << "container " << container << ", element " << i;
    pgas::sync_all();
  }
}

// The handshake itself (runtime/src/update_exclusion.hpp): on a shared window an owner may apply
// a batch with plain stores, and images may send it batches, until one image updates the
// container in place; after that no owner may, on any image, and nobody sends. Where owners
// apply every update (no shared memory) they always may.
TEST(InPlaceUpdates, an_owner_applies_batches_plainly_only_until_an_image_updates_in_place) {
  pgas::array<long> a(4 * images());
  pgas::runtime::window& w = pgas::detail::window_of(a);
  const bool shared = w.flavor() == pgas::runtime::window_flavor::shared;
  pgas::sync_all();
  EXPECT_TRUE(w.owners_can_apply_batches());
  ASSERT_TRUE(w.begin_plain_updates());
  w.end_plain_updates();
  pgas::sync_all();
  if (me() == images() - 1)
    (void)a[0].fetch_add(1);  // in place on one node; by the owner through MPI
  pgas::sync_all();
  if (shared) {
    EXPECT_FALSE(w.owners_can_apply_batches());
    EXPECT_FALSE(w.begin_plain_updates());
  } else {
    EXPECT_TRUE(w.owners_can_apply_batches());
    ASSERT_TRUE(w.begin_plain_updates());
    w.end_plain_updates();
  }
  EXPECT_EQ(a[0].get(), 1);
  pgas::sync_all();
}

TEST(InPlaceUpdates, collective_accumulates_and_histograms_add_to_what_one_sided_updates_left) {
  constexpr std::size_t n = 40;
  pgas::array<long> a(n);
  a[me() % n] += 5;  // before the collective calls, no sync point between
  std::vector<std::size_t> indices(3 * n);
  for (std::size_t k = 0; k < indices.size(); ++k) indices[k] = k % n;
  pgas::histogram(a, indices);  // ends with a sync point
  std::vector<long> twos(indices.size(), 2);
  pgas::accumulate_at(a, std::span<const std::size_t>(indices), std::span<const long>(twos),
                      pgas::reduce_op::sum);
  const auto p = static_cast<long>(images());
  for (std::size_t i = 0; i < n; ++i) {
    const long fives = i < images() ? 5 : 0;
    EXPECT_EQ(a[i].get(), 3 * p + 6 * p + fives) << i;
  }
}

TEST(InPlaceUpdates, floating_point_sums_min_max_and_exchange_are_atomic) {
  pgas::array<double> a(3);
  if (me() == 0) {
    a[1] = std::numeric_limits<double>::max();
    a[2] = std::numeric_limits<double>::lowest();
  }
  pgas::sync_all();
  const double mine = static_cast<double>(me()) + 0.5;
  for (int r = 0; r < 200; ++r) a[0] += 0.25;  // exact in binary
  pgas::scatter_accumulate(a, std::span<const std::size_t>(std::vector<std::size_t>{1}),
                           std::span<const double>(std::vector<double>{mine}),
                           pgas::reduce_op::min);
  pgas::scatter_accumulate(a, std::span<const std::size_t>(std::vector<std::size_t>{2}),
                           std::span<const double>(std::vector<double>{mine}),
                           pgas::reduce_op::max);
  pgas::sync_all();
  EXPECT_DOUBLE_EQ(a[0].get(), 50.0 * static_cast<double>(images()));
  EXPECT_DOUBLE_EQ(a[1].get(), 0.5);
  EXPECT_DOUBLE_EQ(a[2].get(), static_cast<double>(images()) - 0.5);
}

TEST(InPlaceUpdates, a_compare_exchange_spin_counter_loses_no_increment) {
  pgas::array<std::int64_t> counter(1);
  constexpr int increments = 200;
  for (int k = 0; k < increments; ++k) {
    std::int64_t seen = counter[0].atomic_load();
    while (!counter[0].compare_exchange(seen, seen + 1)) {
    }
  }
  pgas::sync_all();
  EXPECT_EQ(counter[0].get(), increments * static_cast<std::int64_t>(images()));
  // exchange hands every image a distinct previous value
  pgas::sync_all();
  const std::int64_t before = counter[0].fetch_add(1);
  pgas::array<std::int64_t> seen(images());
  seen[me()] = before;
  pgas::sync_all();
  std::vector<std::int64_t> all;
  for (std::size_t img = 0; img < images(); ++img) all.push_back(seen[img].get());
  std::sort(all.begin(), all.end());
  for (std::size_t k = 0; k < all.size(); ++k)
    EXPECT_EQ(all[k],
              increments * static_cast<std::int64_t>(images()) + static_cast<std::int64_t>(k));
}

TEST(InPlaceUpdates, a_container_window_is_updated_in_place_exactly_when_every_image_shares_it) {
  pgas::array<long> a(8);
  const bool shared = pgas::detail::window_of(a).flavor() == pgas::runtime::window_flavor::shared;
  EXPECT_EQ(pgas::detail::window_of(a).updates_in_place(), shared);
  EXPECT_EQ(shared, pgas::runtime::world_shares_memory());
  if (!shared_memory_wanted()) {
    EXPECT_FALSE(shared);
  }
  pgas::sync_all();
}

TEST(InPlaceUpdates, only_an_allocate_shared_window_in_its_passive_epoch_is_updated_in_place) {
  namespace rt = pgas::runtime;
  rt::window plain = rt::window::allocate(rt::world_comm(), 8 * sizeof(long), sizeof(long));
  EXPECT_FALSE(plain.updates_in_place());
  EXPECT_EQ(plain.mapped_for_update(0, 0, sizeof(long)), nullptr);
  if (!world_on_one_node())
    GTEST_SKIP() << "a shared window needs every image on one node";
  rt::window shared = rt::window::allocate_shared(rt::world_comm(), 8 * sizeof(long), sizeof(long));
  EXPECT_TRUE(shared.updates_in_place());
  EXPECT_THROW((void)shared.mapped_for_update(0, 8, sizeof(long)), pgas::out_of_range);
  EXPECT_THROW((void)shared.mapped_for_update(static_cast<int>(images()), 0, sizeof(long)),
               pgas::usage_error);
  shared.begin_fence_phase();
  EXPECT_FALSE(shared.updates_in_place());
  shared.end_fence_phase();
  EXPECT_TRUE(shared.updates_in_place());
}

TEST(InPlaceUpdates, a_bitwise_accumulate_on_floating_point_is_refused_on_either_path) {
  namespace rt = pgas::runtime;
  rt::window plain = rt::window::allocate(rt::world_comm(), sizeof(double), sizeof(double));
  EXPECT_THROW(rt::accumulate_value(plain, 1.0, 0, 0, rt::reduce_op::bxor), pgas::usage_error);
  if (!world_on_one_node())
    GTEST_SKIP() << "a shared window needs every image on one node";
  rt::window shared = rt::window::allocate_shared(rt::world_comm(), sizeof(double), sizeof(double));
  EXPECT_THROW(rt::accumulate_value(shared, 1.0, 0, 0, rt::reduce_op::bxor), pgas::usage_error);
}

TEST(InPlaceUpdates, complex_elements_keep_using_mpi_and_still_add_up) {
  static_assert(!pgas::runtime::processor_atomic<long double>);
  static_assert(!pgas::runtime::processor_atomic<std::complex<double>>);
  static_assert(pgas::runtime::processor_atomic<double> &&
                pgas::runtime::processor_atomic<std::uint8_t>);
  pgas::array<std::complex<double>> a(2);
  for (int k = 0; k < 50; ++k) a[1] += std::complex<double>(2.0, -1.0);
  pgas::sync_all();
  EXPECT_EQ(a[1].get(), std::complex<double>(100.0, -50.0) * static_cast<double>(images()));
}

}  // namespace
