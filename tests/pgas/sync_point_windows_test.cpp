// A sync point completes this image's writes on every window it wrote to, however many other
// windows are live, made or freed in between: the sync points visit only the windows with
// something to complete (runtime/src/window_completion.cpp), so a window the runtime forgot to
// list would keep its writes back. Registered with PGAS_SHARED_MEMORY=0 and
// PGAS_TEST_REORDER_PUTS=1 too, where the test's MPI layer holds every put until its window is
// flushed: a write on a window the sync point skipped never lands there, and the reads fail.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <cstddef>
#include <memory>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::left;
using pgas_test::me;
using pgas_test::right;

// Arrays of one element per image, each image's element written by its left neighbour.
using ring = pgas::array<long>;
std::vector<std::unique_ptr<ring>> make_rings(std::size_t n) {
  std::vector<std::unique_ptr<ring>> rings;
  for (std::size_t k = 0; k < n; ++k) rings.push_back(std::make_unique<ring>(images()));
  return rings;
}
long mark(std::size_t window, std::size_t writer) {
  return static_cast<long>(1000 * (window + 1) + writer);
}

TEST(SyncPointWindows, complete_the_written_windows_among_many_untouched) {
  auto rings = make_rings(40);
  pgas::sync_all();
  // Two windows written, far apart in the order they were made; the others untouched.
  for (const std::size_t k : {3u, 37u}) (*rings[k])[right()] = mark(k, me());
  pgas::sync_all();
  for (const std::size_t k : {3u, 37u}) EXPECT_EQ(rings[k]->local()[0], mark(k, left()));
  EXPECT_EQ(rings[0]->local()[0], 0);
  pgas::sync_all();
}

TEST(SyncPointWindows, complete_a_write_made_before_windows_came_and_went) {
  ring written(images());
  pgas::sync_all();
  written[right()] = mark(0, me());
  {
    // Made and freed between the write and the sync point: freed ones go to the window pool,
    // and the next of the same shape comes back from it.
    auto passing = make_rings(5);
    (*passing[2])[right()] = mark(2, me());
  }
  auto after = make_rings(2);
  (*after[1])[right()] = mark(9, me());
  pgas::sync_all();
  EXPECT_EQ(written.local()[0], mark(0, left()));
  EXPECT_EQ(after[1]->local()[0], mark(9, left()));
  EXPECT_EQ(after[0]->local()[0], 0);
  pgas::sync_all();
}

TEST(SyncPointWindows, complete_each_round_of_writes_to_windows_written_before) {
  auto rings = make_rings(8);
  pgas::sync_all();
  // A window completed at one sync point and written again is completed at the next.
  for (long round = 1; round <= 4; ++round) {
    for (std::size_t k = static_cast<std::size_t>(round) % 2; k < rings.size(); k += 2)
      (*rings[k])[right()] = round * mark(k, me());
    pgas::sync_all();
    for (std::size_t k = static_cast<std::size_t>(round) % 2; k < rings.size(); k += 2)
      EXPECT_EQ(rings[k]->local()[0], round * mark(k, left())) << "round " << round;
    pgas::sync_all();
  }
}

TEST(SyncPointWindows, a_window_written_in_a_fence_phase_is_completed_in_either_epoch) {
  auto rings = make_rings(6);
  pgas::sync_all();
  (*rings[4])[right()] = mark(4, me());  // passive, listed for the sync point below
  {
    // A sync point inside the phase leaves the phase's window to the phase, and still completes
    // the passive window written before it.
    pgas::fence_phase phase(*rings[1]);
    (*rings[1])[right()] = mark(1, me());
    pgas::sync_all();
    EXPECT_EQ(rings[4]->local()[0], mark(4, left()));
    phase.fence();
    EXPECT_EQ(rings[1]->local()[0], mark(1, left()));
  }
  // Back in its passive epoch, the same window's next write completes at the next sync point.
  (*rings[1])[right()] = 2 * mark(1, me());
  pgas::sync_all();
  EXPECT_EQ(rings[1]->local()[0], 2 * mark(1, left()));
  pgas::sync_all();
}

TEST(SyncPointWindows, an_event_post_completes_the_posters_writes_on_every_window) {
  auto rings = make_rings(30);
  pgas::event written;
  pgas::sync_all();
  for (const std::size_t k : {0u, 17u, 29u}) (*rings[k])[right()] = mark(k, me());
  written.post(right());
  written.wait();
  for (const std::size_t k : {0u, 17u, 29u}) EXPECT_EQ(rings[k]->local()[0], mark(k, left()));
  pgas::sync_all();
}

TEST(SyncPointWindows, sync_images_completes_the_writes_on_every_window) {
  auto rings = make_rings(20);
  pgas::sync_all();
  (*rings[11])[right()] = mark(11, me());
  // Pairwise with both neighbours: the right one's element was written, the left one wrote ours.
  if (images() == 1) {
    pgas::sync_images({me()});
  } else if (images() == 2) {
    pgas::sync_images({right()});
  } else {
    pgas::sync_images({left(), right()});
  }
  EXPECT_EQ(rings[11]->local()[0], mark(11, left()));
  pgas::sync_all();
}

}  // namespace
