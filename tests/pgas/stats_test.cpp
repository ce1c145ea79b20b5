// PGAS_STATS: with PGAS_STATS=1 every operation is counted where it went (MPI put, accumulate,
// atomic; plain store into a same-node peer; in-place update), sync points and windows too;
// without it every counter stays zero. Registered with PGAS_STATS=1 (also without shared
// memory) and without it.
#include <pgas/algorithms.hpp>
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/one_node.hpp"
#include "../support/ring_neighbours.hpp"
#include <cstdlib>
#include <cstring>

namespace {

using pgas_test::images;
using pgas_test::me;

bool set_to(const char* variable, const char* value) {
  const char* v = std::getenv(variable);
  return v != nullptr && std::strcmp(v, value) == 0;
}

bool counting() {
  return set_to("PGAS_STATS", "1");
}

bool shared_memory_wanted() {
  return !set_to("PGAS_SHARED_MEMORY", "0");
}

TEST(Stats, each_operation_is_counted_where_it_went) {
  const pgas::rma_stats before_array = pgas::stats();
  pgas::array<long> a(4 * images());
  const pgas::rma_stats s0 = pgas::stats();
  if (!counting()) {
    // Every counter, one by one: off, nothing is counted.
    for (const auto* c :
         {&s0.puts, &s0.gets, &s0.accumulates, &s0.atomics, &s0.peer_stores, &s0.peer_loads,
          &s0.in_place_updates, &s0.owner_updates, &s0.owner_reads}) {
      EXPECT_EQ(c->operations, 0u);
      EXPECT_EQ(c->bytes, 0u);
    }
    EXPECT_EQ(s0.sync_points, 0u);
    EXPECT_EQ(s0.sync_seconds, 0.0);
    EXPECT_EQ(s0.windows_created, 0u);
    EXPECT_EQ(s0.windows_from_pool, 0u);
    EXPECT_EQ(s0.windows_freed, 0u);
    return;
  }
  // The first array of this shape in the program: MPI makes its window, the pool has none.
  EXPECT_EQ(s0.windows_created - before_array.windows_created, 1u);
  EXPECT_EQ(s0.windows_from_pool - before_array.windows_from_pool, 0u);
  // Updates a peer's owner applies are counted there when it applies them: no image may send
  // one before every image has taken s0.
  pgas::sync_all();
  const std::size_t peer = 4 * ((me() + 1) % images());  // the next image's first element
  const bool own = images() == 1;
  const bool shared = pgas::detail::window_of(a).flavor() == pgas::runtime::window_flavor::shared;
  a[peer] = 5;                 // a store into the peer's memory, or a put
  (void)a[peer].fetch_add(1);  // an atomic: in place, or by the owner
  a[peer + 1] += 2;            // an accumulate: in place, or by the owner
  pgas::sync_all();
  const pgas::rma_stats s1 = pgas::stats();
  EXPECT_EQ(s1.sync_points - s0.sync_points, 2u);
  EXPECT_GT(s1.sync_seconds, s0.sync_seconds);  // two waits, timed by MPI_Wtime
  if (own) {
    EXPECT_EQ(s1.peer_stores.operations, s0.peer_stores.operations);  // this image's own memory
  } else if (shared) {
    EXPECT_EQ(s1.peer_stores.operations - s0.peer_stores.operations, 1u);
    EXPECT_EQ(s1.peer_stores.bytes - s0.peer_stores.bytes, sizeof(long));
  } else {
    EXPECT_EQ(s1.puts.operations - s0.puts.operations, 1u);
  }
  if (shared) {
    EXPECT_EQ(s1.in_place_updates.operations - s0.in_place_updates.operations, 2u);
  } else {
    // Applied by their owner, the next image, which counts them: this image applied the two of
    // the image before it by the sync point. MPI carried neither. The image before it on
    // another node (scripts/two-hosts, PGAS_ONE_IMAGE_PER_NODE=1) sent its store that way too.
    const std::size_t before_me = (me() + images() - 1) % images();
    const std::uint64_t applied = pgas::runtime::on_this_node(before_me) ? 2 : 3;
    EXPECT_EQ(s1.owner_updates.operations - s0.owner_updates.operations, applied);
    EXPECT_EQ(s1.owner_updates.bytes - s0.owner_updates.bytes, applied * sizeof(long));
    EXPECT_EQ(s1.atomics.operations, s0.atomics.operations);
    EXPECT_EQ(s1.accumulates.operations, s0.accumulates.operations);
  }
  EXPECT_EQ(a[peer].get(), 6);
  pgas::sync_all();
}

// An aggregator's batches are applied by their owners with plain stores (owner_updates) — on
// one node too — until an image updates the container in place with a processor atomic; from
// then on the owners apply them with processor atomics (in_place_updates), so that the two never
// race. A container made later of the same shape (its window from the pool) starts plain again.
TEST(Stats, owners_apply_batches_plainly_until_an_image_updates_in_place) {
  if (!counting())
    return;
  const std::size_t n = 4 * images();  // 4 elements each: this image owns 4
  const auto add_one_to_each = [n](pgas::array<long>& a) {
    pgas::aggregator<pgas::array<long>> agg(a, pgas::reduce_op::sum, 3);
    for (std::size_t k = 0; k < n; ++k) agg.add((k + me()) % n, 1);
  };
  // Counted here, between sync points: (plain, in place). No image may send before every image
  // has taken `before` (a sync point runs the handlers of what arrives while it waits).
  const auto counted = [](auto&& step) {
    pgas::sync_all();
    const pgas::rma_stats before = pgas::stats();
    pgas::sync_all();
    step();
    pgas::sync_all();
    const pgas::rma_stats after = pgas::stats();
    return std::pair{after.owner_updates.operations - before.owner_updates.operations,
                     after.in_place_updates.operations - before.in_place_updates.operations};
  };
  for (int container = 0; container < 2; ++container) {
    const pgas::rma_stats before = pgas::stats();
    pgas::array<long> a(n);
    if (container == 1) {  // the first one's window, now of a new container
      EXPECT_EQ(pgas::stats().windows_from_pool - before.windows_from_pool, 1u);
    }
    for (long& x : a.local()) x = 0;
    const bool shared = pgas::detail::window_of(a).flavor() == pgas::runtime::window_flavor::shared;
    // Shared exactly when every image maps every other's memory: all on one node (not so under
    // PGAS_ONE_IMAGE_PER_NODE=1 or between hosts), shared memory not turned off.
    EXPECT_EQ(shared, pgas_test::world_on_one_node() && shared_memory_wanted());
    EXPECT_EQ(counted([&] { add_one_to_each(a); }),
              (std::pair<std::uint64_t, std::uint64_t>{4 * images(), 0}));
    // The last image updates image 0's first element in place (through MPI: at its owner).
    const auto [atomic_plain, atomic_in_place] = counted([&] {
      if (me() == images() - 1)
        (void)a[0].fetch_add(100);
    });
    const bool counts_the_atomic = shared ? me() == images() - 1 : me() == 0;
    EXPECT_EQ(atomic_plain + atomic_in_place, counts_the_atomic ? 1u : 0u);
    const auto [plain, in_place] = counted([&] { add_one_to_each(a); });
    if (shared) {
      EXPECT_EQ(plain, 0u);
      EXPECT_EQ(in_place, 4 * images());
    } else {
      EXPECT_EQ(plain, 4 * images());
      EXPECT_EQ(in_place, 0u);
    }
    for (std::size_t k = 0; k < n; ++k)
      EXPECT_EQ(a[k].get(), static_cast<long>(2 * images()) + (k == 0 ? 100 : 0)) << k;
    pgas::sync_all();
  }
}

TEST(Stats, a_window_comes_back_from_the_pool_and_leaves_it_freed) {
  if (!counting())
    return;
  const pgas::rma_stats s0 = pgas::stats();
  { pgas::array<double> first(7 * images() + 1); }  // a shape of its own: made, then kept
  const pgas::rma_stats s1 = pgas::stats();
  EXPECT_EQ(s1.windows_created - s0.windows_created, 1u);
  EXPECT_EQ(s1.windows_freed - s0.windows_freed, 0u);  // kept, not freed
  { pgas::array<double> again(7 * images() + 1); }     // the kept one, taken and kept again
  const pgas::rma_stats s2 = pgas::stats();
  EXPECT_EQ(s2.windows_created - s1.windows_created, 0u);
  EXPECT_EQ(s2.windows_from_pool - s1.windows_from_pool, 1u);
  EXPECT_EQ(s2.windows_freed - s1.windows_freed, 0u);
}

// A transpose counts, on each image whose blocks went through MPI, the route it took them by:
// the one PGAS_TRANSPOSE_ROUTE fixes, untimed, or each in turn while the first calls of a shape
// time them, then the faster. Every cell of b is checked too, so a route taken is a route that
// worked.
TEST(Stats, a_transpose_counts_the_route_it_took) {
  if (!counting())
    return;
  const std::size_t p = images();
  // Both split by columns: each image's tile of b (some of a's rows) takes a part of every
  // image's tile of a (some of its columns).
  pgas::ndarray<double, 2> a({4 * p, 3 * p}, pgas::grid({1, p}), 0);
  pgas::ndarray<double, 2> b({3 * p, 4 * p}, pgas::grid({1, p}), 0);
  const auto code = [](std::size_t i, std::size_t j) { return static_cast<double>(100 * i + j); };
  const auto va = a.local();
  const auto oa = a.local_origin();
  for (std::size_t i = 0; i < va.extent(0); ++i) {
    for (std::size_t j = 0; j < va.extent(1); ++j) va(i, j) = code(oa[0] + i, oa[1] + j);
  }
  bool through_mpi = false;  // some column of a this process does not map
  for (std::size_t j = 0; j < 3 * p; ++j)
    through_mpi = through_mpi || !a.element({0, j}).is_local();
  constexpr std::uint64_t calls = 6;
  const pgas::rma_stats s0 = pgas::stats();
  for (std::uint64_t k = 0; k < calls; ++k) {
    pgas::transpose(b, a);
    const auto vb = b.local();
    const auto ob = b.local_origin();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < vb.extent(0); ++i) {
      for (std::size_t j = 0; j < vb.extent(1); ++j)
        wrong += vb(i, j) == code(ob[1] + j, ob[0] + i) ? 0u : 1u;
    }
    EXPECT_EQ(wrong, 0u) << "call " << k;
    for (std::size_t i = 0; i < vb.extent(0); ++i) {
      for (std::size_t j = 0; j < vb.extent(1); ++j) vb(i, j) = -1;  // so the next call is seen
    }
  }
  const pgas::rma_stats s1 = pgas::stats();
  const std::uint64_t by_gets = s1.transposes_by_gets - s0.transposes_by_gets;
  const std::uint64_t by_sends = s1.transposes_by_sends - s0.transposes_by_sends;
  const std::uint64_t timed = s1.transposes_timed - s0.transposes_timed;
  if (!through_mpi) {
    EXPECT_EQ(by_gets + by_sends + timed, 0u);
    return;
  }
  EXPECT_EQ(by_gets + by_sends, calls);
  if (set_to("PGAS_TRANSPOSE_ROUTE", "gets")) {
    EXPECT_EQ(by_gets, calls);
    EXPECT_EQ(timed, 0u);
  } else if (set_to("PGAS_TRANSPOSE_ROUTE", "sends")) {
    EXPECT_EQ(by_sends, calls);
    EXPECT_EQ(timed, 0u);
  } else {
    // Two timed calls of each route, then the faster: whichever it is, each route ran twice.
    EXPECT_EQ(timed, 4u);
    EXPECT_GE(by_gets, 2u);
    EXPECT_GE(by_sends, 2u);
  }
}

}  // namespace
