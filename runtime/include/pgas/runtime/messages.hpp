#pragma once
// The owner-side message engine (a conveyor): small messages to other images are packed into
// one buffer per destination, each buffer sent as one MPI message when it is full or flushed,
// and the destination runs each message's handler when it makes progress.
//
// Progress rule: handlers run only inside pgas calls on the destination image — sync points,
// waits on futures, events and locks, engine calls and progress() — never behind its back.
//
// Termination (Dijkstra and Scholten's diffusing computations): every message is acknowledged
// to its sender once its handler has run and every message that handler sent has been
// acknowledged in turn. An image whose own messages (those sent outside any handler) are all
// acknowledged therefore knows that they, and everything they caused anywhere, have been
// handled; a sync point waits for that on every image of its team before it returns.
//
// Memory: a budget per image (PGAS_MESSAGE_BUDGET bytes, 16 MiB unless set, the smallest any
// image asks for) holds the send buffers (one per destination), the sends in flight and the
// posted receives; a sender that would pass it makes progress until a send completes. The
// bookkeeping of messages whose handlers' messages are unacknowledged grows with nesting, not
// with the number of messages.
//
// Single-threaded: call it from the thread that makes pgas calls.

#include <pgas/runtime/error.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace pgas::runtime::messages {

/// Runs at the destination: `source` is the sender's world rank, `payload` the bytes it sent
/// (8-byte aligned; valid during the call only).
using handler = void (*)(std::size_t source, std::span<const std::byte> payload);

/// A handler as every image names it (portable_code_address of the function). Local.
[[nodiscard]] std::uint64_t name_of(handler h);

/// Room for one message of `bytes` bytes to world rank `destination`, to be filled before the
/// next engine call; its handler is the one named `handler_name`. May send full buffers and
/// make progress (run arrived handlers) to stay within the budget. Throws usage_error for a
/// message larger than max_message_bytes(). Local.
[[nodiscard]] std::span<std::byte> reserve(std::size_t destination, std::uint64_t handler_name,
                                           std::size_t bytes);
/// As reserve(), for a reply to the message whose handler is running, to its sender: a reply is
/// not acknowledged (the acknowledgement of the message it answers follows it on the same
/// ordered channel, so whoever waits for that one has the reply first), and goes out at the end
/// of this progress. Local.
[[nodiscard]] std::span<std::byte> reserve_reply(std::size_t destination, std::uint64_t handler_name,
                                                 std::size_t bytes);
/// Queues a copy of `payload` for `destination`, as reserve() does. Local.
void send(std::size_t destination, std::uint64_t handler_name, std::span<const std::byte> payload);

/// Sends every buffer that holds a message now, without waiting. Local.
void flush();
/// Sends the buffer for `destination` now, if it holds a message. Local.
void flush(std::size_t destination);
/// Runs the handlers of every message that has arrived, and moves sends and acknowledgements
/// along. Returns true if it did anything. Local.
bool progress();
/// Flushes, then makes progress until every message this image sent outside a handler, and
/// every message sent by the handlers they caused, has been handled. Local (it needs the
/// destinations to make progress).
void quiesce();
/// Collective over comm: quiesce() on every image of comm, then a barrier that keeps making
/// progress, so that images outside or inside comm waiting on this one are served meanwhile.
void quiescent_barrier(MPI_Comm comm);
/// Collective over comm: a barrier that keeps making progress while it waits.
void barrier(MPI_Comm comm);
/// Makes progress until `done()` is true, giving the core away between polls when images
/// outnumber cores. Local.
template <class Done>
void progress_until(Done done);

/// Completes a request, making progress while it waits. Local.
void wait(MPI_Request& request, const char* call);
/// Runs a collective to completion as its non-blocking form, issued by start(&request) (an
/// MPI_I... call named `call`), making progress while it waits: an image waiting in a
/// collective serves the calls of images that have not reached it yet.
template <class Start>
void collective(Start start, const char* call) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(start(&request), call);
  wait(request, call);
}

/// Largest payload one message can carry. Local.
[[nodiscard]] std::size_t max_message_bytes() noexcept;
/// The budget this image keeps to, and the bytes it holds for buffers now. Local.
[[nodiscard]] std::size_t budget_bytes() noexcept;
[[nodiscard]] std::size_t bytes_in_use() noexcept;
/// True while a handler runs on this image. Local.
[[nodiscard]] bool in_handler() noexcept;

/// Gives the core away if images outnumber cores; a pause otherwise. Local.
void idle() noexcept;

/// Collective over world: sets the engine up on a communicator of its own (the environment
/// calls it when it starts), and tears it down (when it ends; after a last quiescent barrier
/// unless `unwinding`).
void start(MPI_Comm world);
void stop(bool unwinding) noexcept;

template <class Done>
void progress_until(Done done) {
  while (!done()) {
    if (!progress()) idle();
  }
}

}  // namespace pgas::runtime::messages
