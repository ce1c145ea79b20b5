// An element write to an image reached through MPI on this node is held until the process's
// next operation (runtime/held_write.hpp): a post to the same image carries it as a message,
// anything else issues it first; while a store to that image is unacknowledged, writes to it
// go as messages at once. Each test makes the operation after the write one that must still
// see it — a post, a read, an atomic, a post to another image, a fence phase, a move or the end
// of its array — and checks what lands. With PGAS_SHARED_MEMORY=0 (ordering_test is registered
// so too) every peer takes this path; with shared memory the writes are stores in place and
// the same results must hold.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <cstdint>
#include <utility>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::left;
using pgas_test::me;
using pgas_test::right;

// A run of writes, each followed by a post to the image written: the image posted to reads
// every value in turn, so a write sent after its post, or lost, shows as a wrong value.
TEST(HeldWrite, each_write_arrives_with_the_post_that_follows_it) {
  pgas::coarray<long[]> ghost(1);
  pgas::event ready;
  pgas::event taken;
  constexpr long rounds = 200;
  for (long r = 1; r <= rounds; ++r) {
    ghost(right())[0] = r * 7 + static_cast<long>(me());
    ready.post(right());
    ready.wait();
    EXPECT_EQ(ghost.local()[0], r * 7 + static_cast<long>(left())) << "round " << r;
    taken.post(left());  // the left neighbour may write again
    taken.wait();
  }
  pgas::sync_all();
}

// Several writes per post (a group of rows): after the first post the writes to that image go
// as messages behind its store, the last of each group ahead of the post; every one arrives.
TEST(HeldWrite, every_write_of_a_group_arrives_with_the_post_after_it) {
  constexpr std::size_t group = 4;
  pgas::coarray<long[]> ghost(group);
  pgas::event ready;
  pgas::event taken;
  for (long r = 1; r <= 50; ++r) {
    for (std::size_t k = 0; k < group; ++k)
      ghost(right())[k] = r * 100 + static_cast<long>(10 * k + me());
    ready.post(right());
    ready.wait();
    for (std::size_t k = 0; k < group; ++k) {
      EXPECT_EQ(ghost.local()[k], r * 100 + static_cast<long>(10 * k + left()))
          << "round " << r << ", element " << k;
    }
    taken.post(left());
    taken.wait();
  }
  pgas::sync_all();
}

// The writer reads back what it wrote, and an atomic on the same element follows the write.
TEST(HeldWrite, the_writer_reads_its_write_and_an_atomic_follows_it) {
  pgas::array<long> a(2 * images());
  const std::size_t mine = 2 * right();  // the right neighbour's first element
  a[mine] = 41;
  EXPECT_EQ(a[mine].get(), 41);
  a[mine] = 5;
  EXPECT_EQ(a[mine].fetch_add(1), 5);
  a[mine + 1] = 9;
  a[mine + 1] += 3;  // an accumulate after the write
  pgas::sync_all();
  EXPECT_EQ(a[2 * me()].get(), 6);
  EXPECT_EQ(a[2 * me() + 1].get(), 12);
  pgas::sync_all();
}

// A write to one image, then a post to another: the image posted to reads the write.
TEST(HeldWrite, a_post_to_another_image_completes_the_write_first) {
  if (images() < 3)
    GTEST_SKIP() << "needs a writer, the image written and the image posted to";
  pgas::array<long> a(images());
  pgas::event ev;
  for (long r = 1; r <= 20; ++r) {
    if (me() == 0) {
      a[1] = r;
      ev.post(2);
    } else if (me() == 2) {
      ev.wait();
      EXPECT_EQ(a[1].get(), r);
    }
    pgas::sync_all();
  }
}

// The array is moved, or a fence phase begins on it, while a write to it is held.
TEST(HeldWrite, a_write_follows_its_array_through_a_move_and_into_a_phase) {
  pgas::array<long> a(images());
  a[right()] = 17;
  pgas::array<long> b(std::move(a));
  pgas::sync_all();
  EXPECT_EQ(b.local()[0], 17);
  pgas::sync_all();  // nobody writes again before everyone has checked
  b[right()] = 23;
  { pgas::fence_phase phase(b); }
  EXPECT_EQ(b.local()[0], 23);
  pgas::array<long> c(images());
  c[right()] = 31;
  c = std::move(b);  // the array written is released here: the write goes first
  pgas::sync_all();
  EXPECT_EQ(c.local()[0], 23);
}

// The last write to an array that then ends is issued before its memory goes; later writes
// to another array are untouched by it.
TEST(HeldWrite, an_array_that_ends_takes_its_held_write_with_it) {
  pgas::array<long> kept(images());
  for (int round = 0; round < 3; ++round) {
    {
      pgas::array<long> gone(images());
      gone[right()] = 99;
    }
    kept[right()] = round;
    pgas::sync_all();
    EXPECT_EQ(kept.local()[0], round);
    pgas::sync_all();
  }
}

}  // namespace
