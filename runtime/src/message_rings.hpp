#pragma once
// The message engine's transport between the images of one node: for each ordered pair, a ring
// of slots in a shared window of the receiver, which the sender copies a buffer into and
// publishes with a release store of its number, and a count of the pair's buffers handled,
// which the receiver publishes back (the pair's credit). No MPI call on the way: a round trip
// through MPI_Isend/MPI_Test costs its two calls on either side. Private to runtime/src.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pgas::runtime::messages {

class rings {
 public:
  /// Collective over `node`, whose members all run on one node and are, in node order, the
  /// engine's images `members` (of `images`): each member's inbox, for each other member, of
  /// `slots` slots of `slot_bytes` (buffers of at most that size travel). Images are named by
  /// their engine rank below. Takes `node`, which free_collectively frees. Null on every member
  /// alike, `node` freed, when MPI gives the node no shared window (one-sided components without
  /// shared memory, such as Open MPI's osc/pt2pt alone): buffers then go through MPI.
  [[nodiscard]] static std::unique_ptr<rings> make(MPI_Comm node,
                                                   std::vector<std::size_t> members,
                                                   std::size_t images,
                                                   std::size_t slots,
                                                   std::size_t slot_bytes);
  rings(const rings&) = delete;
  rings& operator=(const rings&) = delete;
  /// Frees the window and the node's communicator: collective over the node.
  void free_collectively() noexcept;
  /// The images the rings join (this one among them), in order.
  [[nodiscard]] const std::vector<std::size_t>& members() const noexcept { return members_; }
  /// A member's place in members().
  [[nodiscard]] std::size_t position_of(std::size_t image) const noexcept {
    return index_of_[image];
  }
  /// True when `image` is another member: buffers to it go through its ring.
  [[nodiscard]] bool reaches(std::size_t image) const noexcept {
    return image < index_of_.size() && index_of_[image] != not_member && image != self_;
  }

  // The sender's side, for the pair (this image -> destination).
  /// True when the destination's next slot from this image is free.
  [[nodiscard]] bool slot_free(std::size_t destination) const noexcept;
  /// Copies `bytes` bytes into that slot and publishes them (slot_free said it is free).
  void publish(std::size_t destination, const std::byte* data, std::size_t bytes) noexcept;
  /// Buffers sent to the destination that it has not yet reported handled.
  [[nodiscard]] std::uint64_t unhandled(std::size_t destination) const noexcept;

  // The receiver's side, for the pair (source -> this image).
  /// The bytes of the next buffer published by `source`, or 0 if there is none yet (a buffer
  /// is never empty).
  [[nodiscard]] std::size_t next_bytes(std::size_t source) const noexcept;
  /// Copies that buffer to `out` and frees its slot for the sender.
  void take(std::size_t source, std::byte* out) noexcept;
  /// Reports one more of source's buffers handled here (its credit back).
  void handled(std::size_t source) noexcept;

 private:
  rings(MPI_Comm node,
        std::vector<std::size_t> members,
        std::size_t images,
        std::size_t slots,
        std::size_t slot_bytes);
  // Lays out this member's inbox in the window's memory at `base` and finds the others'.
  void open(void* base);
  struct pair_state;
  struct slot_header;
  [[nodiscard]] pair_state& pair(std::byte* inbox, std::size_t source) const noexcept;
  [[nodiscard]] slot_header& slot(std::byte* inbox,
                                  std::size_t source,
                                  std::uint64_t k) const noexcept;

  static constexpr std::size_t not_member = ~std::size_t{0};
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<std::size_t> members_;   // engine ranks, by node rank
  std::vector<std::size_t> index_of_;  // node rank, by engine rank (not_member elsewhere)
  std::size_t self_ = 0;               // this image's engine rank
  std::size_t rank_ = 0;               // and its node rank
  std::size_t slots_ = 0;
  std::size_t slot_stride_ = 0;  // a slot's header and data, in whole cache lines
  std::size_t pair_stride_ = 0;  // a pair's state and slots
  std::byte* mine_ = nullptr;    // this image's inbox
  // By node rank:
  std::vector<std::byte*> inbox_of_;     // of each destination
  std::vector<std::uint64_t> sent_;      // to each destination
  std::vector<std::uint64_t> taken_;     // from each source
  std::vector<std::uint64_t> reported_;  // from each source: handled, as published
};

}  // namespace pgas::runtime::messages
