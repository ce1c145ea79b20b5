#pragma once
// The owner-side message engine (a conveyor): small messages to other images are packed into
// one buffer per destination, each buffer sent as one MPI message when it is full or flushed,
// and the destination runs each message's handler when it makes progress.
//
// Progress rule: handlers run only inside pgas calls on the destination image — sync points,
// waits on futures, events and locks, engine calls and progress() — never behind its back.
//
// Order: one image's messages to another are handled in the order sent (MPI's non-overtaking
// rule carries the buffers in order). A handler that waits (for room to send, or for a future)
// handles what arrives meanwhile; from a source whose earlier buffer is still being handled up
// the stack it first takes the rest of that buffer, so the order holds however handlers nest.
// Only a run taken whole (reserve_in_runs, reserve_sized) is one unit: calls after it may run
// during the wait of one of its calls.
//
// Termination (Dijkstra and Scholten's diffusing computations): every message is acknowledged
// to its sender once its handler has run and every message that handler sent has been
// acknowledged in turn. An image whose own messages (those sent outside any handler) are all
// acknowledged therefore knows that they, and everything they caused anywhere, have been
// handled; a sync point waits for that on every image of its team before it returns.
//
// Transport: MPI two-sided between nodes; between two images of one node (shared memory on), a
// ring per pair in shared memory instead; one channel per pair either way
// (src/message_rings.hpp).
//
// Memory: a budget per image (PGAS_MESSAGE_BUDGET bytes, 16 MiB unless set, the smallest any
// image asks for) holds the send buffers (one per destination), the sends in flight, the
// posted receives, an image's buffers to itself (which user code's sends hand to its own
// handlers without MPI) and the slots of the rings this node's others write into here; a
// sender that would pass it makes progress until one is free. What waits for a busy image
// inside MPI, or copied out of its rings, is bounded too (whether MPI copies a send out at once
// or not): at most credit_window_bytes(image) go to an image before it reports them handled. The
// bookkeeping of messages whose handlers' messages are unacknowledged grows with nesting, not
// with the number of messages.
//
// Single-threaded: call it from the thread that makes pgas calls.

#include <pgas/runtime/error.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace pgas::runtime::messages {

/// Runs at the destination: `source` is the sender's world rank, `payload` the bytes it sent
/// (8-byte aligned; valid during the call only).
using handler = void (*)(std::size_t source, std::span<const std::byte> payload);

/// A handler as every image names it (portable_code_address of the function). Local.
[[nodiscard]] std::uint64_t name_of(handler h);
/// The same for a handler known at compile time, found once: a stream of messages of two kinds
/// in turn (a store, then an event's signal) would otherwise look each up again per message.
template <handler H>
[[nodiscard]] std::uint64_t name_of() {
  static const std::uint64_t name = name_of(H);
  return name;
}

