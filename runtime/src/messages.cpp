#include <pgas/runtime/code_address.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/record_reduction.hpp>
#include <pgas/runtime/watchdog.hpp>

#include "message_rings.hpp"
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace pgas::runtime::messages {
namespace {

// What precedes a run of `count` messages in a buffer that have one handler, one size and one
// token (a stream of calls of one kind costs one header per buffer). `token` says whom to
// acknowledge each to: the sender's own user code (root), a message the sender was handling
// (record index + 1), or nobody (acknowledgements, replies).
struct header {
  std::uint64_t handler;
  std::uint32_t bytes;
  std::uint32_t token;
  std::uint32_t count;
  std::uint32_t flags;
};
using fast_path::sized_run;  // header::flags
using fast_path::whole_run;
static_assert(sizeof(header) == 24);
constexpr std::uint32_t root_token =
    0;  // fast_path::lane::last_token of user code: reserve() inline
constexpr std::uint32_t no_ack = 0xFFFFFFFFU;
using fast_path::alignment;
using fast_path::padded;
// The bytes a run's messages take after its header: a sized run's header holds them (its
// messages differ in size), any other's are its count of one padded size.
constexpr std::size_t run_bytes(const header& h) {
  return (h.flags & sized_run) != 0 ? h.bytes : h.count * padded(h.bytes);
}
constexpr std::size_t posted_receives = 4;
// Slots of each ring (message_rings.hpp): a pair's window of buffers not yet handled, as MPI's
// credit window is between nodes; each slot holds a whole buffer.
constexpr std::size_t ring_slots_per_pair = 4;
constexpr std::size_t default_budget = std::size_t{16} << 20;
constexpr std::size_t smallest_buffer = std::size_t{1} << 10;
constexpr std::size_t largest_buffer = std::size_t{256} << 10;
// To an image of another node that waits at a sync point for this one, a buffer goes once it
// holds this part of a whole one: it waits for what this image sends, not for a buffer to fill,
// and each part's sending makes progress on the ones before (MPI moves a large message over TCP
// only inside calls at both ends). Between the hosts a DHT's owner, waiting, received 2-3 whole
// buffers (9 000-14 000 inserts, 8-13 ms of work) only after its sender's loop had ended; in
// parts, 3 700-4 000 (4-6 ms), and bench_dht's pgas time fell 5 %.
constexpr std::size_t hurried_part = 8;
// Polls in a row that find nothing before a waiting image with a core of its own pauses
// between them (idle): some 2-3 microseconds, as long as an answer takes on one node.
constexpr unsigned full_speed_polls = 64;

using buffer = std::unique_ptr<std::byte[]>;

// A message handled here whose handler sent messages not all acknowledged yet.
struct record {
  std::size_t source = 0;
  std::uint32_t token = 0;     // what to acknowledge to source
  std::size_t children = 0;    // messages it caused, unacknowledged
  bool running = false;        // its handler has not returned
  std::uint32_t messages = 1;  // what it acknowledges: a whole run's, for a run handled at once
};

// A full buffer that waits for its destination to report earlier ones handled (flow control).
struct waiting_send {
  buffer data;
  std::size_t bytes = 0;
};

// One destination's buffer being filled: its memory, and whether it must go at the next
// progress (what is written where is its fast_path::lane, which reserve()'s inline path sees).
struct outgoing {
  buffer owned;
  bool urgent = false;  // holds acknowledgements or handlers' messages: sent at each progress
};

// A posted receive, and once its buffer has arrived, how far its handling has got: the calls of
// one buffer may be taken by several levels of progress (a handler's wait handles the calls
// after it), so where the next call is lives here, not in any one level.
struct receive {
  buffer data;
  MPI_Request request = MPI_REQUEST_NULL;
  bool posted = false;
  std::size_t source = 0;
  std::size_t bytes = 0;         // that arrived
  std::size_t at = 0;            // the next run header, or the next call of `run`
  header run{};                  // the run whose calls are being taken
  std::uint32_t calls_left = 0;  // of `run`
  std::uint32_t running = 0;     // handlers of this buffer that have not returned
  bool from_ring = false;        // copied out of another image's ring (an own slot)
  [[nodiscard]] bool handled() const noexcept {
    return calls_left == 0 && at + sizeof(header) > bytes;
  }
};

// Acknowledgements of `count` messages that carried the same token, in one entry.
struct ack_run {
  std::uint32_t token;
  std::uint32_t count;
};

// The message whose handler is running: whom to acknowledge it to, and its record once its
// handler has sent a message (most never do, and need none).
struct context {
  bool active = false;
  std::size_t source = 0;
  std::uint32_t token = root_token;
  std::uint32_t record = no_ack;  // none yet
};

// What this image keeps for one other image (and for itself), in one record: a buffer's send
// reads its first two cache lines, where a dozen vectors by image had a line each. (A scratch
// pipeline of posts through MPI, its cache cold after each row, ran no faster for it: the
// post's misses are elsewhere.) What is written where is in engine::lanes, which reserve()'s
// inline path reads.
struct alignas(64) peer {
  outgoing out;                     // the buffer being filled for it
  std::size_t unconfirmed = 0;      // credits sent to it by MPI, not reported handled
  std::size_t unreported = 0;       // credits of its buffers handled here, not yet reported
  std::size_t outstanding = 0;      // user code's messages to it, unacknowledged
  std::size_t regardless_upto = 0;  // of `waiting`, buffers owed at once (send_what_credit_allows)
  std::size_t children = 0;         // messages handlers sent it, unacknowledged
  // Acknowledgements of user code's messages wait until their sender asks (it waits for them):
  // a stream needs no message back per buffer, and a reply goes alone (with them, an rpc round
  // trip on one node took 5-8 % longer: the other run to write and to handle). Of its messages:
  std::size_t open_from = 0;  // records of its user code's messages not finished here
  char acks_wanted = 0;       // it asked, and is still owed some
  char acks_now = 0;          // acknowledgements of handlers' messages: never held
  char waits = 0;          // it asked for acknowledgements, and no sync point has ended here since
  bool same_node = false;  // it runs on this node (MPI may reach it through memory)
  std::deque<waiting_send> waiting;  // full buffers waiting for credit, oldest first
  std::vector<ack_run> acks_out;     // acknowledgements owed to it
};

// What a send and a poll read comes first, in few cache lines.
struct alignas(64) engine {
  MPI_Comm comm = MPI_COMM_NULL;
  std::size_t rank = 0;
  std::size_t size = 1;
  std::size_t buffer_bytes = 0;  // of every buffer, send or receive
  // Flow control: at most credit_window credits' worth of buffers go by MPI to a destination
  // before it reports them handled (count_handled says how). The rest wait in its peer record,
  // in order, as the sender's own memory within its budget, so what waits for a busy image in
  // MPI's memory is bounded whether MPI sends a buffer eagerly (copied out at once) or not. A
  // buffer weighs the credits its bytes take (credits_for), at least one: MPI keeps an
  // unexpected message in memory of its size, so a stream of small buffers (a post per row, a
  // round trip's request) needs a report back as rarely as one of full buffers does for the
  // same bytes.
  std::size_t credit_bytes = 0;   // what one credit stands for
  std::size_t credit_window = 0;  // in credits
  std::size_t largest_tag = 0;
  unsigned progressing = 0;             // calls of progress on the stack
  bool in_wait_step = false;            // progress_step() is running (innermost progress)
  bool stopping = false;                // stop() has begun: every receive posted at once
  bool only_rings = false;              // every other image is reached by a ring
  context current;                      // of the handler running, if any
  std::size_t to_self_through_mpi = 0;  // buffers to itself that MPI has not delivered
  std::size_t buffers_waiting = 0;      // in every peer's `waiting`
  std::size_t delivered_here = 0;       // of `arrived`, buffers to itself not yet started
  // Between images of one node: every buffer to the other goes through their ring
  // (message_rings.hpp), none through MPI, so one pair's buffers keep one order; a pair's window
  // of unhandled buffers is its ring's slots. Null when no other image of this node is reached so.
  std::unique_ptr<rings> ring;
  std::vector<fast_path::lane> lanes;  // by destination: what is written where
  std::vector<peer> peers;             // by image
  std::vector<buffer> spare;
  std::vector<MPI_Request> in_flight;
  std::vector<buffer> in_flight_data;
  std::vector<int> completed;  // MPI_Testsome's answer, kept to avoid an allocation per poll
  // Every arrived buffer's slot: the posted receives, made at start, and this image's buffers
  // to itself (deliver_here), added as needed. A deque, so that a slot added leaves the others
  // where they are (a handler up the stack still reads its buffer).
  std::deque<receive> receives;
  std::deque<std::size_t> posted;          // receives in the order MPI matches them
  std::vector<std::size_t> to_post_again;  // receives a wait's step handled (handle_from)
  std::vector<std::size_t> arrived;        // buffers not yet handled, in arrival order
  std::vector<std::size_t> acks_waiting;   // images whose acks_out is not empty
  std::size_t outstanding = 0;             // messages from user code, unacknowledged
  std::uint64_t last_name = 0;             // the last handler looked up, and where it is here
  handler last_handler = nullptr;
  // The rest is read less often.
  std::size_t budget = 0;
  std::size_t buffers_allowed = 0;
  std::size_t buffers_held = 0;
  std::size_t credits_worth_a_message = 0;  // reported alone, in an empty message, once this many
  MPI_Comm credit_comm = MPI_COMM_NULL;     // for reports alone
  // For stop()'s collectives: none may run on a communicator with receives of any tag posted
  // (MPICH's nonblocking collectives at one image matched them and never completed).
  MPI_Comm ending_comm = MPI_COMM_NULL;
  MPI_Request credit_request = MPI_REQUEST_NULL;
  // Empty messages (reports alone) sent, by destination, and received, by source: arrays apart
  // from the peer records, because stop() hands them to MPI_Ialltoall as they are.
  std::vector<unsigned long long> credit_messages_to;
  std::vector<unsigned long long> credit_messages_from;
  std::vector<std::size_t> free_slots;  // slots past the posted ones, given back
  std::size_t own_buffers_allowed = 0;  // what the budget spares for buffers to itself (start)
  std::vector<std::size_t> acks_spare;  // send_acks's other list
  std::vector<ack_run> ack_list_spare;  // an empty list with room, for acks_out
  std::vector<record> records;
  std::vector<std::uint32_t> free_records;
  std::size_t ring_buffers = 0;      // slots of the rings others write into here
  std::size_t ring_held = 0;         // own slots holding buffers copied from rings
  std::size_t ring_unstarted = 0;    // of them, buffers no handler has begun
  std::vector<buffer> copies_spare;  // whole copies out of rings, kept (room_for_ring_copy)
  std::size_t copy_bytes = 0;        // held by copies out of rings, kept ones too
  std::size_t copy_bytes_peak = 0;   // the most they have held at once
  std::size_t next_ring = 0;         // the ring member whose ring is read first
  unsigned polls_without_mpi = 0;    // ring polls since the last MPI_Test
  std::uint64_t ack_name = 0;
  std::uint64_t ask_name = 0;
};

engine* live = nullptr;

engine& the_engine(const char* what) {
  if (live == nullptr) {
    require_environment(what);
    throw usage_error(std::string(what) + ": the message engine has not started");
  }
  return *live;
}

void send_what_credit_allows(engine& e, std::size_t destination, bool regardless);

buffer take_buffer(engine& e) {
  for (wait_polls polls; e.spare.empty() && e.buffers_held >= e.buffers_allowed;) {
    if (e.progressing > 0 && polls.polls() == 0) {  // see send_what_credit_allows
      for (std::size_t d = 0; d < e.size; ++d) send_what_credit_allows(e, d, true);
    }
    polls.after(progress());
  }
  if (!e.spare.empty()) {
    buffer b = std::move(e.spare.back());
    e.spare.pop_back();
    return b;
  }
  ++e.buffers_held;
  return std::make_unique_for_overwrite<std::byte[]>(e.buffer_bytes);
}

// Room for a copy out of a ring: a whole buffer, kept for the next such copy when handled (up
// to posted_receives of them), for a copy of more than half a buffer; exactly its bytes for
// the rest. Copies wait while handlers up the stack wait, and the replies they bring come
// regardless of credit (hundreds of small buffers at once in a stream of rpc round trips), so
// whole-buffer copies of those would hold many times the budget, and have the C library hand
// that memory to the system and back for every one.
[[nodiscard]] std::size_t ring_copy_room(const engine& e, std::size_t bytes) noexcept {
  return bytes > e.buffer_bytes / 2 ? e.buffer_bytes : bytes;
}
buffer room_for_ring_copy(engine& e, std::size_t bytes) {
  const std::size_t room = ring_copy_room(e, bytes);
  if (room == e.buffer_bytes && !e.copies_spare.empty()) {
    buffer b = std::move(e.copies_spare.back());
    e.copies_spare.pop_back();
    return b;
  }
  e.copy_bytes += room;
  e.copy_bytes_peak = std::max(e.copy_bytes_peak, e.copy_bytes);
  return std::make_unique_for_overwrite<std::byte[]>(room);
}
void keep_or_free_ring_copy(engine& e, buffer& copy, std::size_t bytes) {
  const std::size_t room = ring_copy_room(e, bytes);
  if (room == e.buffer_bytes && e.copies_spare.size() < posted_receives) {
    e.copies_spare.push_back(std::move(copy));
    return;
  }
  e.copy_bytes -= room;
  copy.reset();
}

void post(engine& e, std::size_t slot) {
  receive& r = e.receives[slot];
  check(MPI_Irecv(r.data.get(), static_cast<int>(e.buffer_bytes), MPI_BYTE, MPI_ANY_SOURCE,
                  MPI_ANY_TAG, e.comm, &r.request),
        "MPI_Irecv");
  r.posted = true;
  e.posted.push_back(slot);
}

// Writes the count of the lane's last run into its header (join_last_run counts in the lane
// only), and a sized run's bytes; counts a run of this image's own messages as unacknowledged:
// once per run, not per message, since a run is closed before its buffer goes.
void close_run(engine& e, std::size_t destination) noexcept {
  fast_path::lane& l = e.lanes[destination];
  if (l.count_at == nullptr)
    return;
  std::memcpy(l.count_at, &l.last_count, sizeof l.last_count);
  if ((l.last_flags & sized_run) != 0) {
    const auto bytes = static_cast<std::uint32_t>(l.used - l.run_start);
    std::memcpy(l.count_at - offsetof(header, count) + offsetof(header, bytes), &bytes,
                sizeof bytes);
  }
  if (l.last_token == root_token) {
    e.outstanding += l.last_count;
    e.peers[destination].outstanding += l.last_count;
  }
  l.count_at = nullptr;
  l.last_handler = 0;  // closed: nothing joins it
}

// Slots past the first posted_receives hold this image's buffers to itself (deliver_here).
[[nodiscard]] bool holds_own_buffer(std::size_t slot) noexcept {
  return slot >= posted_receives;
}
// Those buffers in slots now, handled or not.
[[nodiscard]] std::size_t own_buffers_held(const engine& e) noexcept {
  return e.receives.size() - posted_receives - e.free_slots.size() - e.ring_held;
}

// A buffer that arrived without a posted receive joins the arrived buffers in a slot past the
// posted ones: one this image sent itself, or one copied out of another image's ring.
void arrive_in_own_slot(
    engine& e, buffer b, std::size_t source, std::size_t bytes, bool from_ring) {
  std::size_t slot = e.receives.size();
  if (!e.free_slots.empty()) {
    slot = e.free_slots.back();
    e.free_slots.pop_back();
  } else {
    e.receives.emplace_back();
  }
  receive& r = e.receives[slot];
  r.data = std::move(b);
  r.posted = false;
  r.source = source;
  r.bytes = bytes;
  r.at = 0;
  r.calls_left = 0;
  r.from_ring = from_ring;
  e.arrived.push_back(slot);
}

// A buffer of messages to this image itself joins the arrived buffers without MPI, which would
// copy it into a posted receive first; it is handled at the next progress like any other, and
// its memory goes back to the spare buffers once handled.
void deliver_here(engine& e, buffer b, std::size_t bytes) {
  arrive_in_own_slot(e, std::move(b), e.rank, bytes, false);
  ++e.delivered_here;
}

// The one receive of reports alone: empty, from anyone, its tag the count.
void post_report_receive(engine& e) {
  check(MPI_Irecv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, e.credit_comm,
                  &e.credit_request),
        "MPI_Irecv");
}

// Hands MPI one send: `bytes` of `data`, or none (a report alone, on the reports' communicator);
// its tag reports `tag` of the destination's buffers handled here.
void send_by_mpi(engine& e, std::size_t destination, buffer data, std::size_t bytes, int tag) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(data.get(), static_cast<int>(bytes), MPI_BYTE, static_cast<int>(destination), tag,
                  data != nullptr ? e.comm : e.credit_comm, &request),
        "MPI_Isend");
  // To this node a small send is mostly complete at once (copied out through memory): its
  // buffer is a spare again now, and the next message to anyone fills the same memory, still in
  // the cache, where a buffer kept in flight until the next progress made a stream of posts (a
  // row's store and signal each) walk through every buffer of the budget. Not to another node,
  // where the test is a turn of MPI's progress over the network each time (MPICH's ch4:ucx over
  // TCP: synch_p2p between the hosts 0.89-0.96 of MPI_Send's -> 0.83-0.93). Nor to itself (a
  // handler's buffer, or one past what the budget spares for buffers to itself), whose sends
  // wait in flight for receives that handlers up the stack may hold: freed at once, a stream
  // of rpc calls to itself nested handlers without end under MPICH.
  int done = 0;
  if (e.peers[destination].same_node && destination != e.rank)
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  if (done != 0) {
    if (data != nullptr)  // not a report of credits alone
      e.spare.push_back(std::move(data));
    return;
  }
  e.in_flight.push_back(request);
  e.in_flight_data.push_back(std::move(data));
}

