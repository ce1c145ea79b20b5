#include "message_rings.hpp"

#include <pgas/runtime/error.hpp>

#include <atomic>
#include <cstring>
#include <new>
#include <utility>

namespace pgas::runtime::messages {

// Each on cache lines of its own: the sender writes a slot's header and data, the receiver the
// pair's handled count, and neither line is shared by what the other side writes.
struct rings::pair_state {
  alignas(64) std::atomic<std::uint64_t> handled;  // written by the receiver
};
struct rings::slot_header {
  alignas(64) std::atomic<std::uint64_t> number;  // 0: free; else the buffer's number, from 1
  std::uint64_t bytes;
};

namespace {
constexpr std::size_t line = 64;
constexpr std::size_t whole_lines(std::size_t bytes) {
  return (bytes + line - 1) / line * line;
}
std::byte* at_line(void* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  return static_cast<std::byte*>(p) + (whole_lines(address) - address);
}
}  // namespace

rings::rings(MPI_Comm node,
             std::vector<std::size_t> members,
             std::size_t images,
             std::size_t slots,
             std::size_t slot_bytes)
    : node_(node),
      members_(std::move(members)),
      index_of_(images, not_member),
      slots_(slots),
      slot_stride_(sizeof(slot_header) + whole_lines(slot_bytes)),
      pair_stride_(sizeof(pair_state) + slots * (sizeof(slot_header) + whole_lines(slot_bytes))),
      inbox_of_(members_.size()),
      sent_(members_.size()),
      taken_(members_.size()),
      reported_(members_.size()) {
  const std::size_t size = members_.size();
  for (std::size_t k = 0; k < size; ++k) index_of_[members_[k]] = k;
  int rank = 0;
  check(MPI_Comm_rank(node_, &rank), "MPI_Comm_rank");
  rank_ = static_cast<std::size_t>(rank);
  self_ = members_[rank_];
}

std::unique_ptr<rings> rings::make(MPI_Comm node,
                                   std::vector<std::size_t> members,
                                   std::size_t images,
                                   std::size_t slots,
                                   std::size_t slot_bytes) {
  std::unique_ptr<rings> r(new rings(node, std::move(members), images, slots, slot_bytes));
  const std::size_t size = r->members_.size();
  // MPI promises no alignment: each inbox starts at the first cache line of its memory (a
  // segment every process maps at a page boundary, so each finds the same line).
  void* base = nullptr;
  const int err = MPI_Win_allocate_shared(static_cast<MPI_Aint>(r->pair_stride_ * size + line), 1,
                                          MPI_INFO_NULL, node, &base, &r->win_);
  int made = err == MPI_SUCCESS ? 1 : 0;
  int members_made = 0;
  check(MPI_Allreduce(&made, &members_made, 1, MPI_INT, MPI_SUM, node), "MPI_Allreduce");
  if (members_made == 0) {
    MPI_Comm_free(&r->node_);
    return nullptr;
  }
  check(err, "MPI_Win_allocate_shared");
  if (static_cast<std::size_t>(members_made) != size) {
    throw mpi_error(MPI_ERR_WIN, "MPI_Win_allocate_shared",
                    "MPI_Win_allocate_shared failed on another image of this node");
  }
  r->open(base);
  return r;
}

void rings::open(void* base) {
  const std::size_t size = members_.size();
  mine_ = at_line(base);
  // Failures on it come back as pgas::mpi_error, as on the runtime's other windows.
  check(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  for (std::size_t source = 0; source < size; ++source) {
    ::new (static_cast<void*>(&pair(mine_, source))) pair_state{};
    for (std::size_t k = 0; k < slots_; ++k)
      ::new (static_cast<void*>(&slot(mine_, source, k))) slot_header{};
  }
  for (std::size_t d = 0; d < size; ++d) {
    MPI_Aint bytes = 0;
    int unit = 0;
    void* theirs = nullptr;
    check(MPI_Win_shared_query(win_, static_cast<int>(d), &bytes, &unit, &theirs),
          "MPI_Win_shared_query");
    inbox_of_[d] = at_line(theirs);
  }
  // Nobody writes into an inbox before its owner has made it.
  check(MPI_Barrier(node_), "MPI_Barrier");
}

void rings::free_collectively() noexcept {
  if (win_ != MPI_WIN_NULL)
    MPI_Win_free(&win_);
  if (node_ != MPI_COMM_NULL)
    MPI_Comm_free(&node_);
}

rings::pair_state& rings::pair(std::byte* inbox, std::size_t source) const noexcept {
  return *std::launder(reinterpret_cast<pair_state*>(inbox + source * pair_stride_));
}

rings::slot_header& rings::slot(std::byte* inbox,
                                std::size_t source,
                                std::uint64_t k) const noexcept {
  std::byte* at = inbox + source * pair_stride_ + sizeof(pair_state) + (k % slots_) * slot_stride_;
  return *std::launder(reinterpret_cast<slot_header*>(at));
}

bool rings::slot_free(std::size_t image) const noexcept {
  const std::size_t destination = index_of_[image];
  return slot(inbox_of_[destination], rank_, sent_[destination])
             .number.load(std::memory_order_acquire) == 0;
}

void rings::publish(std::size_t image, const std::byte* data, std::size_t bytes) noexcept {
  const std::size_t destination = index_of_[image];
  slot_header& s = slot(inbox_of_[destination], rank_, sent_[destination]);
  s.bytes = bytes;
  std::memcpy(reinterpret_cast<std::byte*>(&s) + sizeof(slot_header), data, bytes);
  s.number.store(++sent_[destination], std::memory_order_release);
}

std::uint64_t rings::unhandled(std::size_t image) const noexcept {
  const std::size_t destination = index_of_[image];
  return sent_[destination] -
         pair(inbox_of_[destination], rank_).handled.load(std::memory_order_acquire);
}

std::size_t rings::next_bytes(std::size_t image) const noexcept {
  const std::size_t source = index_of_[image];
  const slot_header& s = slot(mine_, source, taken_[source]);
  if (s.number.load(std::memory_order_acquire) != taken_[source] + 1)
    return 0;
  return static_cast<std::size_t>(s.bytes);
}

void rings::take(std::size_t image, std::byte* out) noexcept {
  const std::size_t source = index_of_[image];
  slot_header& s = slot(mine_, source, taken_[source]);
  std::memcpy(out, reinterpret_cast<const std::byte*>(&s) + sizeof(slot_header), s.bytes);
  ++taken_[source];
  s.number.store(0, std::memory_order_release);
}

void rings::handled(std::size_t image) noexcept {
  const std::size_t source = index_of_[image];
  pair(mine_, source).handled.store(++reported_[source], std::memory_order_release);
}

}  // namespace pgas::runtime::messages