namespace fast_path {
/// One destination's buffer as the engine fills it: where it is, how much is written, and the
/// header of the last run of messages (a message like the last joins its run). The engine owns
/// it; reserve()'s inline path only appends to a run, everything else goes to the engine.
struct lane {
  std::byte* data = nullptr;  // null: no buffer yet
  std::size_t used = 0;
  std::size_t room = 0;
  std::uint64_t last_handler = 0;
  std::uint32_t last_bytes = 0;
  std::uint32_t last_token = 0;
  std::uint32_t last_count = 0;
  std::uint32_t last_flags = 0;   // whether the last run's handler takes it whole
  std::byte* count_at = nullptr;  // where the last run's count goes once the run is closed
  std::size_t run_start = 0;      // where the last run's messages begin
};
struct state {
  lane* lanes = nullptr;  // by world rank
  std::size_t images = 0;
  bool in_handler = false;
};
/// The engine's lanes while it runs (one engine per process).
inline state view;
/// A run's flags (in its header, and the lane's last_flags): 0, or whole_run when its handler
/// takes the whole run in one call (reserve_in_runs), with sized_run too when its messages
/// differ in size (reserve_sized). A message joins only a run of its flags.
inline constexpr std::uint32_t whole_run = 1;
inline constexpr std::uint32_t sized_run = 2;
/// Every message, and so every run header, starts 8 bytes past the one before or a multiple.
inline constexpr std::size_t alignment = 8;
[[nodiscard]] constexpr std::size_t padded(std::size_t bytes) noexcept {
  return (bytes + alignment - 1) / alignment * alignment;
}
/// A message of a sized run: its length, then its bytes, the two padded to 8 bytes together.
using sized_length = std::uint32_t;
[[nodiscard]] constexpr std::size_t sized_message_bytes(std::size_t bytes) noexcept {
  return padded(sizeof(sized_length) + bytes);
}
/// The bytes one message of `bytes` takes in a run of `flags`: padded to 8, after its length
/// in a sized run.
[[nodiscard]] constexpr std::size_t message_bytes(std::size_t bytes, std::uint32_t flags) noexcept {
  return (flags & sized_run) != 0 ? sized_message_bytes(bytes) : padded(bytes);
}
/// Where the bytes of a message of `bytes` go, in a run of `flags`, the message starting at
/// `at`: after its length (written here) in a sized run.
inline std::span<std::byte> message_room(std::byte* at,
                                         std::size_t bytes,
                                         std::uint32_t flags) noexcept {
  if ((flags & sized_run) == 0)
    return {at, bytes};
  const auto length = static_cast<sized_length>(bytes);
  std::memcpy(at, &length, sizeof length);
  return {at + sizeof length, bytes};
}
/// Whether a message joins the lane's last run: the same handler, token and flags, the same
/// size unless the run is sized, and room in the buffer.
[[nodiscard]] inline bool joins_last_run(const lane& l,
                                         std::uint64_t handler_name,
                                         std::size_t bytes,
                                         std::uint32_t token,
                                         std::uint32_t flags) noexcept {
  return l.used > 0 && l.last_handler == handler_name &&
         ((flags & sized_run) != 0 || l.last_bytes == bytes) && l.last_token == token &&
         l.last_flags == flags && l.last_count < UINT32_MAX &&
         l.used + message_bytes(bytes, flags) <= l.room;
}
/// Appends one message of `bytes` to the lane's last run (joins_last_run said it fits). The
/// run's count is written into its header when the run is closed (a new run starts or the
/// buffer goes), not per message.
inline std::span<std::byte> join_last_run(lane& l,
                                          std::size_t bytes,
                                          std::uint32_t flags) noexcept {
  ++l.last_count;
  std::byte* at = l.data + l.used;
  l.used += message_bytes(bytes, flags);
  return message_room(at, bytes, flags);
}
}  // namespace fast_path

/// reserve() when the message does not simply join its destination's last run; with `flags`
/// fast_path::whole_run, reserve_in_runs(); with whole_run | sized_run, reserve_sized().
[[nodiscard]] std::span<std::byte> reserve_slowly(std::size_t destination,
                                                  std::uint64_t handler_name,
                                                  std::size_t bytes,
                                                  std::uint32_t flags = 0);

namespace fast_path {
/// The inline part of reserve(): room in the destination's last run when the message joins it.
/// `flags`: 0 for reserve(), whole_run for reserve_in_runs(), whole_run | sized_run for
/// reserve_sized().
[[nodiscard]] inline std::span<std::byte> join(std::size_t destination,
                                               std::uint64_t handler_name,
                                               std::size_t bytes,
                                               std::uint32_t flags) noexcept {
  state& v = view;
  if (destination < v.images && !v.in_handler) {
    lane& l = v.lanes[destination];
    if (joins_last_run(l, handler_name, bytes, 0, flags))
      return join_last_run(l, bytes, flags);
  }
  return {};
}
}  // namespace fast_path