// The credits of buffers from `destination` handled here and not yet reported, as a tag: they
// are reported now.
int take_unreported(engine& e, std::size_t destination) {
  const std::size_t credits = std::min(e.peers[destination].unreported, e.largest_tag);
  e.peers[destination].unreported -= credits;
  return static_cast<int>(credits);
}

// Whether `destination` is reached through the node's rings rather than MPI.
[[nodiscard]] bool by_ring(const engine& e, std::size_t destination) noexcept {
  return e.ring != nullptr && e.ring->reaches(destination);
}

// The credits a buffer of `bytes` takes of its destination's window: one per credit_bytes
// begun, at least one. Never more than the window's share of a full buffer (start()).
[[nodiscard]] std::size_t credits_for(const engine& e, std::size_t bytes) noexcept {
  return std::max<std::size_t>(1, (bytes + e.credit_bytes - 1) / e.credit_bytes);
}

// Whether a buffer of `bytes` may go to `destination` now: MPI's credit, or a free slot of its
// ring and the ring's credit (buffers unhandled there); `regardless` of the credit for what
// progress sends. A full ring is never passed: its receiver frees the slot at its next poll,
// handled or not.
[[nodiscard]] bool may_send(const engine& e,
                            std::size_t destination,
                            std::size_t bytes,
                            bool regardless) noexcept {
  if (by_ring(e, destination)) {
    return e.ring->slot_free(destination) &&
           (regardless || e.ring->unhandled(destination) < ring_slots_per_pair);
  }
  return regardless || e.peers[destination].unconfirmed + credits_for(e, bytes) <= e.credit_window;
}

