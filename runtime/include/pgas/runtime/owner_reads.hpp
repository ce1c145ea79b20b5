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

#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/element_runs.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/kept_scratch.hpp>
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
#include <memory>
#include <new>
#include <type_traits>
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

// At the reader: where one request's answer goes: into[positions[k]], the positions 4 bytes
// each where a list's are (listed_reads: in the pending reads' position blocks), else 8.
struct request_record {
  std::byte* into;  // the reader's buffer, element 0
  const std::uint32_t* narrow_positions = nullptr;
  std::unique_ptr<MPI_Aint[]> wide_positions;
  std::size_t count;
  std::size_t* outstanding;  // the pending reads' count
};

template <class T, class Position>
void scatter_answer(std::byte* into,
                    const Position* positions,
                    std::size_t n,
                    const std::byte* values) {
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(into + static_cast<std::size_t>(positions[k]) * sizeof(T), values + k * sizeof(T),
                sizeof(T));
  }
}

using owner_updates::detail::read;

// At the reader: an answer, its values in request order.
template <class T>
void on_answer(std::size_t, std::span<const std::byte> payload) {
  auto* r = reinterpret_cast<request_record*>(
      static_cast<std::uintptr_t>(read<std::uint64_t>(payload.data())));
  const std::byte* values = payload.data() + sizeof(std::uint64_t);
  if (r->narrow_positions) {
    scatter_answer<T>(r->into, r->narrow_positions, r->count, values);
  } else {
    scatter_answer<T>(r->into, r->wide_positions.get(), r->count, values);
  }
  --*r->outstanding;
}

// put(k, from[offset(k)]) for k < n: an owner's reads of the elements a request names (or an
// image's of its own), each line asked for as far ahead as such reads run best here.
template <class T, class Offset, class Put>
void read_scattered(const T* from, std::size_t n, Offset offset, Put put) {
  for_each_piece_asking_ahead(scattered_loop::owner_reads, n,
                              [=](std::size_t first, std::size_t last, std::size_t ahead) {
                                // Copies in the loop's own locals, which no store of a T can reach
                                // (a long aliases a count): read from the closure after every
                                // element, they made the loop slower.
                                const T* const source = from;
                                const std::size_t total = n;
                                for (std::size_t k = first; k < last; ++k) {
                                  if (ahead != 0 && k + ahead < total)
                                    __builtin_prefetch(source + offset(k + ahead), 0);
                                  put(k, source[offset(k)]);
                                }
                              });
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
  std::byte* answer = messages::reserve_reply(source, messages::name_of<&on_answer<T>>(),
                                              sizeof(std::uint64_t) + h.count * sizeof(T))
                          .data();
  std::memcpy(answer, &h.answer, sizeof h.answer);
  std::byte* values = answer + sizeof(std::uint64_t);
  detail::read_scattered(from, h.count, offset, [values](std::size_t k, const T& v) {
    std::memcpy(values + k * sizeof(T), &v, sizeof(T));
  });
  statistics::count_many(&rma_stats::owner_reads, h.count, h.count * sizeof(T));
}

// At the reader: sends one request for the elements at offsets[0, n) (from `disp`) of the
// window w's image whose engine number is `owner`, answered into into[positions[k]]; the
// request's record keeps `positions`. Offset: std::uint32_t or std::uint64_t, as they travel;
// Positions: a pointer to std::uint32_t (room from pending::positions_room) or
// std::unique_ptr<MPI_Aint[]>.
template <class T, class Positions, class Offset>
void send_request(window& w,
                  std::size_t owner,
                  T* into,
                  Positions positions,
                  const Offset* offsets,
                  std::size_t n,
                  MPI_Aint disp,
                  pending& reads);

