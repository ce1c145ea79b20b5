#pragma once
// Reads of scattered elements that the image owning the memory answers itself: the reader sends
// each owner the element offsets it wants, in as few engine messages as hold them, and the owner
// replies with the values, read with plain loads. What the fastest hand-written gathers do (bale's
// index gather: a request, then a reply, per batch) where a derived-datatype MPI_Get of many
// one-element runs is slow: without shared memory, and above all between nodes.
//
// Progress: the owner answers when it makes progress (messages.hpp's rule), as it applies
// updates; the reader makes progress while it waits, so two images reading each other answer
// each other.
//
// Ordering: a read follows this image's earlier writes to the owner (window::ordering_for_owner
// completes those that went through MPI; batches for the owner to apply go ahead of it on the
// engine's ordered channel), so an image reads its own writes, as with MPI_Get.

#include <pgas/runtime/element_runs.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <vector>

namespace pgas::runtime::owner_reads {

class pending;

namespace detail {

// What precedes a request's element offsets.
struct request_header {
  std::uint64_t window_name;
  std::int64_t disp;     // where element offset 0 is, on the owner
  std::uint64_t answer;  // the reader's request record
  std::uint32_t count;
  std::uint8_t wide;  // offsets of 8 bytes (else 4)
  std::uint8_t unused[3];
};
static_assert(sizeof(request_header) == 32);

// At the reader: where one request's answer goes.
struct request_record {
  std::byte* into;               // the reader's buffer, element 0
  std::vector<MPI_Aint> origin;  // where each answered element goes, in elements
  std::size_t* outstanding;      // the pending reads' count
};

using owner_updates::detail::read;

// At the reader: an answer, its values in request order.
template <class T>
void on_answer(std::size_t, std::span<const std::byte> payload) {
  auto* r = reinterpret_cast<request_record*>(
      static_cast<std::uintptr_t>(read<std::uint64_t>(payload.data())));
  const std::byte* values = payload.data() + sizeof(std::uint64_t);
  for (std::size_t k = 0; k < r->origin.size(); ++k) {
    std::memcpy(r->into + static_cast<std::size_t>(r->origin[k]) * sizeof(T),
                values + k * sizeof(T), sizeof(T));
  }
  --*r->outstanding;
}

// At the owner: reads the elements asked for, a few ahead in flight, and answers at once.
template <class T>
void on_request(std::size_t source, std::span<const std::byte> payload) {
  const auto h = read<request_header>(payload.data());
  window& w = owner_updates::detail::named(h.window_name, "a read");
  const auto* from = static_cast<const T*>(w.own_memory_for_update(h.disp));
  const std::byte* offsets = payload.data() + sizeof h;
  const auto offset = [&](std::size_t k) -> std::size_t {
    return h.wide != 0 ? static_cast<std::size_t>(read<std::uint64_t>(offsets + 8 * k))
                       : read<std::uint32_t>(offsets + 4 * k);
  };
  std::byte* answer = messages::reserve_reply(source, messages::name_of(&on_answer<T>),
                                              sizeof(std::uint64_t) + h.count * sizeof(T))
                          .data();
  std::memcpy(answer, &h.answer, sizeof h.answer);
  std::byte* values = answer + sizeof(std::uint64_t);
  constexpr std::size_t ahead = 16;
  for (std::size_t k = 0; k < h.count; ++k) {
    if (k + ahead < h.count)
      __builtin_prefetch(from + offset(k + ahead), 0);
    std::memcpy(values + k * sizeof(T), from + offset(k), sizeof(T));
  }
  statistics::count_many(&rma_stats::owner_reads, h.count, h.count * sizeof(T));
}

// At the reader: sends one request for the elements at `offsets` (from `disp`) of the window
// w's image whose engine number is `owner`, answered into into[positions[k]].
template <class T>
void send_request(window& w,
                  std::size_t owner,
                  T* into,
                  std::span<const MPI_Aint> positions,
                  std::span<const MPI_Aint> offsets,
                  MPI_Aint disp,
                  bool wide,
                  pending& reads);

}  // namespace detail

/// Reads in flight at their owners. Done once every answer has arrived; it must outlive them
/// (its destructor waits). Neither copyable nor movable: the answers find it by address.
class pending {
 public:
  pending() = default;
  pending(const pending&) = delete;
  pending& operator=(const pending&) = delete;
  pending(pending&&) = delete;
  pending& operator=(pending&&) = delete;
  ~pending() {
    if (outstanding_ == 0)
      return;
    try {
      wait();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: waiting for reads answered by their owners: %s\n", e.what());
    }
  }
  /// True once every answer is in. Makes no progress. Local.
  [[nodiscard]] bool done() const noexcept { return outstanding_ == 0; }
  /// Makes progress until every answer is in. Local (it needs the owners to make progress).
  void wait() {
    messages::progress_until([this] { return outstanding_ == 0; });
    records_.clear();
  }