// Hands a buffer to its transport (may_send said it may go): a ring copies it, and it is a
// spare again at once.
void transmit(engine& e, std::size_t destination, buffer data, std::size_t bytes) {
  if (by_ring(e, destination)) {
    e.ring->publish(destination, data.get(), bytes);
    e.spare.push_back(std::move(data));
    return;
  }
  e.peers[destination].unconfirmed += credits_for(e, bytes);
  send_by_mpi(e, destination, std::move(data), bytes, take_unreported(e, destination));
}

// Sends the buffers waiting for `destination`, oldest first, as far as its credit allows, or
// `regardless` of it: for what progress sends (acknowledgements, handlers' messages and
// replies), which goes after them in order. Progress waiting for credit would hold the receive
// of the buffer it handles, and images that all did would wait for each other; what progress
// sends is bounded by what it handles, and what waits here by the budget.
void send_what_credit_allows(engine& e, std::size_t destination, bool regardless) {
  auto& waiting = e.peers[destination].waiting;
  // What may go regardless stays owed until it has gone (a full ring holds it back meanwhile).
  if (regardless)
    e.peers[destination].regardless_upto = waiting.size();
  while (!waiting.empty() && may_send(e, destination, waiting.front().bytes,
                                      e.peers[destination].regardless_upto > 0)) {
    waiting_send w = std::move(waiting.front());
    waiting.pop_front();
    --e.buffers_waiting;
    if (e.peers[destination].regardless_upto > 0)
      --e.peers[destination].regardless_upto;
    transmit(e, destination, std::move(w.data), w.bytes);
  }
}

// Buffers waiting for a ring: its receiver frees slots and reports buffers handled without a
// message, so the sender looks at each progress.
void send_what_rings_allow(engine& e) {
  if (e.ring == nullptr || e.buffers_waiting == 0)
    return;
  for (std::size_t d = 0; d < e.size; ++d) {
    if (d != e.rank && !e.peers[d].waiting.empty())
      send_what_credit_allows(e, d, false);
  }
}

// A buffer of `bytes` from `source` is handled and its receive posted again: its credits are
// reported back in the tag of the next buffer to it (a reply, a stream the other way), or
// alone, in the tag of an empty message on a communicator of its own whose receive is posted
// again at once, once half a window is unreported (its sender may be waiting for them). A
// buffer carrying a report may wait in MPI while handlers up the stack hold every receive of
// its destination; that image then sends regardless of the window (send_what_credit_allows),
// so it waits for no report.
void count_handled(engine& e, std::size_t source, std::size_t bytes) {
  e.peers[source].unreported += credits_for(e, bytes);
  if (e.peers[source].unreported < e.credits_worth_a_message)
    return;
  ++e.credit_messages_to[source];
  send_by_mpi(e, source, nullptr, 0, take_unreported(e, source));
}

bool reports_arrived(engine& e, bool even_if_none_waits = false);

