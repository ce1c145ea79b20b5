// Teams everywhere: change_team scopes, containers and coarrays made on a team (in a scope or
// named), collectives, sync points, events, locks and algorithms over a team, nesting, and
// containers that keep their team whichever scope is in force.
#include <pgas/algorithms.hpp>
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

namespace {

// Two teams: even and odd world images (one team when there is one image).
pgas::team halves() {
  return pgas::team::world().split(static_cast<int>(pgas::this_image() % 2));
}

TEST(Teams, a_scope_makes_image_numbers_and_sync_points_the_teams) {
  const std::size_t world_me = pgas::this_image();
  const std::size_t world_n = pgas::num_images();
  const pgas::team t = halves();
  {
    const pgas::change_team scope(t);
    EXPECT_EQ(pgas::this_image(), world_me / 2);
    EXPECT_EQ(pgas::num_images(), world_me % 2 == 0 ? (world_n + 1) / 2 : world_n / 2);
    EXPECT_TRUE(pgas::current_team() == t);
    EXPECT_EQ(pgas::current_team().number(), static_cast<int>(world_me % 2));
    EXPECT_EQ(pgas::team_number(), static_cast<int>(world_me % 2));
    EXPECT_EQ(pgas::co_sum(1), static_cast<int>(t.size()));
    EXPECT_EQ(pgas::co_broadcast(static_cast<int>(world_me), 0), static_cast<int>(world_me % 2));
    pgas::sync_all();
    pgas::sync_images(pgas::all_images);
    if (t.size() > 1) {  // a ring of the team's images: one neighbour in a team of two
      const std::size_t n = t.size();
      const std::size_t me = t.rank();
      std::vector<std::size_t> ring{(me + 1) % n};
      if ((me + n - 1) % n != ring[0])
        ring.push_back((me + n - 1) % n);
      // Each image writes its number + 1 into its neighbours' slots, odd ones a little late:
      // the meeting must wait for them (a sync that did not would read an empty slot).
      pgas::coarray<long[2]> from;  // [0]: from the left, [1]: from the right
      if (me % 2 == 1)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      from((me + 1) % n)[0] = static_cast<long>(me) + 1;
      from((me + n - 1) % n)[1] = static_cast<long>(me) + 1;
      pgas::sync_images(ring);
      EXPECT_EQ(from[0], static_cast<long>((me + n - 1) % n) + 1);
      EXPECT_EQ(from[1], static_cast<long>((me + 1) % n) + 1);
      pgas::sync_all();
    }
  }
  EXPECT_EQ(pgas::this_image(), world_me);
  EXPECT_EQ(pgas::num_images(), world_n);
  EXPECT_TRUE(pgas::current_team() == pgas::team::world());
  EXPECT_EQ(pgas::team_number(), -1);
  EXPECT_EQ(pgas::co_sum(1), static_cast<int>(world_n));
}

TEST(Teams, scopes_nest_and_unwind_in_order) {
  const pgas::team t = halves();
  const pgas::change_team outer(t);
  const pgas::team u = pgas::current_team().split(static_cast<int>(pgas::this_image() % 2));
  {
    const pgas::change_team inner(u);
    EXPECT_EQ(pgas::num_images(), u.size());
    EXPECT_TRUE(pgas::current_team().parent() == t);
    EXPECT_EQ(pgas::co_sum(1), static_cast<int>(u.size()));
  }
  EXPECT_TRUE(pgas::current_team() == t);
  EXPECT_EQ(pgas::co_sum(1), static_cast<int>(t.size()));
}

TEST(Teams, containers_made_in_a_scope_live_on_the_team_and_keep_it_outside) {
  const pgas::team t = halves();
  const int colour = static_cast<int>(pgas::this_image() % 2);
  std::optional<pgas::array<long, pgas::cyclic>> a;
  {
    const pgas::change_team scope(t);
    a.emplace(25);
    EXPECT_TRUE(a->team() == t);
    for (std::size_t i = pgas::this_image(); i < a->size(); i += pgas::num_images())
      (*a)[i] = 1000 * colour + static_cast<long>(i);
    pgas::sync_all();
    for (std::size_t i = 0; i < a->size(); ++i) {
      EXPECT_EQ((*a)[i].get(), 1000 * colour + static_cast<long>(i));
      EXPECT_LT(a->owner(i), t.size());
    }
    pgas::sync_all();
  }
  // In the world scope the array is still its team's: owner() and the algorithms say so.
  EXPECT_EQ(a->owner(a->size() - 1), (a->size() - 1) % t.size());
  const long want = 25L * 1000 * colour + 24L * 25 / 2;
  EXPECT_EQ(pgas::reduce(*a), want);
  EXPECT_EQ(pgas::count_if(*a, [](long v) { return v % 2 == 0; }), 13U);  // 0, 2, ..., 24 (+ 1000)
  pgas::fill(*a, 7L);
  EXPECT_EQ(pgas::reduce(*a), 7L * 25);
  pgas::sync_all(t);
  a.reset();  // collective over t
}

TEST(Teams, a_team_named_first_makes_every_kind_of_container_on_it) {
  const pgas::team t = halves();
  const std::size_t me = t.rank();
  const std::size_t n = t.size();
  pgas::array<double> a(t, 40, pgas::block{}, 1.5);
  EXPECT_EQ(pgas::reduce(a), 60.0);
  pgas::vector<int> v(t);
  for (std::size_t k = 0; k <= me; ++k) v.push_back(static_cast<int>(me));
  v.commit();
  EXPECT_EQ(v.size(), n * (n + 1) / 2);
  pgas::matrix<int> m(t, 4 * n, 3, 1, pgas::boundary::periodic, -1);
  for (std::size_t i = 0; i < m.local_rows(); ++i)
    m.local()(static_cast<std::ptrdiff_t>(i), 0) = static_cast<int>(m.first_row() + i);
  m.exchange_halo();
  if (m.local_rows() > 0) {
    EXPECT_EQ(m.local()(-1, 0), static_cast<int>((m.first_row() + 4 * n - 1) % (4 * n)));
  }
  pgas::unordered_map<int, int> map(t);
  map.insert(static_cast<int>(me), static_cast<int>(10 * me));
  map.commit();
  for (std::size_t k = 0; k < n; ++k)
    EXPECT_EQ(map.find(static_cast<int>(k)), std::optional<int>(static_cast<int>(10 * k)));
  pgas::coarray<int> x(t, -1);
  x((me + 1) % n) = static_cast<int>(me);
  pgas::sync_all(t);
  EXPECT_EQ(*x, static_cast<int>((me + n - 1) % n));
  pgas::coarray<int[]> row(t, 3);
  EXPECT_THROW((void)row(n), pgas::out_of_range);
  pgas::sync_all(t);
}

// Only the even half holds a vector and a map; the world stays in force. Every collective
// member must synchronise the container's own team: one that waited for the world would wait
// for the odd images, which are busy with their own team and never join.
TEST(Teams, one_half_grows_and_destroys_a_vector_and_a_map_while_the_world_is_in_force) {
  const pgas::team t = halves();
  const std::size_t me = t.rank();
  const std::size_t n = t.size();
  if (pgas::this_image() % 2 == 0) {
    {
      pgas::vector<long> v(t);
      for (std::size_t k = 0; k <= me; ++k) v.push_back(static_cast<long>(100 * me + k));
      v.commit();
      EXPECT_EQ(v.size(), n * (n + 1) / 2);
      // Image j's elements follow images 0..j-1's: j * (j + 1) / 2 of them.
      for (std::size_t j = 0; j < n; ++j)
        EXPECT_EQ(v[j * (j + 1) / 2].get(), static_cast<long>(100 * j));
      v.resize(3 * n, -1);
      EXPECT_EQ(v.size(), 3 * n);
      EXPECT_EQ(v[0].get(), 0L);
      if (n * (n + 1) / 2 < 3 * n) {
        EXPECT_EQ(v[3 * n - 1].get(), -1L);  // grown: the new value
      }
      v.reserve(10 * n);
      EXPECT_EQ(v[0].get(), 0L);
      v.shrink_to_fit();
      v.clear();
      EXPECT_EQ(v.size(), 0U);
      v.push_back(7);
      v.commit();
      EXPECT_EQ(v.size(), n);
    }  // destroyed: collective over t only
    pgas::unordered_map<long, long> m(t);
    for (long k = 0; k < 40; ++k) m.accumulate(k, 1);
    m.commit();
    EXPECT_EQ(m.size(), 40U);
    EXPECT_EQ(m.find(39), std::optional<long>(static_cast<long>(n)));
    // An n-D array's sync point is its team's too: each image writes its right neighbour's
    // tile, syncs the array, and reads what its left neighbour wrote.
    pgas::ndarray<long, 1> a(t, {n});
    a(static_cast<long>((me + 1) % n)) = static_cast<long>(me);
    a.sync();
    EXPECT_EQ(a.local()(0), static_cast<long>((me + n - 1) % n));
  } else {
    // The odd half synchronises its own team a different number of times.
    for (int k = 0; k < 5; ++k) pgas::sync_all(t);
    EXPECT_EQ(pgas::co_sum(1, t), static_cast<int>(n));
  }
  pgas::sync_all();
}

TEST(Teams, image_numbers_are_size_t_and_say_image) {
  const pgas::team t = halves();
  EXPECT_EQ(t.this_image(), t.rank());
  EXPECT_EQ(t.num_images(), t.size());
  // Halves by parity: image i of a half is world image 2 i (+ 1 for the odd half).
  const std::size_t parity = pgas::this_image() % 2;
  for (std::size_t i = 0; i < t.num_images(); ++i) EXPECT_EQ(t.world_image(i), 2 * i + parity);
  EXPECT_EQ(t.world_image(t.this_image()), pgas::team::world().this_image());
  EXPECT_THROW((void)t.world_image(t.num_images()), pgas::out_of_range);
}

TEST(Teams, collectives_take_a_team_named_last) {
  const pgas::team t = halves();
  EXPECT_EQ(pgas::co_sum(2, t), 2 * static_cast<int>(t.size()));
  EXPECT_EQ(pgas::co_max(static_cast<int>(t.rank()), t), static_cast<int>(t.size()) - 1);
  EXPECT_EQ(pgas::co_min(static_cast<int>(t.rank()), t), 0);
  EXPECT_EQ(pgas::co_broadcast(static_cast<int>(t.rank()) + 5, t.size() - 1, t),
            static_cast<int>(t.size()) + 4);
  std::vector<long> v{1, static_cast<long>(t.rank())};
  pgas::co_sum(std::span<long>(v), std::nullopt, t);
  EXPECT_EQ(v[0], static_cast<long>(t.size()));
  EXPECT_EQ(v[1], static_cast<long>(t.size() * (t.size() - 1) / 2));
  std::vector<long> w{static_cast<long>(t.rank())};
  pgas::co_broadcast(std::span<long>(w), 0, t);
  EXPECT_EQ(w[0], 0);
  std::vector<long> z{3};
  auto f = pgas::async_co_sum(std::span<long>(z), t);
  f.wait();
  EXPECT_EQ(z[0], 3 * static_cast<long>(t.size()));
  std::vector<long> r{static_cast<long>(t.rank())};
  auto g = pgas::async_co_max(std::span<long>(r), t);
  g.wait();
  EXPECT_EQ(r[0], static_cast<long>(t.size()) - 1);
  pgas::sync_all(t);
}

TEST(Teams, events_locks_and_critical_sections_on_a_team) {
  const pgas::team t = halves();
  const pgas::change_team scope(t);
  const std::size_t me = pgas::this_image();
  const std::size_t n = pgas::num_images();
  pgas::event ev;
  ev.post((me + 1) % n);
  ev.wait();
  EXPECT_EQ(ev.query(), 0);
  pgas::coarray<long> total(0L);
  pgas::critical cs;
  for (int k = 0; k < 20; ++k) {
    const std::lock_guard guard(cs);
    total(0) = total(0).get() + 1;
  }
  pgas::sync_all();
  EXPECT_EQ(total(0).get(), 20L * static_cast<long>(n));
  pgas::lock_type lk;
  lk.lock(n - 1);
  lk.unlock(n - 1);
  pgas::sync_all();
}

TEST(Teams, algorithms_sort_scan_and_copy_within_a_team) {
  const pgas::team t = halves();
  pgas::array<int> a(t, 101);
  for (std::size_t k = 0; k < a.local().size(); ++k)
    a.local()[k] = static_cast<int>((a.global_index(k) * 37) % 101);
  pgas::sync_all(t);
  pgas::sort(a);
  std::vector<int> all;
  pgas::copy(a, all, 0);
  if (t.rank() == 0) {
    std::vector<int> want(101);
    std::iota(want.begin(), want.end(), 0);
    EXPECT_EQ(all, want);
  }
  pgas::array<int> b(t, 101);
  pgas::inclusive_scan(a, b);
  EXPECT_EQ(b[100].get(), 100 * 101 / 2);
  pgas::array<int, pgas::cyclic> c(t, 101);
  pgas::copy(a, c);
  std::size_t misplaced = 0;  // sorted 0..100, dealt round the team
  for (std::size_t k = 0; k < c.local().size(); ++k)
    misplaced += c.local()[k] != static_cast<int>(c.global_index(k)) ? 1u : 0u;
  EXPECT_EQ(misplaced, 0u);
  EXPECT_EQ(c[57].get(), 57);
  pgas::sync_all(t);
}

TEST(Teams, windows_are_reused_per_team_and_freed_with_it) {
  // Counted for this test only (the counters are this image's, so no image depends on another
  // counting).
  const bool was_counting = pgas::runtime::statistics::enabled;
  pgas::runtime::statistics::enabled = true;
  for (int round = 0; round < 3; ++round) {
    const pgas::rma_stats before = pgas::stats();
    {
      const pgas::team t = halves();
      for (int k = 0; k < 10; ++k) {
        pgas::array<long> a(t, 64);
        if (t.this_image() == 0)
          a[static_cast<std::size_t>(k)] = k;
        pgas::sync_all(t);
        EXPECT_EQ(a[static_cast<std::size_t>(k)].get(), k);  // a kept window starts clean...
        if (k > 0) {
          EXPECT_EQ(a[static_cast<std::size_t>(k - 1)].get(), 0);  // ...of the last one's data
        }
        pgas::sync_all(t);
      }
    }  // the team, and the window kept for it, go here
    const pgas::rma_stats after = pgas::stats();
    // One window per round: made by the first array, kept and taken by the nine after it, freed
    // with its team. Nothing of the world's is touched.
    EXPECT_EQ(after.windows_created - before.windows_created, 1u) << "round " << round;
    EXPECT_EQ(after.windows_from_pool - before.windows_from_pool, 9u) << "round " << round;
    EXPECT_EQ(after.windows_freed - before.windows_freed, 1u) << "round " << round;
  }
  {
    pgas::array<long> w(64);  // the world's own pool still works
    if (pgas::this_image() == 0)
      w[0] = 1;
    pgas::sync_all();
    EXPECT_EQ(w[0].get(), 1);
    pgas::sync_all();
  }
  pgas::runtime::statistics::enabled = was_counting;
}

TEST(Teams, the_node_team_is_a_team_like_any_other) {
  const pgas::team node = pgas::team::shared_memory();
  const pgas::change_team scope(node);
  EXPECT_EQ(pgas::num_images(), node.size());
  pgas::array<int> a(node.size());
  a[pgas::this_image()] = 1;
  pgas::sync_all();
  EXPECT_EQ(pgas::reduce(a), static_cast<int>(node.size()));
}

}  // namespace