// As many elements as one message carries both ways: a request of Offsets and its answer of
// Ts (at least one).
template <class T, class Offset>
std::size_t elements_per_message() {
  const std::size_t room = messages::max_message_bytes();
  return std::max<std::size_t>(1, std::min((room - sizeof(request_header)) / sizeof(Offset),
                                           (room - sizeof(std::uint64_t)) / sizeof(T)));
}

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
    position_blocks_.clear();
    block_used_ = 0;
  }

  /// Room for `n` positions that lasts until every answer is in, for the lists that place the
  /// answers. Carved from blocks of kept scratch: one list allocated per request, glibc gave the
  /// freed lists back to the kernel and the next gather faulted them in again (a page fault costs
  /// 10 us on some VMs: a sixth of a gather through MPI there). Local.
  [[nodiscard]] std::uint32_t* positions_room(std::size_t n) {
    if (position_blocks_.empty() || position_blocks_.back().size() - block_used_ < n) {
      position_blocks_.emplace_back(std::max(n, position_block_length));
      block_used_ = 0;
    }
    std::uint32_t* const room = position_blocks_.back().data() + block_used_;
    block_used_ += n;
    return room;
  }

 private:
  // Blocks large enough for the kept scratch to keep between gathers.
  static constexpr std::size_t position_block_length =
      kept_scratch_smallest / sizeof(std::uint32_t);
  template <class T, class Positions, class Offset>
  friend void detail::send_request(
      window&, std::size_t, T*, Positions, const Offset*, std::size_t, MPI_Aint, pending&);
  std::size_t outstanding_ = 0;
  std::deque<detail::request_record> records_;  // stable addresses
  std::vector<scratch_vector<std::uint32_t>> position_blocks_;
  std::size_t block_used_ = 0;  // of the last block
};

template <class T, class Positions, class Offset>
void detail::send_request(window& w,
                          std::size_t owner,
                          T* into,
                          Positions positions,
                          const Offset* offsets,
                          std::size_t n,
                          MPI_Aint disp,
                          pending& reads) {
  static_assert(std::is_same_v<Offset, std::uint32_t> || std::is_same_v<Offset, std::uint64_t>);
  constexpr bool wide = sizeof(Offset) == 8;
  request_record& r = reads.records_.emplace_back();
  r.into = reinterpret_cast<std::byte*>(into);
  if constexpr (std::is_convertible_v<Positions, const std::uint32_t*>) {
    r.narrow_positions = positions;
  } else {
    static_assert(std::is_same_v<Positions, std::unique_ptr<MPI_Aint[]>>);
    r.wide_positions = std::move(positions);
  }
  r.count = n;
  r.outstanding = &reads.outstanding_;
  std::byte* at = messages::reserve(owner, messages::name_of<&on_request<T>>(),
                                    sizeof(request_header) + n * sizeof(Offset))
                      .data();
  ++reads.outstanding_;
  ::new (static_cast<void*>(at))
      request_header{w.name(),
                     static_cast<std::int64_t>(disp),
                     static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&r)),
                     static_cast<std::uint32_t>(n),
                     static_cast<std::uint8_t>(wide ? 1 : 0),
                     {0, 0, 0}};  // in place (messages.hpp: headers)
  std::memcpy(at + sizeof(request_header), offsets, n * sizeof(Offset));
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
  const auto owner = static_cast<std::size_t>(w.world_rank_of(target));
  const auto send_all = [&]<class Offset>(Offset) {
    const std::size_t per_message = detail::elements_per_message<T, Offset>();
    std::vector<Offset> offsets(per_message);
    for (std::size_t first = 0; first < o.size(); first += per_message) {
      const std::size_t n = std::min(per_message, o.size() - first);
      auto positions = std::make_unique_for_overwrite<MPI_Aint[]>(n);
      std::copy_n(o.data() + first, n, positions.get());
      for (std::size_t k = 0; k < n; ++k) offsets[k] = static_cast<Offset>(t[first + k]);
      detail::send_request<T>(w, owner, into, std::move(positions), offsets.data(), n, disp, reads);
    }
  };
  if (wide) {
    send_all(std::uint64_t{});
  } else {
    send_all(std::uint32_t{});
  }
  // Someone waits for the answers: the requests go now, not when the buffer fills.
  messages::flush(owner);
}

/// Reads of single elements listed one by one (a gather), answered by their owners: add()
/// queues one, and each owner's requests go as soon as one message is full; finish() sends the
/// rest. Elements of this process's own part are queued alike and copied when their queue
/// fills, a few loads ahead in flight: the caller's loop has no branch on the owner, which is
/// random in a gather (what bale's exstack does with its own bucket). Positions are below 2^32
/// (a longer list is read in pieces) and offsets are `Offset`s, std::uint32_t where every part
/// has fewer than 2^32 elements: 4-byte stores, which the compiler knows alias none of the
/// caller's 8-byte state, so its loop keeps that state in registers. The data is in once
/// `reads` is done; `into` must stay untouched until then. The window must
/// owner_applies_updates(). Local.
template <class T, class Offset = std::uint32_t>
class listed_reads {
 public:
  /// Longest list one listed_reads takes.
  static constexpr std::size_t most_positions = std::numeric_limits<std::uint32_t>::max();