void send_buffer(engine& e, std::size_t destination) {
  outgoing& o = e.peers[destination].out;
  fast_path::lane& l = e.lanes[destination];
  if (l.used == 0)
    return;
  close_run(e, destination);
  // To itself without MPI from user code only, and no more buffers than the budget has beyond
  // what every destination's buffer, a send in flight to each and the posted receives need: a
  // handler's buffers to itself go through MPI, as before, so a handler waiting for room does
  // not start another buffer to itself, and another, each holding its memory while it runs.
  // And not while MPI still carries one: one image's messages to another are handled in the
  // order sent.
  if (destination == e.rank && !e.current.active && e.to_self_through_mpi == 0 &&
      own_buffers_held(e) < e.own_buffers_allowed) {
    deliver_here(e, std::move(o.owned), l.used);
    l = fast_path::lane{};
    o.urgent = false;
    return;
  }
  if (destination == e.rank)
    ++e.to_self_through_mpi;
  const std::size_t bytes = l.used;
  l = fast_path::lane{};
  o.urgent = false;
  const bool regardless = e.progressing > 0;
  auto& waiting = e.peers[destination].waiting;
  if (waiting.empty() && may_send(e, destination, bytes, regardless)) {
    // Nothing ahead of it, and credit for it: straight on, not through the queue.
    transmit(e, destination, std::move(o.owned), bytes);
    return;
  }
  waiting.push_back({std::move(o.owned), bytes});
  ++e.buffers_waiting;
  send_what_credit_allows(e, destination, regardless);
  // Reports read now: a sender that only sends (a stream of posts, no waits) reads them nowhere
  // else, and its buffers would wait for its next progress however soon the reports came.
  if (!waiting.empty())
    reports_arrived(e);
}

// Completed sends give their buffers back.
bool recycle_sends(engine& e) {
  if (e.in_flight.empty())
    return false;
  std::vector<int>& done = e.completed;
  done.resize(e.in_flight.size());
  int count = 0;
  check(MPI_Testsome(static_cast<int>(e.in_flight.size()), e.in_flight.data(), &count, done.data(),
                     MPI_STATUSES_IGNORE),
        "MPI_Testsome");
  if (count <= 0)
    return false;
  for (int k = 0; k < count; ++k) {
    buffer& sent = e.in_flight_data[static_cast<std::size_t>(done[static_cast<std::size_t>(k)])];
    if (sent != nullptr)  // not a report of credits alone
      e.spare.push_back(std::move(sent));
  }
  std::size_t kept = 0;
  for (std::size_t k = 0; k < e.in_flight.size(); ++k) {
    if (e.in_flight[k] == MPI_REQUEST_NULL)
      continue;
    e.in_flight[kept] = e.in_flight[k];
    e.in_flight_data[kept] = std::move(e.in_flight_data[k]);
    ++kept;
  }
  e.in_flight.resize(kept);
  e.in_flight_data.resize(kept);
  return true;
}

// What a new buffer to `destination` may fill before it goes: a whole buffer, or a part of
// one while the destination waits for this image (peer::waits).
[[nodiscard]] std::size_t buffer_room(const engine& e, std::size_t destination) noexcept {
  if (e.peers[destination].waits == 0)
    return e.buffer_bytes;
  return std::max(smallest_buffer, e.buffer_bytes / hurried_part / alignment * alignment);
}
// Whether a lane holding messages has no room for `need` more bytes. A message larger than a
// hurried room still goes whole, alone in its buffer (which has room for any message).
[[nodiscard]] bool full_for(const fast_path::lane& l, std::size_t need) noexcept {
  return l.used != 0 && l.used + need > l.room;
}

// `flags` (header::flags) go into a new run's header; a message joins only a run of its flags
// (and of its size, unless the run is sized).
std::span<std::byte> reserve_with_token(engine& e,
                                        std::size_t destination,
                                        std::uint64_t name,
                                        std::size_t bytes,
                                        std::uint32_t token,
                                        std::uint32_t flags = 0) {
  const bool sized = (flags & sized_run) != 0;
  const std::size_t need = sizeof(header) + fast_path::message_bytes(bytes, flags);
  if (need > e.buffer_bytes) {
    throw usage_error(
        "a message of " + std::to_string(bytes) + " bytes is larger than the " +
        std::to_string(e.buffer_bytes - sizeof(header) -
                       (sized ? sizeof(fast_path::sized_length) : 0)) +
        " bytes one message can carry within the engine's budget (PGAS_MESSAGE_BUDGET)");
  }
  if (destination >= e.size)
    throw_out_of_range("image", destination, e.size);
  {
    // The same kind of message as the last one: it joins that header's run.
    fast_path::lane& l = e.lanes[destination];
    if (fast_path::joins_last_run(l, name, bytes, token, flags)) {
      if (token != root_token)
        e.peers[destination].out.urgent = true;
      return fast_path::join_last_run(l, bytes, flags);
    }
  }
  if (full_for(e.lanes[destination], need)) {
    send_buffer(e, destination);
    // A full buffer is the moment to serve others too: arrivals are handled as a stream flows,
    // not all at its end (inside a handler, only when waiting for room).
    if (!e.current.active)
      progress();
  }
  // Taking a buffer may make progress, whose handlers may write to this destination: look again.
  while (e.lanes[destination].data == nullptr) {
    buffer b = take_buffer(e);
    if (e.lanes[destination].data == nullptr) {
      e.lanes[destination].data = b.get();
      e.lanes[destination].room = buffer_room(e, destination);
      e.peers[destination].out.owned = std::move(b);
    } else {
      e.spare.push_back(std::move(b));
    }
    if (full_for(e.lanes[destination], need))
      send_buffer(e, destination);
  }
  close_run(e, destination);
  fast_path::lane& l = e.lanes[destination];
  // In place (messages.hpp: headers).
  ::new (static_cast<void*>(l.data + l.used))
      header{name, static_cast<std::uint32_t>(bytes), token, 1, flags};
  l.last_handler = name;
  l.last_bytes = static_cast<std::uint32_t>(bytes);
  l.last_token = token;
  l.last_flags = flags;
  l.last_count = 1;
  l.count_at = l.data + l.used + offsetof(header, count);
  l.run_start = l.used + sizeof(header);
  std::byte* message = l.data + l.run_start;
  l.used += need;
  if (token != root_token)
    e.peers[destination].out.urgent = true;
  return fast_path::message_room(message, bytes, flags);
}

void acknowledge(engine& e, std::size_t source, std::uint32_t token, std::uint32_t count = 1) {
  if (token != root_token)
    e.peers[source].acks_now = 1;
  auto& list = e.peers[source].acks_out;
  if (list.empty())
    e.acks_waiting.push_back(source);
  if (!list.empty() && list.back().token == token && list.back().count <= UINT32_MAX - count) {
    list.back().count += count;
  } else {
    list.push_back({token, count});
  }
}

void finish_record(engine& e, std::uint32_t index) {
  const record r = e.records[index];
  e.free_records.push_back(index);
  if (r.token == root_token)
    --e.peers[r.source].open_from;
  acknowledge(e, r.source, r.token, r.messages);
}

// The built-in handler of acknowledgements: each names a message this image sent.
void on_ack(std::size_t source, std::span<const std::byte> payload) {
  engine& e = *live;
  for (std::size_t at = 0; at + sizeof(ack_run) <= payload.size(); at += sizeof(ack_run)) {
    ack_run run{};
    std::memcpy(&run, payload.data() + at, sizeof run);
    if (run.token == root_token) {
      e.outstanding -= run.count;
      e.peers[source].outstanding -= run.count;
      continue;
    }
    e.peers[source].children -= run.count;
    record& r = e.records[run.token - 1];
    r.children -= run.count;
    if (r.children == 0 && !r.running)
      finish_record(e, run.token - 1);
  }
}