 private:
  template <class T>
  friend void detail::send_request(window&,
                                   std::size_t,
                                   T*,
                                   std::span<const MPI_Aint>,
                                   std::span<const MPI_Aint>,
                                   MPI_Aint,
                                   bool,
                                   pending&);
  std::size_t outstanding_ = 0;
  std::deque<detail::request_record> records_;  // stable addresses
};

template <class T>
void detail::send_request(window& w,
                          std::size_t owner,
                          T* into,
                          std::span<const MPI_Aint> positions,
                          std::span<const MPI_Aint> offsets,
                          MPI_Aint disp,
                          bool wide,
                          pending& reads) {
  const std::size_t n = positions.size();
  const std::size_t offset_bytes = wide ? 8 : 4;
  request_record& r = reads.records_.emplace_back();
  r.into = reinterpret_cast<std::byte*>(into);
  r.origin.assign(positions.begin(), positions.end());
  r.outstanding = &reads.outstanding_;
  std::byte* at = messages::reserve(owner, messages::name_of(&on_request<T>),
                                    sizeof(request_header) + n * offset_bytes)
                      .data();
  ++reads.outstanding_;
  const request_header h{w.name(),
                         static_cast<std::int64_t>(disp),
                         static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&r)),
                         static_cast<std::uint32_t>(n),
                         static_cast<std::uint8_t>(wide ? 1 : 0),
                         {0, 0, 0}};
  std::memcpy(at, &h, sizeof h);
  at += sizeof h;
  for (std::size_t k = 0; k < n; ++k) {
    if (wide) {
      const auto v = static_cast<std::uint64_t>(offsets[k]);
      std::memcpy(at + 8 * k, &v, 8);
    } else {
      const auto v = static_cast<std::uint32_t>(offsets[k]);
      std::memcpy(at + 4 * k, &v, 4);
    }
  }
}

/// True when a read of `target_runs` on w is faster answered by the owner than as one MPI_Get:
/// the window's owner applies updates (no shared memory), and the runs are short and irregular,
/// so that MPI would describe each run in an hindexed datatype (16 bytes a run) where a request
/// carries 4 bytes an element. Long runs, and strided patterns (one vector datatype), go as
/// MPI_Get, which moves them without the owner. Local.
[[nodiscard]] inline bool answered_by_owner(const window& w, const element_runs& target_runs) {
  return w.owner_applies_updates() &&
         4 * target_runs.elements() <= 16 * target_runs.starts().size() &&
         !target_runs.equally_spaced();
}