/// Room for one message of `bytes` bytes to world rank `destination`, to be filled before the
/// next engine call; its handler is the one named `handler_name`. May send full buffers and
/// make progress (run arrived handlers) to stay within the budget. Throws usage_error for a
/// message larger than max_message_bytes(). Local. Inline where a stream of like messages from
/// user code only appends: that is most calls of a stream, at the cost of a few compares.
/// The room is 8-byte aligned. Headers: make a message's header in the room (placement new),
/// not elsewhere to copy in — a copy is stored and loaded back in pieces of different widths,
/// and such a load waits until every older store has reached the cache, as the copy of the last
/// message into a receiver's queue in shared memory (a few hundred cycles a message).
[[nodiscard]] inline std::span<std::byte> reserve(std::size_t destination,
                                                  std::uint64_t handler_name,
                                                  std::size_t bytes) {
  const std::span<std::byte> room = fast_path::join(destination, handler_name, bytes, 0);
  return room.data() != nullptr ? room : reserve_slowly(destination, handler_name, bytes);
}
/// As reserve(), for a handler that takes a run of its messages in one call: it is called once
/// per run with the run's messages back to back, each padded to a multiple of 8 bytes (a
/// handler of fixed-size messages knows their size): a stream then pays one call per run, not
/// one per message. Throws usage_error for `bytes` 0 (the handler could not tell the messages
/// apart).
[[nodiscard]] inline std::span<std::byte> reserve_in_runs(std::size_t destination,
                                                          std::uint64_t handler_name,
                                                          std::size_t bytes) {
  const std::span<std::byte> room =
      fast_path::join(destination, handler_name, bytes, fast_path::whole_run);
  return room.data() != nullptr
             ? room
             : reserve_slowly(destination, handler_name, bytes, fast_path::whole_run);
}
/// As reserve_in_runs(), for messages that differ in size (a remote call's strings): each is
/// written after its length, and the handler, called once per run, takes them one by one with
/// for_each_sized(). A stream of such calls pays one handler call per run, not per message.
/// Their bytes are 4-byte aligned, not 8.
[[nodiscard]] inline std::span<std::byte> reserve_sized(std::size_t destination,
                                                        std::uint64_t handler_name,
                                                        std::size_t bytes) {
  constexpr std::uint32_t flags = fast_path::whole_run | fast_path::sized_run;
  const std::span<std::byte> room = fast_path::join(destination, handler_name, bytes, flags);
  return room.data() != nullptr ? room : reserve_slowly(destination, handler_name, bytes, flags);
}
/// Calls f(message) for each message of a run of reserve_sized(), in the order sent: what the
/// handler of such messages is given once per run.
template <class F>
void for_each_sized(std::span<const std::byte> run, F f) {
  using fast_path::sized_length;
  for (std::size_t at = 0; at + sizeof(sized_length) <= run.size();) {
    sized_length length = 0;
    std::memcpy(&length, run.data() + at, sizeof length);
    f(run.subspan(at + sizeof length, length));
    at += fast_path::sized_message_bytes(length);
  }
}
/// As reserve(), for a reply to the message whose handler is running, to its sender: a reply is
/// not acknowledged (the acknowledgement of the message it answers follows it on the same
/// ordered channel, so whoever waits for that one has the reply first), and goes out at the end
/// of this progress. Local.
[[nodiscard]] std::span<std::byte> reserve_reply(std::size_t destination,
                                                 std::uint64_t handler_name,
                                                 std::size_t bytes);

/// Sends every buffer that holds a message now, without waiting. Local.
void flush();
/// Sends the buffer for `destination` now, if it holds a message. Local.
void flush(std::size_t destination);
/// Runs the handlers of every message that has arrived, and moves sends and acknowledgements
/// along. Returns true if it did anything. Local.
bool progress();
/// As progress(), with the handlers of one arrived buffer at most: what a wait polls, so that
/// it sees what it waits for as soon as the buffer that brings it is handled (one test of the
/// receives sooner). Returns true if it did anything. Local.
bool progress_step();
/// Flushes, then makes progress until every message this image sent outside a handler, and
/// every message sent by the handlers they caused, has been handled. Local (it needs the
/// destinations to make progress).
void quiesce();
/// Flushes, then makes progress until every message sent to each of `destinations` (world
/// ranks) has been handled there: those of user code and those handlers here sent. Local.
void await_handled(std::span<const std::size_t> destinations);
/// As quiesce(), except for the messages to world rank `destination`: what this image sent to
/// the others (and what their handlers sent) has been handled; those to `destination` may still
/// be on their way. A message sent to `destination` next is handled after them (one image's
/// messages to another are handled in the order sent). Local.
void quiesce_except(std::size_t destination);
/// Collective over comm: quiesce() on every image of comm, then a barrier that keeps making
/// progress, so that images outside or inside comm waiting on this one are served meanwhile;
/// then sync_point_ended().
void quiescent_barrier(MPI_Comm comm);
/// A sync point of this image has ended here (a barrier, a pairwise exchange after quiesce()):
/// every image that waited for this image's messages gets whole buffers again
/// (buffer_fill_limit) — those of this sync point, which each asked before it could leave its
/// quiesce() (it waits for the acknowledgements its request brings), and any other still
/// waiting in a sync point of its own, which then gets whole buffers until this image joins it
/// and sends all it holds. The flag only says when buffers go: speed, never a message. Local.
void sync_point_ended() noexcept;
/// Collective over comm: a barrier that keeps making progress while it waits.
void barrier(MPI_Comm comm);
/// Makes progress until `done()` is true: what every pgas wait does, so a waiting image serves
/// others (an event or a lock polled in memory, a future, a collective). Local.
template <class Done>
void progress_until(Done done);