// Acknowledgements go out in messages of their own, never acknowledged themselves.
void send_acks(engine& e) {
  // Every progress comes here: one that would only hold the held ones again (a stream's
  // acknowledgements, nobody asking for them yet) leaves the lists as they are.
  if (std::none_of(e.acks_waiting.begin(), e.acks_waiting.end(), [&](std::size_t to) {
        return e.peers[to].acks_wanted != 0 || e.peers[to].acks_now != 0;
      })) {
    return;
  }
  // Sending may make progress, which may acknowledge more: work on the list as it is now (a
  // nested call finds the other list, empty or of newer entries).
  std::vector<std::size_t> waiting;
  waiting.swap(e.acks_waiting);
  e.acks_waiting.swap(e.acks_spare);
  e.acks_waiting.clear();
  for (const std::size_t to : waiting) {
    if (e.peers[to].acks_wanted == 0 && e.peers[to].acks_now == 0) {
      e.acks_waiting.push_back(to);  // held: nobody waits for them yet
      continue;
    }
    // The list goes out of acks_out, which gets a kept empty one with room: no allocation per
    // acknowledgement sent.
    std::vector<ack_run> list;
    list.swap(e.ack_list_spare);
    list.swap(e.peers[to].acks_out);
    e.peers[to].acks_now = 0;
    if (e.peers[to].open_from == 0)
      e.peers[to].acks_wanted = 0;  // it is owed nothing more
    const std::size_t per_message = (e.buffer_bytes - sizeof(header)) / sizeof(ack_run);
    for (std::size_t first = 0; first < list.size(); first += per_message) {
      const std::size_t n = std::min(per_message, list.size() - first);
      auto room = reserve_with_token(e, to, e.ack_name, n * sizeof(ack_run), no_ack);
      std::memcpy(room.data(), list.data() + first, n * sizeof(ack_run));
      e.peers[to].out.urgent = true;
    }
    list.clear();
    if (e.ack_list_spare.capacity() < list.capacity())
      e.ack_list_spare.swap(list);
  }
  waiting.clear();
  if (e.acks_spare.capacity() < waiting.capacity())
    e.acks_spare.swap(waiting);  // kept for the next call: no allocation per progress
}

// The built-in handler of a request for acknowledgements: its sender waits for them.
void on_ask(std::size_t source, std::span<const std::byte>) {
  engine& e = *live;
  if (!e.peers[source].acks_out.empty() || e.peers[source].open_from > 0)
    e.peers[source].acks_wanted = 1;
  // It waits at a sync point on another node: what is queued for it goes at the end of this
  // progress, and what follows in parts, until this image's own sync point with it has ended
  // (sync_point_ended). Not on this node, where a buffer reaches it without more calls here:
  // through a ring parts took a slot each, and a DHT's waiting owner was left 35 000 inserts
  // behind, not 8 500; through MPI (PGAS_SHARED_MEMORY=0) the DHT ran 1-4 % slower for them.
  if (!e.peers[source].same_node) {  // a ring joins images of one node only
    e.peers[source].waits = 1;
    e.peers[source].out.urgent = true;
  }
}

// Sends what is queued for `destination` now, with a request for the acknowledgements it holds
// of this image's messages when it is owed any (in the same buffer: one message, not two).
void send_asking_for_acks(engine& e, std::size_t destination) {
  close_run(e, destination);  // its messages are counted now
  if (e.peers[destination].outstanding > 0) {
    auto room = reserve_with_token(e, destination, e.ask_name, alignment, no_ack);
    std::memset(room.data(), 0, room.size());
  }
  send_buffer(e, destination);
}

handler find_handler(engine& e, std::uint64_t name) {
  if (name != e.last_name || e.last_handler == nullptr) {
    e.last_handler = reinterpret_cast<handler>(const_cast<void*>(local_code_address(name)));
    e.last_name = name;
  }
  return e.last_handler;
}

[[noreturn]] void end_job(const std::string& what) {
  std::fprintf(stderr, "pgas: image %zu: %s; ending the job\n", live != nullptr ? live->rank : 0,
               what.c_str());
  std::fflush(stderr);
  // Not MPI_Abort: a launcher may act on the abort before it has forwarded what this process
  // wrote (MPICH's Hydra lost the line above about one run in fifteen). Ended as the watchdog
  // ends a job.
  watchdog::end_job_now();
}

// Calls a handler on `payload`, a message (or a run taken whole: `messages` of them), in the
// context that says whom it is acknowledged to. Returns how many messages it settled at once
// (its handler sent nothing), to be acknowledged with the run's others; those it sent messages
// for are acknowledged once what they sent is.
std::uint32_t call_handler(engine& e,
                           handler run,
                           std::size_t source,
                           std::uint32_t token,
                           std::span<const std::byte> payload,
                           std::uint32_t messages) {
  if (token == no_ack) {
    run(source, payload);
    return 0;
  }
  const context outer = e.current;
  fast_path::view.in_handler = true;
  // A handler that sends something leaves its record here; one that makes progress finds it
  // restored by the nested calls.
  e.current = context{true, source, token, no_ack};
  try {
    run(source, payload);
  } catch (const std::exception& x) {
    // Handlers that report failures (rpc) catch their own; anything else cannot be returned.
    end_job("a message handler from image " + std::to_string(source) + " threw: " + x.what());
  } catch (...) {
    end_job("a message handler from image " + std::to_string(source) + " threw an exception");
  }
  const std::uint32_t index = e.current.record;
  e.current = outer;
  fast_path::view.in_handler = outer.active;
  if (index == no_ack)
    return messages;
  e.records[index].messages = messages;
  e.records[index].running = false;
  if (e.records[index].children == 0)
    finish_record(e, index);
  return 0;
}

// Takes the calls of the arrived buffer in `slot` from where its handling has got to, to its
// end. A handler that makes progress may take later calls of it first, in order (handle_from).
void continue_buffer(engine& e, std::size_t slot) {
  const race_check::unrecorded_scope for_another_image;
  receive& r = e.receives[slot];                                   // never moves (engine::receives)
  if (holds_own_buffer(slot) && r.at == 0 && r.calls_left == 0) {  // its first call: started now
    if (r.from_ring) {
      --e.ring_unstarted;
    } else {
      --e.delivered_here;
    }
  }
  std::uint32_t settled = 0;  // calls of one run whose acknowledgement is due
  std::uint32_t settled_token = no_ack;
  const auto acknowledge_settled = [&] {
    if (settled > 0)
      acknowledge(e, r.source, settled_token, settled);
    settled = 0;
  };
  while (!r.handled()) {
    if (r.calls_left == 0) {
      std::memcpy(&r.run, r.data.get() + r.at, sizeof r.run);
      r.at += sizeof r.run;
      r.calls_left = (r.run.flags & whole_run) != 0 ? 1 : r.run.count;
    }
    const header h = r.run;
    const bool at_once = (h.flags & whole_run) != 0;
    const std::size_t size = at_once ? run_bytes(h) : padded(h.bytes);
    const std::span<const std::byte> payload(r.data.get() + r.at, at_once ? size : h.bytes);
    r.at += size;
    --r.calls_left;
    if (h.token != settled_token)
      acknowledge_settled();
    settled_token = h.token;
    ++r.running;
    settled += call_handler(e, find_handler(e, h.handler), r.source, h.token, payload,
                            at_once ? h.count : 1);
    --r.running;
  }
  acknowledge_settled();
}

// Acknowledgements due and buffers someone waits for go now.
void send_urgent(engine& e) {
  send_acks(e);
  for (std::size_t d = 0; d < e.size; ++d) {
    if (e.peers[d].out.urgent)
      send_buffer(e, d);
  }
}

// Posts again the receives a wait's step left to its next poll (handle_from), and counts their
// buffers handled for their sources.
void post_handled_receives(engine& e) {
  for (const std::size_t slot : e.to_post_again) {
    if (e.receives[slot].posted)  // listed twice: cannot be, but a receive posted twice is lost
      continue;
    post(e, slot);
    count_handled(e, e.receives[slot].source, e.receives[slot].bytes);
  }
  e.to_post_again.clear();
}

