// Dynamic windows: attach, publish, remote access by address, detach, churn, limits.
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team_window.hpp>
#include <pgas/runtime/window.hpp>

#include <gtest/gtest.h>

#include "world_ranks.hpp"
#include <memory>
#include <vector>

namespace {

using pgas::runtime::window;

using pgas::test::images;
using pgas::test::me;
using pgas::test::sync;

TEST(DynamicWindow, attributes_say_dynamic_with_no_memory) {
  auto w = window::create_dynamic(pgas::runtime::world_comm());
  EXPECT_EQ(w.flavor(), pgas::runtime::window_flavor::dynamic);
  EXPECT_EQ(w.size(), 0u);
  EXPECT_EQ(w.attachments(), 0u);
  EXPECT_EQ(w.model(), pgas::runtime::memory_model::unified);
  EXPECT_THROW((void)w.size_of(0), pgas::usage_error);
}

TEST(DynamicWindow, attach_publish_remote_put_by_address_detach) {
  auto w = window::create_dynamic(pgas::runtime::world_comm());
  std::vector<long> region(16, 0);
  w.attach(region.data(), region.size() * sizeof(long));
  EXPECT_EQ(w.attachments(), 1u);
  const std::vector<MPI_Aint> addresses = w.publish(region.data());
  ASSERT_EQ(addresses.size(), static_cast<std::size_t>(images()));
  sync();
  const int next = (me() + 1) % images();
  // On a dynamic window the displacement is the target's absolute address (MPI-4.1 §12.2.4).
  const MPI_Aint fifth = MPI_Aint_add(addresses[static_cast<std::size_t>(next)], 5 * sizeof(long));
  pgas::runtime::put_value(w, 500L + me(), next, fifth);
  pgas::runtime::accumulate_value(w, 1L, next, addresses[static_cast<std::size_t>(next)],
                                  pgas::runtime::reduce_op::sum);
  sync();
  const int prev = (me() + images() - 1) % images();
  EXPECT_EQ(region[5], 500L + prev);
  EXPECT_EQ(region[0], 1L);
  long got = 0;
  pgas::runtime::get(w, std::span{&got, 1}, next, fifth);
  EXPECT_EQ(got, 500L + me());
  sync();
  w.detach(region.data());
  EXPECT_EQ(w.attachments(), 0u);
  sync();
}

TEST(DynamicWindow, two_hundred_attach_detach_cycles) {
  auto w = window::create_dynamic(pgas::runtime::world_comm());
  const int next = (me() + 1) % images();
  for (int cycle = 0; cycle < 200; ++cycle) {
    // A fresh allocation each time, of a growing size, as a growing container would.
    auto region = std::make_unique<int[]>(static_cast<std::size_t>(cycle + 1));
    w.attach(region.get(), static_cast<std::size_t>(cycle + 1) * sizeof(int));
    const auto addresses = w.publish(region.get());
    const MPI_Aint last =
        MPI_Aint_add(addresses[static_cast<std::size_t>(next)],
                     static_cast<MPI_Aint>(cycle) * static_cast<MPI_Aint>(sizeof(int)));
    pgas::runtime::put_value(w, cycle * 10 + me(), next, last);
    sync();
    EXPECT_EQ(region[static_cast<std::size_t>(cycle)],
              cycle * 10 + (me() + images() - 1) % images());
    sync();  // nobody may still target the region when it is detached
    w.detach(region.get());
  }
  EXPECT_EQ(w.attachments(), 0u);
}

TEST(DynamicWindow, the_sixty_fifth_attachment_is_refused_before_mpi_sees_it) {
  auto w = window::create_dynamic(pgas::runtime::world_comm());
  std::vector<std::vector<char>> regions(window::max_attachments + 1, std::vector<char>(8));
  for (std::size_t k = 0; k < window::max_attachments; ++k) w.attach(regions[k].data(), 8);
  EXPECT_THROW(w.attach(regions.back().data(), 8), pgas::usage_error);
  // Nothing broke: a region can still be detached and another attached.
  w.detach(regions.front().data());
  w.attach(regions.back().data(), 8);
  EXPECT_EQ(w.attachments(), window::max_attachments);
}

TEST(DynamicWindow, attach_on_a_window_with_memory_or_of_nothing_is_refused) {
  auto with_memory = window::allocate(pgas::runtime::world_comm(), 8, 1);
  char byte = 0;
  EXPECT_THROW(with_memory.attach(&byte, 1), pgas::usage_error);
  auto dynamic = window::create_dynamic(pgas::runtime::world_comm());
  EXPECT_THROW(dynamic.attach(nullptr, 8), pgas::usage_error);
  EXPECT_THROW(dynamic.attach(&byte, 0), pgas::usage_error);
}

}  // namespace

namespace {

// A container's dynamic window: its owners apply updates, so an element write to a peer of this
// node is held until the next operation (runtime/held_write.hpp). The handle moves while it is
// held; the write goes with it and lands by the sync point. Then a write held on a window that
// is released before any other operation: the release issues it while the window still stands.
TEST(HeldWrite, follows_its_window_handle_through_a_move_and_goes_at_its_release) {
  if (!pgas::runtime::messages::running())
    GTEST_SKIP() << "no message engine: writes are not held";
  const int next = (pgas::test::me() + 1) % pgas::test::images();
  const int before = (pgas::test::me() + pgas::test::images() - 1) % pgas::test::images();
  long mine = 0;
  pgas::runtime::window w = pgas::runtime::create_team_dynamic_window(pgas::runtime::world_comm());
  w.attach(&mine, sizeof mine);
  const std::vector<MPI_Aint> at = w.publish(&mine);
  pgas::runtime::put_value(w, 40L + pgas::test::me(), next, at[static_cast<std::size_t>(next)]);
  pgas::runtime::window moved(std::move(w));
  pgas::test::sync();
  EXPECT_EQ(mine, 40L + before);
  pgas::test::sync();  // nobody writes again before everyone has looked
  pgas::runtime::put_value(moved, 50L + pgas::test::me(), next, at[static_cast<std::size_t>(next)]);
  pgas::runtime::window other =
      pgas::runtime::create_team_dynamic_window(pgas::runtime::world_comm());
  moved = std::move(other);  // releases the window written, collectively
  EXPECT_EQ(mine, 50L + before);
}

}  // namespace
