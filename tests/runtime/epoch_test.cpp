// Active-target phases: fence and neighbourhood (post/start/complete/wait), and their return to
// the passive epoch.
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/window.hpp>

#include <gtest/gtest.h>

#include "world_ranks.hpp"
#include <algorithm>
#include <vector>

namespace {

using pgas::runtime::window;

using pgas::test::images;
using pgas::test::me;

window zeroed_ints(std::size_t n) {
  auto w = window::allocate(pgas::runtime::world_comm(), n * sizeof(int), sizeof(int));
  std::fill_n(static_cast<int*>(w.base()), n, 0);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
  return w;
}

TEST(FencePhase, puts_of_one_step_are_visible_after_the_fence) {
  auto w = zeroed_ints(static_cast<std::size_t>(images()));
  w.begin_fence_phase();
  EXPECT_FALSE(w.in_passive_epoch());
  for (int t = 0; t < images(); ++t) pgas::runtime::put_value(w, me() + 1, t, me());
  w.fence();
  const int* local = static_cast<const int*>(w.base());
  for (int r = 0; r < images(); ++r) EXPECT_EQ(local[r], r + 1);
  // Blocking reads need completion the phase does not give: refused, and the phase goes on.
  int got = 0;
  EXPECT_THROW(pgas::runtime::get(w, std::span{&got, 1}, 0, 0), pgas::usage_error);
  EXPECT_THROW(w.flush_all(), pgas::usage_error);
  w.end_fence_phase();
  EXPECT_TRUE(w.in_passive_epoch());
  pgas::runtime::get(w, std::span{&got, 1}, 0, 0);
  EXPECT_EQ(got, 1);
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST(FencePhase, fence_outside_a_phase_is_a_usage_error) {
  auto w = zeroed_ints(1);
  EXPECT_THROW(w.fence(), pgas::usage_error);
  EXPECT_THROW(w.end_fence_phase(), pgas::usage_error);
  EXPECT_THROW(w.end_neighbourhood_phase(), pgas::usage_error);
}

TEST(NeighbourhoodPhase, ring_neighbours_exchange_with_post_start_complete_wait) {
  auto w = zeroed_ints(2);
  const int left = (me() + images() - 1) % images();
  const int right = (me() + 1) % images();
  std::vector<int> neighbours{left};
  if (right != left)
    neighbours.push_back(right);
  for (int step = 1; step <= 5; ++step) {
    w.begin_neighbourhood_phase(neighbours, neighbours);
    pgas::runtime::put_value(w, 100 * step + me(), right, 0);  // slot 0: from the left
    pgas::runtime::put_value(w, 100 * step + me(), left, 1);   // slot 1: from the right
    w.end_neighbourhood_phase();
    const int* local = static_cast<const int*>(w.base());
    EXPECT_EQ(local[0], 100 * step + left);
    EXPECT_EQ(local[1], 100 * step + right);
  }
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

TEST(NeighbourhoodPhase, a_neighbour_that_does_not_exist_is_refused_before_any_epoch_change) {
  auto w = zeroed_ints(1);
  EXPECT_THROW(w.begin_neighbourhood_phase({images()}, {}), pgas::usage_error);
  EXPECT_TRUE(w.in_passive_epoch());
}

}  // namespace