// Handles every arrived buffer from `source`, oldest first, each to its end: a handler's
// progress that finds a later buffer from the source first takes the rest of the earlier one,
// so that one image's messages are handled in the order sent however handlers nest. A buffer
// goes back to MPI once handled and no handler of it is running.
void handle_from(engine& e, std::size_t source) {
  for (;;) {
    const auto first = std::find_if(e.arrived.begin(), e.arrived.end(), [&](std::size_t slot) {
      return e.receives[slot].source == source;
    });
    if (first == e.arrived.end())
      return;
    const std::size_t slot = *first;
    continue_buffer(e, slot);
    // Handled: a nested level may have taken it off already.
    e.arrived.erase(std::remove(e.arrived.begin(), e.arrived.end(), slot), e.arrived.end());
    receive& r = e.receives[slot];
    if (r.running == 0 && !r.posted) {
      // Replies first, then the receive again: an image waiting for a reply waits less. A
      // buffer this image delivered to itself goes back to the spare buffers instead.
      send_urgent(e);
      if (holds_own_buffer(slot)) {
        if (r.from_ring) {
          e.ring->handled(source);  // the pair's credit back
          r.from_ring = false;
          --e.ring_held;
          keep_or_free_ring_copy(e, r.data, r.bytes);
        } else {
          e.spare.push_back(std::move(r.data));
        }
        e.free_slots.push_back(slot);
      } else if (e.in_wait_step && !e.stopping) {
        // A wait's step posts it when it next polls: the waiting image goes back to its caller
        // first (the buffer may have brought what it waits for), and the receive is posted while
        // its next message travels (the rpc round trip on one node 8 % sooner). Other receives
        // stay posted meanwhile, and MPI keeps what arrives before any is.
        e.to_post_again.push_back(slot);
      } else {
        // A whole progress posts it now: buffers streaming in are taken as they come (left to
        // the next progress, bench_dht's string inserts through MPI ran 10 % slower: a sender
        // handling every arrived buffer at once left all its receives unposted meanwhile).
        post(e, slot);
        count_handled(e, source, r.bytes);
      }
    }
  }
}

// `source` reports `credits` of this image's buffers handled.
void take_credits(engine& e, std::size_t source, int credits) {
  e.peers[source].unconfirmed -= static_cast<std::size_t>(credits);
  if (credits > 0)
    send_what_credit_allows(e, source, false);
}

// Takes the reports alone that have arrived, when a buffer waits for one (a report, the first
// of them excepted, is unexpected by MPI until it is read). Testing for them at every poll costs
// each poll a second MPI_Test (the rpc round trip between two hosts 0.96 -> 0.89 of MPI's).
// Unread, they stay few: a sender that reads none has at most a window unreported, which its
// receiver reports alone in two at most.
bool reports_arrived(engine& e, bool even_if_none_waits) {
  if (e.buffers_waiting == 0 && !even_if_none_waits)
    return false;
  bool any = false;
  for (;;) {
    int done = 0;
    MPI_Status status;
    check(MPI_Test(&e.credit_request, &done, &status), "MPI_Test");
    if (done == 0)
      return any;
    any = true;
    const auto source = static_cast<std::size_t>(status.MPI_SOURCE);
    ++e.credit_messages_from[source];
    post_report_receive(e);
    take_credits(e, source, status.MPI_TAG);
  }
}

// Buffers other images of the node published in their rings: each copied out of its slot at
// once, into memory of its own (made as MPI makes room for a message nobody has asked for
// yet), so that the sender's slot is free whatever this image's handlers wait for; then
// handled like buffers MPI delivered, in order per source. As with MPI's posted receives, at
// most posted_receives ring buffers are in hand up the stack at once: past that, a copy waits
// for an outer level. What is copied is bounded by each pair's credit, which comes back only once a
// buffer is handled. The sources are read in turn, from the one after the last served.
bool ring_arrived(engine& e) {
  bool copied = false;
  const std::vector<std::size_t>& members = e.ring->members();
  for (std::size_t k = 0; k < members.size(); ++k) {
    const std::size_t source = members[(e.next_ring + k) % members.size()];
    if (source == e.rank)
      continue;
    for (std::size_t bytes = e.ring->next_bytes(source); bytes != 0;
         bytes = e.ring->next_bytes(source)) {
      buffer b = room_for_ring_copy(e, bytes);
      e.ring->take(source, b.get());
      arrive_in_own_slot(e, std::move(b), source, bytes, true);
      ++e.ring_held;
      ++e.ring_unstarted;
      copied = true;
    }
  }
  // Ring buffers in hand up the stack (begun, not finished) stand for MPI's posted receives
  // that running handlers hold: with all of them taken, new copies wait for an outer level.
  const std::size_t in_hand = e.ring_held - e.ring_unstarted;
  if (e.ring_unstarted == 0 || in_hand >= posted_receives)
    return copied;
  // The oldest copy no handler has begun, and with it its source's others, in order.
  for (const std::size_t slot : e.arrived) {
    const receive& r = e.receives[slot];
    if (r.from_ring && r.at == 0 && r.calls_left == 0) {
      e.next_ring = e.ring->position_of(r.source) + 1;
      handle_from(e, r.source);
      return true;
    }
  }
  return copied;
}

bool receive_arrived(engine& e) {
  if (e.ring != nullptr) {
    if (ring_arrived(e))
      return true;
    // With every other image on the rings MPI carries only a handler's buffers to this image
    // itself; the receive is still tested now and then, so that a wait keeps MPI's own progress
    // going.
    if (e.only_rings && e.to_self_through_mpi == 0 && (++e.polls_without_mpi & 15U) != 0)
      return false;
  }
  if (e.posted.empty())
    return false;
  const std::size_t slot = e.posted.front();
  receive& r = e.receives[slot];
  int done = 0;
  MPI_Status status;
  check(MPI_Test(&r.request, &done, &status), "MPI_Test");
  if (done == 0)
    return false;
  e.posted.pop_front();
  int bytes = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
  r.posted = false;
  r.source = static_cast<std::size_t>(status.MPI_SOURCE);
  take_credits(e, r.source, status.MPI_TAG);
  if (r.source == e.rank)
    --e.to_self_through_mpi;
  r.bytes = static_cast<std::size_t>(bytes);
  r.at = 0;
  r.calls_left = 0;
  e.arrived.push_back(slot);
  // Handled in place, after any earlier buffer from its source that a handler up the stack has
  // not finished; a handler that makes progress uses other receives.
  handle_from(e, r.source);
  return true;
}

// The budget this image asks for, or 0 if PGAS_MESSAGE_BUDGET is not a number of bytes.
unsigned long long budget_from_environment() {
  const char* v = std::getenv("PGAS_MESSAGE_BUDGET");
  if (v == nullptr || *v == '\0')
    return default_budget;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return end == v || *end != '\0' || v[0] == '-' ? 0 : std::max(n, 1ULL);
}

// The record of the running handler's message, made now if it has none.
std::uint32_t record_of_current(engine& e) {
  if (e.current.record != no_ack)
    return e.current.record;
  std::uint32_t index = 0;
  if (!e.free_records.empty()) {
    index = e.free_records.back();
    e.free_records.pop_back();
  } else {
    index = static_cast<std::uint32_t>(e.records.size());
    e.records.emplace_back();
  }
  e.records[index] = record{e.current.source, e.current.token, 0, true};
  if (e.current.token == root_token)
    ++e.peers[e.current.source].open_from;
  e.current.record = index;
  return index;
}

}  // namespace

std::uint64_t name_of(handler h) {
  return portable_code_address(reinterpret_cast<const void*>(h));
}

std::span<std::byte> reserve_slowly(std::size_t destination,
                                    std::uint64_t handler_name,
                                    std::size_t bytes,
                                    std::uint32_t flags) {
  engine& e = the_engine("sending a message");
  if (flags == whole_run && bytes == 0) {
    throw usage_error(
        "a message handled a run at a time must have at least one byte: its handler tells the "
        "messages apart by their size");
  }
  if (!e.current.active) {
    return reserve_with_token(e, destination, handler_name, bytes, root_token, flags);
  }
  // Reserving may make progress and run other handlers: the record is taken first and
  // counted after, when the message is surely queued.
  const std::uint32_t index = record_of_current(e);
  auto room = reserve_with_token(e, destination, handler_name, bytes, index + 1, flags);
  ++e.records[index].children;
  ++e.peers[destination].children;
  return room;
}

