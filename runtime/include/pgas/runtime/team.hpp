#pragma once
// Teams: groups of images that run collectives and own windows together.

#include <mpi.h>

#include <cstddef>
#include <memory>

namespace pgas {

/// A set of images with its own communicator. Copies share the communicator.
class team {
 public:
  /// All images of the job. Local.
  [[nodiscard]] static team world();

  /// Collective over this team: images passing the same colour form one new team, ordered by
  /// key, then by rank here. Every image gets the team it joined.
  [[nodiscard]] team split(int colour, int key = 0) const;
  /// Collective over the world: the images on this node, which share memory
  /// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), for node-level work on multi-node jobs.
  /// Its number() is the world number of the node's first image; its parent() the world.
  [[nodiscard]] static team shared_memory();

  /// Collective over `comm`: a team of comm's processes, on a duplicate of comm the team owns
  /// (so the team's traffic never meets comm's), with `number` as its team number and the
  /// world team as parent. For communicators made outside pgas (Boost.MPI, a library). Comm
  /// may be freed afterwards.
  [[nodiscard]] static team from_native(MPI_Comm comm, int number = -1);

  /// The colour this team was split with (Fortran's team_number()); -1 for the world team.
  /// Local.
  [[nodiscard]] int number() const noexcept { return number_; }
  /// The team this one was split from; the world team's parent is the world team. Local.
  [[nodiscard]] team parent() const;

  /// This image's number in the team, 0-based, and the team's size. Local.
  [[nodiscard]] std::size_t rank() const noexcept;
  [[nodiscard]] std::size_t size() const noexcept;
  /// Collective: returns once every image of the team has called it.
  void barrier() const;
  /// The team's communicator, with MPI_ERRORS_RETURN. Local.
  [[nodiscard]] MPI_Comm native() const noexcept { return *comm_; }

 private:
  // Shared by copies; frees a communicator the team made itself when the last copy goes.
  team(std::shared_ptr<const MPI_Comm> comm, int number, std::shared_ptr<const team> parent);
  std::shared_ptr<const MPI_Comm> comm_;
  std::size_t rank_ = 0;
  std::size_t size_ = 1;
  int number_ = -1;
  std::shared_ptr<const team> parent_;  // null for the world team
};

}  // namespace pgas