/// Starts reading the `target_runs` at `disp` on `target` into the `origin` runs at `into`
/// (as many elements), answered by the owner; the data is in once `reads` is done. `into`
/// must stay untouched until then. Local. The window must owner_applies_updates(), and target
/// must not be this process.
template <class T>
void get(window& w,
         T* into,
         const element_runs& origin,
         int target,
         MPI_Aint disp,
         const element_runs& target_runs,
         pending& reads) {
  if (origin.empty())
    return;
  w.ordering_for_owner(target, disp, static_cast<std::size_t>(target_runs.end()) * sizeof(T));
  const runtime::detail::element_pairs pairs = runtime::detail::pairs_of(origin, target_runs);
  const std::vector<MPI_Aint>& o = pairs.origin;
  const std::vector<MPI_Aint>& t = pairs.target;
  const bool wide =
      static_cast<std::uint64_t>(target_runs.end()) > std::numeric_limits<std::uint32_t>::max();
  const std::size_t offset_bytes = wide ? 8 : 4;
  // As many elements as one message carries, both ways.
  const std::size_t room = messages::max_message_bytes();
  const std::size_t per_message =
      std::max<std::size_t>(1, std::min((room - sizeof(detail::request_header)) / offset_bytes,
                                        (room - sizeof(std::uint64_t)) / sizeof(T)));
  const auto owner = static_cast<std::size_t>(w.world_rank_of(target));
  for (std::size_t first = 0; first < o.size(); first += per_message) {
    const std::size_t n = std::min(per_message, o.size() - first);
    detail::send_request<T>(w, owner, into, std::span(o).subspan(first, n),
                            std::span(t).subspan(first, n), disp, wide, reads);
  }
  // Someone waits for the answers: the requests go now, not when the buffer fills.
  messages::flush(owner);
}

/// Reads of single elements listed one by one (a gather), answered by their owners: add()
/// queues one, and each owner's requests go as soon as one message is full; finish() sends the
/// rest. The data is in once `reads` is done; `into` must stay untouched until then. The window
/// must owner_applies_updates(). Local.
template <class T>
class listed_reads {
 public:
  listed_reads(window& w, T* into, pending& reads)
      : w_{w}, into_{into}, reads_{reads}, queued_(static_cast<std::size_t>(w.ranks())) {}
  listed_reads(const listed_reads&) = delete;
  listed_reads& operator=(const listed_reads&) = delete;
  ~listed_reads() = default;

  /// Element `offset` of the part that starts at `disp` on `target` (not this process), `bytes`
  /// long, goes to into[position].
  void add(int target, MPI_Aint disp, std::size_t bytes, std::size_t offset, std::size_t position) {
    queue& q = queued_[static_cast<std::size_t>(target)];
    if (q.positions.empty()) {
      if (!q.ordered) {
        w_.ordering_for_owner(target, disp, bytes);
        q.ordered = true;
        q.wide = bytes / sizeof(T) > std::numeric_limits<std::uint32_t>::max();
        q.disp = disp;
        q.owner = static_cast<std::size_t>(w_.world_rank_of(target));
      }
      q.positions.reserve(per_message());
      q.offsets.reserve(per_message());
    }
    q.positions.push_back(static_cast<MPI_Aint>(position));
    q.offsets.push_back(static_cast<MPI_Aint>(offset));
    if (q.positions.size() == per_message())
      send(q);
  }
  /// Sends every queued request. Local.
  void finish() {
    for (queue& q : queued_) {
      if (!q.positions.empty())
        send(q);
      if (q.ordered)
        messages::flush(q.owner);  // someone waits for the answers
    }
  }

 private:
  struct queue {
    std::vector<MPI_Aint> positions;
    std::vector<MPI_Aint> offsets;
    MPI_Aint disp = 0;
    std::size_t owner = 0;
    bool ordered = false;
    bool wide = false;
  };
  // Requests of a few thousand elements: the owner answers the first while later ones are
  // queued, and a request's bookkeeping stays in the cache (bale's exstack uses 1024).
  static std::size_t per_message() {
    const std::size_t room = messages::max_message_bytes();
    return std::clamp<std::size_t>(std::min((room - sizeof(detail::request_header)) / 8,
                                            (room - sizeof(std::uint64_t)) / sizeof(T)),
                                   1, 4096);
  }
  void send(queue& q) {
    detail::send_request<T>(w_, q.owner, into_, q.positions, q.offsets, q.disp, q.wide, reads_);
    q.positions.clear();
    q.offsets.clear();
    // The owner may answer while more requests are made, and others' requests get answers here.
    messages::flush(q.owner);
    (void)messages::progress();
  }
  window& w_;
  T* into_;
  pending& reads_;
  std::vector<queue> queued_;
};

}  // namespace pgas::runtime::owner_reads