std::span<std::byte> reserve_reply(std::size_t destination,
                                   std::uint64_t handler_name,
                                   std::size_t bytes) {
  engine& e = the_engine("sending a reply");
  auto room = reserve_with_token(e, destination, handler_name, bytes, no_ack);
  e.peers[destination].out.urgent = true;
  return room;
}

void flush() {
  engine& e = the_engine("flushing messages");
  for (std::size_t d = 0; d < e.size; ++d) send_buffer(e, d);
}

void flush(std::size_t destination) {
  engine& e = the_engine("flushing messages");
  if (destination < e.size)
    send_buffer(e, destination);
}

namespace {
// progress() with `every_buffer`, progress_step() without.
bool make_progress(bool every_buffer) {
  if (live == nullptr)
    return false;
  engine& e = *live;
  ++e.progressing;
  struct leave {
    engine& e;
    bool was_step;
    ~leave() {
      --e.progressing;
      e.in_wait_step = was_step;
    }
  } on_return{e, e.in_wait_step};
  e.in_wait_step = !every_buffer;
  post_handled_receives(e);
  bool did = recycle_sends(e);
  did = reports_arrived(e) || did;
  send_what_rings_allow(e);
  if (e.delivered_here > 0) {
    handle_from(e, e.rank);
    did = true;
  }
  while (receive_arrived(e)) {
    did = true;
    if (!every_buffer)
      break;
  }
  send_urgent(e);
  return did;
}
}  // namespace

bool progress() {
  return make_progress(true);
}

bool progress_step() {
  return make_progress(false);
}

namespace {
// Whether send_asking_for_acks(e, d) has anything to do: a buffer being filled (an open run
// has one), or messages not yet acknowledged. A sync point asks this of every destination, so
// the test is inline and the calls go only where there is work.
[[nodiscard]] bool awaits_acks(const engine& e, std::size_t destination) noexcept {
  return e.lanes[destination].used != 0 || e.peers[destination].outstanding != 0;
}
}  // namespace

void quiesce() {
  engine& e = the_engine("waiting for messages");
  for (std::size_t d = 0; d < e.size; ++d) {
    if (awaits_acks(e, d))
      send_asking_for_acks(e, d);
  }
  progress_until([&] { return e.outstanding == 0; });
}

void quiesce_except(std::size_t destination) {
  engine& e = the_engine("waiting for messages");
  for (std::size_t d = 0; d < e.size; ++d) {
    if (d != destination && awaits_acks(e, d))
      send_asking_for_acks(e, d);
  }
  progress_until([&] {
    return e.outstanding == (destination < e.size ? e.peers[destination].outstanding : 0);
  });
}

void await_handled(std::span<const std::size_t> destinations) {
  engine& e = the_engine("waiting for messages");
  for (const std::size_t d : destinations) {
    if (d < e.size)
      send_asking_for_acks(e, d);
  }
  progress_until([&] {
    for (const std::size_t d : destinations) {
      if (d < e.size && (e.peers[d].outstanding > 0 || e.peers[d].children > 0))
        return false;
    }
    return true;
  });
}

void quiescent_barrier(MPI_Comm comm) {
  quiesce();
  barrier(comm);
  sync_point_ended();
}

void sync_point_ended() noexcept {
  if (live == nullptr)
    return;
  for (peer& p : live->peers) p.waits = 0;
}

void barrier(MPI_Comm comm) {
  // A reduction is a barrier: every process's result depends on every process's record. By
  // hand it costs what a blocking MPI_Barrier does; MPI_Ibarrier, tested between the engine's
  // polls, more (two hosts over TCP: 5.0 against 7.0 us a sync_all, bench/README).
  std::byte nothing{};
  reduce_record(
      std::span(&nothing, 1), [](const std::byte*, std::byte*, void*) {}, nullptr, comm);
}

void wait(MPI_Request& request, const char* call) {
  // The request is tested on every fourth poll only: testing a non-blocking collective runs
  // its schedule, which would double the time a waiting image takes to answer a call.
  watchdog::begin_wait();
  for (wait_polls polls;;) {
    if ((polls.polls() & 3U) == 0) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
      if (done != 0)
        return;
    }
    polls.after(progress_step());
  }
}

void wait_all(std::span<MPI_Request> requests) {
  const auto done = [&] {
    int all = 0;
    check(MPI_Testall(to_count(requests.size()), requests.data(), &all, MPI_STATUSES_IGNORE),
          "MPI_Testall");
    return all != 0;
  };
  // Testing before the first poll saves that poll per exchange (a scalar co_sum, 2 images:
  // 0.67-0.72 of MPI_Allreduce through MPI polling from the start, 0.73-0.79 so).
  for (int k = 0; k < 8; ++k) {
    if (done())
      return;
  }
  progress_until(done);
}

bool running() noexcept {
  return live != nullptr;
}
std::size_t max_message_bytes() noexcept {
  return live == nullptr ? 0 : live->buffer_bytes - sizeof(header);
}
std::size_t budget_bytes() noexcept {
  return live == nullptr ? 0 : live->budget;
}
std::size_t bytes_in_use() noexcept {
  if (live == nullptr)
    return 0;
  return (live->buffers_held + live->ring_buffers) * live->buffer_bytes;
}
std::size_t ring_copy_bytes_peak() noexcept {
  return live == nullptr ? 0 : live->copy_bytes_peak;
}
std::size_t restart_ring_copy_peak() noexcept {
  if (live == nullptr)
    return 0;
  live->copy_bytes_peak = live->copy_bytes;
  return live->copy_bytes;
}
std::size_t credit_window(std::size_t destination) noexcept {
  if (live == nullptr)
    return 0;
  return by_ring(*live, destination) ? ring_slots_per_pair
                                     : live->credit_window / credits_for(*live, live->buffer_bytes);
}
std::size_t credit_window_bytes(std::size_t destination) noexcept {
  if (live == nullptr)
    return 0;
  return by_ring(*live, destination) ? ring_slots_per_pair * live->buffer_bytes
                                     : live->credit_window * live->credit_bytes;
}
bool reached_by_ring(std::size_t destination) noexcept {
  return live != nullptr && by_ring(*live, destination);
}
std::size_t buffer_fill_limit(std::size_t destination) noexcept {
  return live == nullptr || destination >= live->size ? 0 : buffer_room(*live, destination);
}
std::size_t bytes_unconfirmed(std::size_t destination) noexcept {
  if (live == nullptr || destination >= live->size)
    return 0;
  if (by_ring(*live, destination))
    return static_cast<std::size_t>(live->ring->unhandled(destination)) * live->buffer_bytes;
  return live->peers[destination].unconfirmed * live->credit_bytes;
}
std::size_t buffers_waiting_for_credit(std::size_t destination) noexcept {
  return live == nullptr || destination >= live->size ? 0 : live->peers[destination].waiting.size();
}
std::size_t buffer_bytes() noexcept {
  return live == nullptr ? 0 : live->buffer_bytes;
}

