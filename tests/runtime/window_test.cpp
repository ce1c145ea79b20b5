// Window creation in every flavor with memory: attributes read back, uneven and empty exposure,
// per-image disp_units, moves.
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team_window.hpp>
#include <pgas/runtime/window.hpp>

#include <gtest/gtest.h>

#include "window_flavors.hpp"
#include "window_pool.hpp"
#include "world_ranks.hpp"
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using pgas::runtime::window;
using pgas::test::memory_flavor;

static_assert(!std::is_copy_constructible_v<window>);
static_assert(!std::is_copy_assignable_v<window>);
static_assert(std::is_nothrow_move_constructible_v<window>);
static_assert(std::is_nothrow_move_assignable_v<window>);

using pgas::test::images;
using pgas::test::me;

class Window : public pgas::test::with_memory_flavor {};

TEST_P(Window, attributes_read_back_equal_what_was_given) {
  auto w = pgas::test::make_window(GetParam(), 96, 8);
  EXPECT_TRUE(w.win.valid());
  EXPECT_EQ(w.win.size(), 96u);
  EXPECT_EQ(w.win.disp_unit(), 8);
  EXPECT_EQ(w.win.flavor(), pgas::test::expected_flavor(GetParam()));
  EXPECT_EQ(w.win.model(), pgas::runtime::memory_model::unified);
  EXPECT_NE(w.win.base(), nullptr);
  if (w.caller_memory) {
    EXPECT_EQ(w.win.base(), w.caller_memory->data());
  }
  EXPECT_EQ(w.win.get_group().size(), images());
  EXPECT_EQ(w.win.rank(), me());
  EXPECT_EQ(w.win.ranks(), images());
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST_P(Window, images_may_expose_zero_or_different_sizes) {
  // Image r exposes 8*r bytes: image 0 exposes nothing at all.
  const std::size_t mine = 8 * static_cast<std::size_t>(me());
  auto w = pgas::test::make_window(GetParam(), mine, 1);
  EXPECT_EQ(w.win.size(), mine);
  for (int r = 0; r < images(); ++r) EXPECT_EQ(w.win.size_of(r), 8 * static_cast<std::size_t>(r));
  // Everyone writes its rank into the last byte of every non-empty peer.
  for (int r = 1; r < images(); ++r) {
    pgas::runtime::put_value(w.win, static_cast<unsigned char>(me()), r,
                             static_cast<MPI_Aint>(8 * r - 1 - me()));
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  if (me() > 0) {
    const auto* bytes = static_cast<const unsigned char*>(w.win.base());
    for (int from = 0; from < images() && from < 8 * me(); ++from) {
      EXPECT_EQ(bytes[8 * me() - 1 - from], from) << "byte written by image " << from;
    }
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST_P(Window, put_lands_at_base_plus_disp_times_the_targets_disp_unit) {
  // Image r uses disp_unit r+1 over 64 bytes: displacement d means byte d*(r+1) on image r.
  const int unit = me() + 1;
  auto w = pgas::test::make_window(GetParam(), 64, unit);
  std::memset(w.win.base(), 0, 64);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  EXPECT_EQ(w.win.disp_unit(), unit);
  const int next = (me() + 1) % images();
  EXPECT_EQ(w.win.disp_unit_of(next), next + 1);
  pgas::runtime::put_value(w.win, static_cast<unsigned char>(100 + me()), next, 5);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  const int prev = (me() + images() - 1) % images();
  const auto* bytes = static_cast<const unsigned char*>(w.win.base());
  EXPECT_EQ(bytes[5 * unit], 100 + prev);
  for (int b = 0; b < 64; ++b) {
    if (b != 5 * unit) {
      EXPECT_EQ(bytes[b], 0) << "byte " << b;
    }
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

namespace {

struct triple {
  double x, y, z;
};
constexpr std::size_t triples = 40;  // in each image's exposure

// Every image fills the next one's whole exposure of `triples` triples, the last byte included
// (`next_unit`: the next image's disp_unit), checks what the previous one put into its own, and
// reads its last triple back from the next: puts and gets land where each target's base() says.
void triples_land_where_base_says(window& w, int next_unit) {
  std::memset(w.base(), 0, triples * 24);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  const int next = (me() + 1) % images();
  const auto units_per_triple = static_cast<MPI_Aint>(24 / next_unit);
  for (std::size_t k = 0; k < triples; ++k) {
    const triple t{1000.0 * me() + static_cast<double>(k), -1.0, 0.5};
    pgas::runtime::put_value(w, t, next, static_cast<MPI_Aint>(k) * units_per_triple);
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  const int prev = (me() + images() - 1) % images();
  const auto* got = static_cast<const triple*>(w.base());
  for (std::size_t k = 0; k < triples; ++k) {
    EXPECT_EQ(got[k].x, 1000.0 * prev + static_cast<double>(k)) << "element " << k;
    EXPECT_EQ(got[k].y, -1.0) << "element " << k;
    EXPECT_EQ(got[k].z, 0.5) << "element " << k;
  }
  triple back{};
  pgas::runtime::get(w, std::span{&back, 1}, next,
                     static_cast<MPI_Aint>(triples - 1) * units_per_triple);
  EXPECT_EQ(back.x, 1000.0 * me() + static_cast<double>(triples - 1));
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

}  // namespace

// Vector loads of a row of doubles straddle two cache lines unless the row starts on one, and
// Open MPI 4.1 hands out window memory 8 or 264 bytes past a line. The window moves each
// image's exposure to the next line (by whole units: alike on one node, each image its own
// between hosts) and translates displacements, so puts and gets still land where base() says.
TEST_P(Window, memory_the_window_allocates_starts_on_a_cache_line_and_rma_lands_where_base_says) {
  if (GetParam() == memory_flavor::create_caller_memory)
    GTEST_SKIP() << "the caller chose the memory";
  for (int unit : {1, 8, 24}) {
    SCOPED_TRACE("disp_unit " + std::to_string(unit));
    auto w = pgas::test::make_window(GetParam(), triples * 24, unit);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.win.base()) % 64, 0u);
    EXPECT_EQ(w.win.size(), triples * 24);
    triples_land_where_base_says(w.win, unit);
  }
}

// Images whose memory needs different numbers of their disp_units to reach a line (here each
// image its own disp_unit: 8 bytes on even images, 24 on odd ones) each start on one, and a
// displacement on any target lands where that target's base() says — as between hosts, where
// each image's memory sits at its own offset from a line.
TEST_P(Window, images_shifting_by_different_units_each_start_on_a_cache_line) {
  if (GetParam() == memory_flavor::create_caller_memory)
    GTEST_SKIP() << "the caller chose the memory";
  const auto unit_of = [](int image) { return image % 2 == 0 ? 8 : 24; };
  auto w = pgas::test::make_window(GetParam(), triples * 24, unit_of(me()));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.win.base()) % 64, 0u);
  triples_land_where_base_says(w.win, unit_of((me() + 1) % images()));
}

TEST_P(Window, moves_transfer_ownership_and_leave_an_empty_handle) {
  auto w = pgas::test::make_window(GetParam(), 16, 4);
  const MPI_Win handle = w.win.native();
  window moved{std::move(w.win)};
  EXPECT_FALSE(w.win.valid());  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(w.win.native(), MPI_WIN_NULL);
  EXPECT_EQ(moved.native(), handle);
  EXPECT_THROW((void)w.win.size(), pgas::usage_error);
  // Move assignment frees the window it held (collectively) before taking the other one.
  auto other = pgas::test::make_window(GetParam(), 8, 1);
  moved = std::move(other.win);
  EXPECT_EQ(moved.size(), 8u);
  EXPECT_EQ(moved.disp_unit(), 1);
  window empty;
  moved = std::move(empty);
  EXPECT_FALSE(moved.valid());
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST_P(Window, bad_target_rank_and_displacement_throw_and_the_window_keeps_working) {
  auto w = pgas::test::make_window(GetParam(), 32, 4);
  std::memset(w.win.base(), 0, 32);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  EXPECT_THROW(pgas::runtime::put_value(w.win, 1, images(), 0), pgas::usage_error);
  EXPECT_THROW(pgas::runtime::put_value(w.win, 1, -1, 0), pgas::usage_error);
  EXPECT_THROW(pgas::runtime::put_value(w.win, 1, 0, 8),
               pgas::out_of_range);  // 8*4 = 32: past the end
  EXPECT_THROW(pgas::runtime::put_value(w.win, 1, 0, -1), pgas::out_of_range);
  int got = 0;
  EXPECT_THROW(pgas::runtime::get(w.win, std::span{&got, 1}, 0, 1 << 20), pgas::out_of_range);
  // The window is still usable after every one of those.
  pgas::runtime::put_value(w.win, me() + 1, (me() + 1) % images(), 7);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  EXPECT_EQ(static_cast<int*>(w.win.base())[7], (me() + images() - 1) % images() + 1);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST_P(Window, zero_or_negative_disp_unit_is_refused_on_every_image) {
  EXPECT_THROW((void)pgas::test::make_window(GetParam(), 8, 0), pgas::usage_error);
  EXPECT_THROW((void)pgas::test::make_window(GetParam(), 8, -4), pgas::usage_error);
}

INSTANTIATE_TEST_SUITE_P(EveryFlavor,
                         Window,
                         ::testing::ValuesIn(pgas::test::all_memory_flavors),
                         [](const auto& param_info) {
                           return pgas::test::name_of(param_info.param);
                         });

TEST(SharedWindow, shared_query_gives_direct_pointers_to_peers) {
  if (!pgas_test::world_on_one_node())
    GTEST_SKIP() << "a shared-memory window needs every image on one node";
  auto w = window::allocate_shared(pgas::runtime::world_comm(), 8 * sizeof(int), sizeof(int));
  static_cast<int*>(w.base())[0] = 1000 + me();
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  for (int r = 0; r < images(); ++r) {
    const auto seg = w.shared_query(r);
    EXPECT_EQ(seg.bytes, 8 * sizeof(int));
    EXPECT_EQ(seg.disp_unit, static_cast<int>(sizeof(int)));
    EXPECT_EQ(static_cast<const int*>(seg.base)[0], 1000 + r);
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST(SharedWindow, shared_query_on_another_flavor_is_a_usage_error) {
  auto w = window::allocate(pgas::runtime::world_comm(), 8, 1);
  EXPECT_THROW((void)w.shared_query(0), pgas::usage_error);
}

TEST(WindowHints, typed_hints_are_accepted_by_mpi) {
  pgas::runtime::window_hints hints;
  hints.no_locks = false;
  hints.ordering = pgas::runtime::accumulate_ordering::none;
  hints.ops = pgas::runtime::accumulate_ops::same_op_no_op;
  hints.same_size = true;
  hints.same_disp_unit = true;
  auto w = window::allocate(pgas::runtime::world_comm(), 64, 8, hints);
  std::memset(w.base(), 0, 64);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  pgas::runtime::accumulate_value(w, 2L, 0, 1, pgas::runtime::reduce_op::sum);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  if (me() == 0) {
    EXPECT_EQ(static_cast<long*>(w.base())[1], 2L * images());
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

}  // namespace

// Container windows of the world team (allocate_team_window) are kept when released and given
// to the next window of the same shape.
namespace {

window world_longs(std::size_t per_image) {
  const std::vector<std::size_t> every(static_cast<std::size_t>(images()),
                                       per_image * sizeof(long));
  return pgas::runtime::allocate_team_window(pgas::runtime::world_comm(), per_image * sizeof(long),
                                             sizeof(long), every);
}

TEST(WindowPool, a_released_window_is_reused_by_the_next_of_the_same_shape_only) {
  void* first = nullptr;
  {
    window w = world_longs(32);
    first = w.base();
  }
  // The kept window stays allocated, so a window not handed it lies elsewhere.
  const std::vector<std::size_t> every(static_cast<std::size_t>(images()), 32 * sizeof(long));
  window plain =
      window::allocate(pgas::runtime::world_comm(), 32 * sizeof(long), sizeof(long), every);
  EXPECT_NE(plain.base(), first);  // not a container window: never handed a kept one
  window other = world_longs(33);  // nor is a different shape
  EXPECT_NE(other.base(), first);
  EXPECT_EQ(other.size(), 33 * sizeof(long));
  window same = world_longs(32);
  EXPECT_EQ(same.base(), first);
  EXPECT_EQ(same.size(), 32 * sizeof(long));
}

TEST(WindowPool, writes_issued_before_release_have_all_landed_when_reused_and_none_land_later) {
  constexpr std::size_t n = 64;
  for (int round = 0; round < 50; ++round) {
    void* released = nullptr;
    {
      window w = world_longs(n);
      released = w.base();
      // Every image fills its right neighbour's part and releases without any sync point.
      std::vector<long> values(n);
      for (std::size_t k = 0; k < n; ++k) values[k] = 1000L * round + static_cast<long>(k);
      pgas::runtime::put(w, std::span<const long>(values), (me() + 1) % images(), 0);
    }
    window w = world_longs(n);
    ASSERT_EQ(w.base(), released) << "the pool did not hand the window back";
    auto* mine = static_cast<long*>(w.base());
    // Read before anything is written: every put issued before the release is already here,
    // none partly (the pool completes them before it hands the window out).
    for (std::size_t k = 0; k < n; ++k) {
      ASSERT_EQ(mine[k], 1000L * round + static_cast<long>(k))
          << "round " << round << ", element " << k;
    }
    // And nothing of those puts lands after the new owner's own writes.
    std::fill_n(mine, n, -1L);
    pgas::runtime::sync_all(pgas::runtime::world_comm());
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(mine[k], -1L) << "round " << round;
    pgas::runtime::sync_all(pgas::runtime::world_comm());
  }
}

// The pool's budget comes from the machine: on one node a sixteenth of each image's share of
// its memory, at least 16 MiB; across nodes 16 MiB summed over the images.
TEST(WindowPool, the_budget_is_agreed_and_at_least_sixteen_mebibytes_in_all) {
  const std::size_t budget = pgas::runtime::window_pool::budget_per_process();
  EXPECT_GE(budget * static_cast<std::size_t>(images()), std::size_t{16} << 20);
  unsigned long long mine = budget;
  unsigned long long most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, pgas::runtime::world_comm());
  EXPECT_EQ(most, mine) << "images disagree on the pool's budget";
}

// Within a budget of 1000 longs per image: a window of 600 is kept; making one of 1200 (a shape
// the pool has none of) first frees the kept 600, which would pass the budget beside it, and the
// 1200 are not kept; a kept 500 and a kept 300 fit together, and the 500 comes back.
TEST(WindowPool, kept_windows_stay_within_the_budget_and_make_room_for_new_ones) {
  namespace pool = pgas::runtime::window_pool;
  const std::size_t saved = pool::budget_per_process();
  // No budget: a window of a new shape frees what the earlier tests left kept, and is not kept.
  pool::set_budget_per_process(0);
  { window w = world_longs(7); }
  const std::size_t open = pgas::runtime::open_windows();
  pool::set_budget_per_process(1000 * sizeof(long));
  { window w = world_longs(600); }
  EXPECT_EQ(pgas::runtime::open_windows(), open + 1) << "the 600 were not kept";
  {
    window w = world_longs(1200);
    EXPECT_EQ(pgas::runtime::open_windows(), open + 1) << "the kept 600 stayed beside the 1200";
  }
  EXPECT_EQ(pgas::runtime::open_windows(), open) << "the 1200 were kept past the budget";
  void* kept_500 = nullptr;
  {
    window w = world_longs(500);
    kept_500 = w.base();
  }
  {
    window w = world_longs(300);
    EXPECT_EQ(pgas::runtime::open_windows(), open + 2) << "the kept 500 was freed, though both fit";
  }
  EXPECT_EQ(pgas::runtime::open_windows(), open + 2) << "500 and 300 fit the budget together";
  {
    window w = world_longs(500);
    EXPECT_EQ(w.base(), kept_500);
  }
  pool::set_budget_per_process(saved);
}

}  // namespace