/// Completes a request, making progress while it waits. Local.
void wait(MPI_Request& request, const char* call);
/// Completes every request of a point-to-point exchange, making progress while it waits. Tests them
/// a few times before the engine's first poll: a partner already in the exchange answers within
/// them. Local.
void wait_all(std::span<MPI_Request> requests);
/// Runs a collective to completion as its non-blocking form `start` (an MPI_I... function,
/// named `call`) called with `args` and the request, making progress while it waits: an image
/// waiting in a collective serves the calls of images that have not reached it yet.
template <class Start, class... Args>
void collective(const char* call, Start start, Args... args) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(start(args..., &request), call);
  wait(request, call);
}

/// True between start() and stop(). Local.
[[nodiscard]] bool running() noexcept;
/// Largest payload one message can carry (one of reserve_sized() carries its length too, in
/// sizeof(fast_path::sized_length) of it). Local.
[[nodiscard]] std::size_t max_message_bytes() noexcept;
/// Bytes of each buffer the engine sends or receives (a message's header included). Local.
[[nodiscard]] std::size_t buffer_bytes() noexcept;
/// The budget this image keeps to, and the bytes it holds for buffers now. Local.
[[nodiscard]] std::size_t budget_bytes() noexcept;
[[nodiscard]] std::size_t bytes_in_use() noexcept;
/// The most bytes that copies out of other images' rings (buffers they published, copied here
/// until handled) have held at once since the engine started or restart_ring_copy_peak(), those
/// kept for the next copies included; and the restart, which returns what they hold now. Local.
[[nodiscard]] std::size_t ring_copy_bytes_peak() noexcept;
std::size_t restart_ring_copy_peak() noexcept;
/// Flow control: how many bytes of buffers may go to `destination` before it reports them
/// handled (a buffer counts its bytes rounded up to the window's unit, a ring's slot a whole
/// buffer), and how many full buffers that is; how many bytes have gone to it unreported, and
/// how many buffers wait here for its report; whether a ring in shared memory reaches it.
/// Local.
[[nodiscard]] std::size_t credit_window_bytes(std::size_t destination) noexcept;
[[nodiscard]] std::size_t credit_window(std::size_t destination) noexcept;
[[nodiscard]] std::size_t bytes_unconfirmed(std::size_t destination) noexcept;
[[nodiscard]] std::size_t buffers_waiting_for_credit(std::size_t destination) noexcept;
[[nodiscard]] bool reached_by_ring(std::size_t destination) noexcept;
/// What a buffer to `destination` holds at most before it goes: buffer_bytes(), or an eighth of
/// it while `destination`, an image of another node, waits at a sync point for this image's
/// messages (from its request for acknowledgements until sync_point_ended() here), so that it
/// gets them as they are made, not a buffer at a time. Local.
[[nodiscard]] std::size_t buffer_fill_limit(std::size_t destination) noexcept;

/// Between two polls that found nothing: the wait's `polls`-th poll, the `quiet`-th in a row
/// that found nothing. With a core of its own an image polls at full speed for a few
/// microseconds after anything arrived (an answer to what it sent comes that soon, and one
/// pause can take as long as a poll: 50 ns on an AMD EPYC VM of family 25), then tells the
/// processor it spins (the polled cache line is left to the image about to write it); when
/// images outnumber cores it gives the core away after a few quick polls, since a busy poll
/// would keep the very image it waits for off the core. Local.
void idle(unsigned polls, unsigned quiet) noexcept;

/// A wait loop's count of its polls: after(did) once per poll, told whether the poll did
/// anything, idles (idle()) after one that did nothing. Local.
class wait_polls {
 public:
  void after(bool did) noexcept {
    if (did) {
      quiet_ = 0;
    } else {
      idle(polls_, quiet_++);
    }
    ++polls_;
  }
  /// Polls made so far in this wait.
  [[nodiscard]] unsigned polls() const noexcept { return polls_; }

 private:
  unsigned polls_ = 0;
  unsigned quiet_ = 0;  // of them, in a row that did nothing
};

/// Collective over world: sets the engine up on a communicator of its own (the environment
/// calls it when it starts; `ring_members`, by world rank, the images of this node that buffers
/// reach through rings in shared memory rather than MPI — this image among them, the same list
/// on each of them — or none; `node_members`, by world rank, the images of this node, whether
/// rings reach them or not), and tears it down (when it ends; after a last quiescent barrier
/// unless `unwinding`).
void start(MPI_Comm world,
           const std::vector<bool>& ring_members,
           const std::vector<bool>& node_members);
void stop(bool unwinding) noexcept;

template <class Done>
void progress_until(Done done) {
  watchdog::begin_wait();
  for (wait_polls polls; !done();) polls.after(progress_step());
}

}  // namespace pgas::runtime::messages
