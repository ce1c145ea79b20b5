#pragma once
// The MPI environment of a pgas program: start-up, shut-down, the world communicator.

#include <mpi.h>

#include <cstddef>
#include <memory>

namespace pgas {

/// Starts MPI (or adopts an MPI the program already started) for the lifetime of the object.
/// Collective over all processes of the job. Exactly one may exist at a time.
///
/// On Open MPI it sets two variables before MPI_Init, each unless already set (docs/platform.md):
/// OMPI_MCA_osc=^ucx, because the UCX one-sided component cannot create MPI_Win_create or
/// MPI_Win_create_dynamic windows in a one-process job, and
/// OMPI_MCA_btl_vader_flags=send,put,get,inplace, because vader's atomics crash 64-bit
/// compare-and-swap. A program that initialises MPI itself must set them itself.
class environment {
 public:
  environment();
  environment(int& argc, char**& argv);
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  environment(environment&&) = delete;
  environment& operator=(environment&&) = delete;
  /// Collective. Frees the library's communicators and finalises MPI if this object started it.
  ~environment();

  /// True while an environment exists. Local.
  [[nodiscard]] static bool active() noexcept;

  /// Sets, unless already set, the variables above that this MPI needs before MPI_Init. Call
  /// it first in a program that starts MPI itself (e.g. with boost::mpi::environment) and then
  /// creates a pgas::environment, which adopts that MPI. Local; no MPI call.
  static void prepare_mpi() noexcept;

 private:
  void start(int* argc, char*** argv);
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// This process's image number, 0-based, in the team in force (current_team(): the world team
/// outside every change_team scope). Local.
[[nodiscard]] std::size_t this_image();
/// How many images the team in force has. Local.
[[nodiscard]] std::size_t num_images();

namespace runtime {
/// pgas's duplicate of MPI_COMM_WORLD, with MPI_ERRORS_RETURN. Throws usage_error if no
/// environment exists (never started, or already ended). Local.
[[nodiscard]] MPI_Comm world_comm();
/// This process's rank in world_comm(), and its size, whatever team is in force. Local.
[[nodiscard]] std::size_t world_rank();
[[nodiscard]] std::size_t world_size();
/// True when every image runs on one shared-memory node, so windows over world_comm() can map
/// each other's memory (set PGAS_SHARED_MEMORY=0 to keep every access on MPI one-sided calls).
/// The same on every image. Local.
[[nodiscard]] bool world_shares_memory();
/// True when the image of world rank `world_rank` runs on this process's shared-memory node
/// (whether or not pgas maps its memory): MPI may then reach it through shared memory. Local.
[[nodiscard]] bool on_this_node(std::size_t world_rank);
/// True when this node runs more images than they may use cores between them (the union of
/// their affinity masks), so a waiting image should give its core away between polls. Local.
[[nodiscard]] bool oversubscribed() noexcept;
/// A second duplicate for the library's own point-to-point notifications, so they can never
/// match a user's messages or a collective. Local.
[[nodiscard]] MPI_Comm notify_comm();
/// Throws usage_error naming `what` unless an environment exists. Local.
void require_environment(const char* what);
}  // namespace runtime

}  // namespace pgas