  /// `own_part`: this process's part of the window, as element 0 of what add() calls its
  /// offsets.
  listed_reads(window& w, T* into, pending& reads, const T* own_part)
      : w_{w},
        into_{into},
        reads_{reads},
        own_part_{own_part},
        self_{static_cast<std::size_t>(w.rank())},
        per_message_{per_message()},
        queued_(static_cast<std::size_t>(w.ranks())) {}
  listed_reads(const listed_reads&) = delete;
  listed_reads& operator=(const listed_reads&) = delete;
  ~listed_reads() = default;

  /// Element `offset` (an Offset) of `target`'s part goes to into[position] (position <
  /// most_positions). part() gives that part's displacement (MPI_Aint) and bytes (std::size_t),
  /// as a pair; it is called once per target.
  template <class Part>
  void add(std::size_t target, std::size_t offset, std::size_t position, const Part& part) {
    queue& q = queued_[target];
    if (q.positions == nullptr) [[unlikely]]
      start(q, target, part);
    q.positions[q.count] = static_cast<std::uint32_t>(position);
    q.offsets[q.count] = static_cast<Offset>(offset);
    if (++q.count == per_message_) [[unlikely]]
      send(q, target);
  }
  /// Sends every queued request. Local.
  void finish() {
    for (std::size_t target = 0; target < queued_.size(); ++target) {
      queue& q = queued_[target];
      if (q.count > 0)
        send(q, target);
      if (q.positions != nullptr && target != self_)
        messages::flush(q.owner);  // someone waits for the answers
    }
  }

 private:
  struct queue {
    std::uint32_t* positions = nullptr;  // room from reads_.positions_room
    std::unique_ptr<Offset[]> offsets;
    std::size_t count = 0;
    MPI_Aint disp = 0;
    std::size_t owner = 0;
  };
  // Requests of a few thousand elements: the owner answers the first while later ones are
  // queued, and a request's bookkeeping stays in the cache (bale's exstack uses 1024).
  static std::size_t per_message() {
    return std::min<std::size_t>(detail::elements_per_message<T, Offset>(), 4096);
  }
  template <class Part>
  void start(queue& q, std::size_t target, const Part& part) {
    q.positions = reads_.positions_room(per_message_);
    q.offsets = std::make_unique_for_overwrite<Offset[]>(per_message_);
    if (target == self_)
      return;
    const auto [disp, bytes] = part();
    w_.ordering_for_owner(static_cast<int>(target), disp, bytes);
    q.disp = disp;
    q.owner = static_cast<std::size_t>(w_.world_rank_of(static_cast<int>(target)));
  }
  void send(queue& q, std::size_t target) {
    const std::size_t n = q.count;
    q.count = 0;
    if (target == self_) {
      copy_own(q, n);
      return;
    }
    detail::send_request<T>(w_, q.owner, into_, q.positions, q.offsets.get(), n, q.disp, reads_);
    q.positions = reads_.positions_room(per_message_);
    // The owner may answer while more requests are made, and others' requests get answers here.
    messages::flush(q.owner);
    (void)messages::progress();
  }
  // Out of line: inlined, its calls to the distance's tuner sat in the loop that queues every
  // index, which then kept its values on the stack (the gather through MPI ran 7 % slower).
  [[gnu::noinline]] void copy_own(const queue& q, std::size_t n) {
    T* const into = into_;
    const std::uint32_t* const positions = q.positions;
    const Offset* const offsets = q.offsets.get();
    detail::read_scattered(
        own_part_, n, [offsets](std::size_t k) { return offsets[k]; },
        [into, positions](std::size_t k, const T& v) { into[positions[k]] = v; });
  }
  window& w_;
  T* into_;
  pending& reads_;
  const T* own_part_;
  std::size_t self_;
  std::size_t per_message_;
  std::vector<queue> queued_;
};

}  // namespace pgas::runtime::owner_reads
