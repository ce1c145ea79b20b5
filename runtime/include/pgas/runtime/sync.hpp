#pragma once
// The synchronisation the containers' sync points are made of.

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace pgas::runtime {

/// Collective over comm: completes this process's operations on every window, waits for every
/// process of comm to do the same, then makes their writes visible to local loads.
void sync_all(MPI_Comm comm);

/// Local: completes this process's operations on every window and syncs window memory, and
/// waits until every message it sent has been handled (messages::quiesce).
void sync_memory();

/// What sync_memory() does, for a signal written in place on a shared window right after it — a
/// processor atomic (a full memory barrier) or a release store — which stands in for the barrier
/// sync_memory() issues for windows whose memory is one copy: either orders this process's
/// earlier loads and stores before itself for the process that reads it (with an acquire load),
/// all that a signal promises. Local.
void sync_memory_before_signal_in_place();

/// What sync_memory() does, for a message to world rank `destination` sent right after it that
/// tells it these writes are done: the same, except that this process's messages to
/// `destination` (batches for it to apply included) are not waited for, since that message will
/// be handled after them — which saves the round trip to `destination` that sync_memory() would
/// take. Local.
void sync_memory_before_message_to(std::size_t destination);

/// Completes this process's operations, then waits until each image in `images` (world ranks)
/// has called sync_images naming this image. Pairwise: each listed image must list us back.
/// Throws usage_error, before any communication, for an image that does not exist or is named
/// twice.
void sync_images(const std::vector<int>& images);

}  // namespace pgas::runtime
