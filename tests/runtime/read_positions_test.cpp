// The room that places a gather's answers (owner_reads::pending::positions_room): the lists of
// many requests share blocks of kept scratch, never overlap, stay where they are when a new
// block starts, and go back to the kept scratch when the reads are done, for the next gather.

#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/owner_reads.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using pgas::runtime::kept_scratch_bytes;
using pgas::runtime::kept_scratch_smallest;
using pgas::runtime::owner_reads::pending;

constexpr std::size_t positions_per_block = kept_scratch_smallest / sizeof(std::uint32_t);

// Fills `rooms` requests' rooms of `each` positions with their own numbers; returns how many
// positions no longer hold theirs once all are given.
std::size_t overwritten_positions(pending& reads, std::size_t rooms, std::size_t each) {
  std::vector<std::uint32_t*> given;
  for (std::size_t r = 0; r < rooms; ++r) {
    std::uint32_t* const room = reads.positions_room(each);
    for (std::size_t k = 0; k < each; ++k) room[k] = static_cast<std::uint32_t>(r * each + k);
    given.push_back(room);
  }
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < rooms; ++r) {
    for (std::size_t k = 0; k < each; ++k)
      wrong += given[r][k] == static_cast<std::uint32_t>(r * each + k) ? 0U : 1U;
  }
  return wrong;
}

TEST(ReadPositions, the_rooms_of_many_requests_across_blocks_neither_overlap_nor_move) {
  pending reads;
  // A request's list is a few thousand positions, and a block ends where the next list does
  // not fit: these span four blocks, one list not a divisor of a block.
  constexpr std::size_t each = 4000;
  EXPECT_EQ(overwritten_positions(reads, 3 * positions_per_block / each + 7, each), 0U);
}

TEST(ReadPositions, a_list_longer_than_a_block_gets_a_block_of_its_own) {
  pending reads;
  EXPECT_EQ(overwritten_positions(reads, 3, 2 * positions_per_block + 1), 0U);
}

TEST(ReadPositions, the_blocks_go_back_to_the_kept_scratch_for_the_next_gather) {
  // Other tests in this process keep blocks too: what counts is what this gather's reads add to
  // the keep when done, and that the next gather draws on the keep rather than on new memory.
  std::size_t kept_while_reading = 0;
  {
    pending reads;
    reads.positions_room(100)[99] = 1;
    kept_while_reading = kept_scratch_bytes();
  }
  const std::size_t kept_when_done = kept_scratch_bytes();
  EXPECT_GE(kept_when_done, kept_while_reading + kept_scratch_smallest);
  pending next;
  next.positions_room(100)[99] = 2;
  EXPECT_LE(kept_scratch_bytes() + kept_scratch_smallest, kept_when_done);
}

}  // namespace
