#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/window.hpp>

#include <algorithm>
#include <string>

namespace pgas::runtime {

namespace {
// Counts one sync point and the time from `start` (PGAS_STATS).
void count_sync(double start) noexcept {
  if (!statistics::enabled)
    return;
  ++statistics::counters.sync_points;
  statistics::counters.sync_seconds += MPI_Wtime() - start;
}
double now_if_counting() noexcept {
  return statistics::enabled ? MPI_Wtime() : 0.0;
}
}  // namespace

void sync_all(MPI_Comm comm) {
  const double start = now_if_counting();
  complete_all_windows();
  // Every message sent before it has been handled, and images waiting on this one's handlers
  // are served while it waits.
  messages::quiescent_barrier(comm);
  // In the unified model a peer's completed put is in our memory, but our loads may still be
  // ordered before it without a memory barrier.
  sync_all_window_memory();
  // Every access before this point is complete: check them (PGAS_CHECK=1).
  race_check::at_barrier(comm);
  count_sync(start);
}

namespace {
// sync_memory(), its windows completed by `complete_windows`.
void complete_and_quiesce(void (*complete_windows)()) {
  require_environment("pgas::sync_memory()");
  const double start = now_if_counting();
  complete_windows();
  messages::quiesce();
  count_sync(start);
}
}  // namespace

void sync_memory() {
  complete_and_quiesce(complete_all_windows);
}

void sync_memory_before_signal_in_place() {
  complete_and_quiesce(complete_all_windows_before_signal_in_place);
}

void sync_memory_before_message_to(std::size_t destination) {
  require_environment("pgas::sync_memory()");
  const double start = now_if_counting();
  send_held_write_ahead_of_message_to(destination);  // then nothing of it to complete here
  complete_windows_before_message();
  // The others' acknowledgements follow the owners' notes that they applied our batches.
  messages::quiesce_except(destination);
  count_sync(start);
}

void sync_images(const std::vector<int>& images) {
  const MPI_Comm comm = notify_comm();
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<int> sorted = images;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    if (sorted[k] < 0 || sorted[k] >= size) {
      throw usage_error("sync_images: image " + std::to_string(sorted[k]) +
                        " does not exist; there are " + std::to_string(size) + " images");
    }
    if (k > 0 && sorted[k] == sorted[k - 1]) {
      throw usage_error("sync_images: image " + std::to_string(sorted[k]) + " is named twice");
    }
  }
  const double start = now_if_counting();
  complete_all_windows();
  messages::quiesce();
  // One empty message each way per pair; the notify communicator keeps them apart from any
  // message of the user's.
  constexpr int tag = 1;
  std::vector<MPI_Request> requests(2 * sorted.size(), MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    check(MPI_Irecv(nullptr, 0, MPI_BYTE, sorted[k], tag, comm, &requests[2 * k]), "MPI_Irecv");
    check(MPI_Isend(nullptr, 0, MPI_BYTE, sorted[k], tag, comm, &requests[2 * k + 1]), "MPI_Isend");
  }
  messages::wait_all(requests);
  messages::sync_point_ended();
  sync_all_window_memory();
  race_check::at_pairwise_sync(sorted);
  count_sync(start);
}

}  // namespace pgas::runtime