void idle(unsigned polls, unsigned quiet) noexcept {
  if (oversubscribed()) {
    watchdog::check(polls);
    if (polls >= 16)
      std::this_thread::yield();
    return;
  }
  // A short wait neither pauses nor reads the watchdog's clock (which starts on the first
  // check: a wait that never falls quiet for this long is serving, not stuck).
  if (quiet < full_speed_polls)
    return;
  watchdog::check(polls);
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void start(MPI_Comm world,
           const std::vector<bool>& ring_members,
           const std::vector<bool>& node_members) {
  auto e = std::make_unique<engine>();
  check(MPI_Comm_dup(world, &e->comm), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(e->comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(e->comm, &size), "MPI_Comm_size");
  e->rank = static_cast<std::size_t>(rank);
  e->size = static_cast<std::size_t>(size);
  // Every image must agree on the buffer size (a receive must hold any sender's buffer): the
  // smallest budget asked for wins. A bad setting on any image is refused on every image.
  const unsigned long long asked = budget_from_environment();
  unsigned long long budget = 0;
  check(MPI_Allreduce(&asked, &budget, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, e->comm),
        "MPI_Allreduce");
  if (budget == 0) {
    MPI_Comm_free(&e->comm);
    throw usage_error("PGAS_MESSAGE_BUDGET must be a positive number of bytes on every image");
  }
  // A buffer per destination, as many again in flight, and the posted receives; the slots of
  // the rings this node's other images write into here. Nodes may hold different numbers of
  // images: the buffer size comes from the most slots any image keeps, the same everywhere.
  const std::size_t buffers = 2 * e->size + posted_receives;
  std::vector<std::size_t> members;
  for (std::size_t r = 0; r < ring_members.size() && r < e->size; ++r) {
    if (ring_members[r])
      members.push_back(r);
  }
  const bool rings_wanted = members.size() > 1;
  const std::size_t ring_buffers = rings_wanted ? ring_slots_per_pair * (members.size() - 1) : 0;
  const unsigned long long mine = ring_buffers;
  unsigned long long most = 0;
  check(MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, e->comm), "MPI_Allreduce");
  e->buffer_bytes = std::clamp<std::size_t>(
      static_cast<std::size_t>(budget / (buffers + most)) / alignment * alignment, smallest_buffer,
      largest_buffer);
  const std::size_t fit = static_cast<std::size_t>(budget) / e->buffer_bytes;
  e->buffers_allowed = std::max(buffers, fit > ring_buffers ? fit - ring_buffers : 0);
  e->budget = (e->buffers_allowed + ring_buffers) * e->buffer_bytes;
  e->own_buffers_allowed = std::min(posted_receives, e->buffers_allowed - buffers);
  int* tag_bound = nullptr;
  int has_bound = 0;
  check(MPI_Comm_get_attr(e->comm, MPI_TAG_UB, &tag_bound, &has_bound), "MPI_Comm_get_attr");
  e->largest_tag = has_bound != 0 ? static_cast<std::size_t>(*tag_bound) : 32767;  // MPI's least
  // What may wait for an image in MPI's memory, a window from each image, is at most
  // what its own budget holds, and at least two buffers from each: one being handled while the
  // next arrives. A full buffer takes credits_per_buffer credits, a smaller one fewer (a credit
  // stands for at least 1 KiB: MPI's own bookkeeping of a message it keeps weighs too); the
  // window fits in one tag, so that half of it can be reported in one.
  const std::size_t window_buffers =
      std::clamp<std::size_t>(e->buffers_allowed / e->size, 2, e->largest_tag);
  const std::size_t credits_per_buffer = std::clamp<std::size_t>(
      std::min(e->buffer_bytes / smallest_buffer, e->largest_tag / window_buffers), 1,
      e->buffer_bytes);
  e->credit_bytes = (e->buffer_bytes + credits_per_buffer - 1) / credits_per_buffer;
  e->credit_window = window_buffers * credits_for(*e, e->buffer_bytes);
  e->credits_worth_a_message = std::max<std::size_t>(1, e->credit_window / 2);
  check(MPI_Comm_dup(e->comm, &e->credit_comm), "MPI_Comm_dup");
  check(MPI_Comm_dup(e->comm, &e->ending_comm), "MPI_Comm_dup");
  post_report_receive(*e);
  e->credit_messages_to.resize(e->size);
  e->credit_messages_from.resize(e->size);
  e->lanes.resize(e->size);
  e->peers.resize(e->size);
  for (std::size_t d = 0; d < e->size && d < node_members.size(); ++d)
    e->peers[d].same_node = node_members[d];
  e->ack_name = name_of(&on_ack);
  e->ask_name = name_of(&on_ask);
  e->receives.resize(posted_receives);
  for (std::size_t k = 0; k < posted_receives; ++k) {
    e->receives[k].data = std::make_unique_for_overwrite<std::byte[]>(e->buffer_bytes);
    ++e->buffers_held;
    post(*e, k);
  }
  if (rings_wanted) {
    // Collective over the node's members only: an image alone on its node takes no part. Made
    // from world, not from the engine's communicator, where its wildcard receives are posted.
    MPI_Group all = MPI_GROUP_NULL;
    MPI_Group node = MPI_GROUP_NULL;
    MPI_Comm node_comm = MPI_COMM_NULL;
    std::vector<int> ranks(members.begin(), members.end());
    check(MPI_Comm_group(world, &all), "MPI_Comm_group");
    const int made = MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &node);
    MPI_Group_free(&all);
    check(made, "MPI_Group_incl");
    const int joined = MPI_Comm_create_group(world, node, 0, &node_comm);
    MPI_Group_free(&node);
    check(joined, "MPI_Comm_create_group");
    e->ring =
        rings::make(node_comm, std::move(members), e->size, ring_slots_per_pair, e->buffer_bytes);
    if (e->ring != nullptr) {
      e->ring_buffers = ring_buffers;
      e->only_rings = e->ring->members().size() == e->size;
    }
  }
  live = e.release();
  fast_path::view = fast_path::state{live->lanes.data(), live->size, false};
}

void stop(bool unwinding) noexcept {
  if (live == nullptr)
    return;
  engine* e = live;
  if (!unwinding) {
    try {
      quiescent_barrier(e->ending_comm);
      // Every message carrying data is handled now; reports of credits alone may still be on
      // their way, and a receive must take each before the receives are cancelled (MPI_Finalize
      // wants every send matched). The receives a wait's step left to its next poll are posted
      // now, and from here on at once, so that their reports go out before the counts of
      // reports do; the counts go from a copy, which later reports leave alone.
      e->stopping = true;
      post_handled_receives(*e);
      const std::vector<unsigned long long> sent = e->credit_messages_to;
      std::vector<unsigned long long> expected(e->size);
      collective("MPI_Ialltoall", MPI_Ialltoall, sent.data(), 1, MPI_UNSIGNED_LONG_LONG,
                 expected.data(), 1, MPI_UNSIGNED_LONG_LONG, e->ending_comm);
      progress_until([&] {
        reports_arrived(*e, true);
        return e->credit_messages_from == expected;
      });
    } catch (const std::exception& x) {
      std::fprintf(stderr, "pgas: delivering the last messages: %s\n", x.what());
    }
  }
  for (receive& r : e->receives) {
    if (r.request == MPI_REQUEST_NULL)
      continue;
    MPI_Cancel(&r.request);
    MPI_Wait(&r.request, MPI_STATUS_IGNORE);
  }
  MPI_Cancel(&e->credit_request);
  MPI_Wait(&e->credit_request, MPI_STATUS_IGNORE);
  // Freeing the rings' window is collective: not while this image alone unwinds.
  if (e->ring != nullptr && !unwinding)
    e->ring->free_collectively();
  if (!unwinding && !e->in_flight.empty()) {
    MPI_Waitall(static_cast<int>(e->in_flight.size()), e->in_flight.data(), MPI_STATUSES_IGNORE);
  }
  MPI_Comm_free(&e->credit_comm);
  MPI_Comm_free(&e->ending_comm);
  MPI_Comm_free(&e->comm);
  fast_path::view = fast_path::state{};
  live = nullptr;
  delete e;
}

}  // namespace pgas::runtime::messages
