#pragma once
// Teams: groups of images that run collectives and own windows together.

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

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
  /// A team over comm that does not own it (comm must outlive it): a container's team seen
  /// through its communicator. Local.
  [[nodiscard]] static team borrowed(MPI_Comm comm);

  /// The colour this team was split with (Fortran's team_number()); -1 for the world team.
  /// Local.
  [[nodiscard]] int number() const noexcept { return number_; }
  /// The team this one was split from; the world team's parent is the world team. Local.
  [[nodiscard]] team parent() const;

  /// This image's number in the team, 0-based, and how many images the team has (Fortran's
  /// this_image(team) - 1 and num_images(team)). Local.
  [[nodiscard]] std::size_t this_image() const noexcept { return rank_; }
  [[nodiscard]] std::size_t num_images() const noexcept { return size_; }
  /// The same two numbers under the names MPI gives them. Local.
  [[nodiscard]] std::size_t rank() const noexcept { return rank_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Collective: returns once every image of the team has called it.
  void barrier() const;
  /// The team's communicator, with MPI_ERRORS_RETURN. Local.
  [[nodiscard]] MPI_Comm native() const noexcept { return *comm_; }
  /// The number in the world team of this team's image `image`; out_of_range for an image
  /// the team does not have. Local.
  [[nodiscard]] std::size_t world_image(std::size_t image) const;
  /// The same as an MPI rank of MPI_COMM_WORLD, unchecked. Local.
  [[nodiscard]] int world_rank(std::size_t image) const { return (*world_ranks_)[image]; }
  /// True when both are the same team (one communicator), however obtained. Local.
  friend bool operator==(const team& a, const team& b) noexcept { return a.native() == b.native(); }

 private:
  // Shared by copies; frees a communicator the team made itself when the last copy goes.
  team(std::shared_ptr<const MPI_Comm> comm, int number, std::shared_ptr<const team> parent);
  std::shared_ptr<const MPI_Comm> comm_;
  std::shared_ptr<const std::vector<int>> world_ranks_;  // world number of each image
  std::size_t rank_ = 0;
  std::size_t size_ = 1;
  int number_ = -1;
  std::shared_ptr<const team> parent_;  // null for the world team
};

/// The team in force: that of the innermost change_team scope, or the world team. this_image()
/// and num_images() are relative to it, and containers, coarrays, sync_all, the co_*
/// collectives, events and locks made or called without a team use it. Local.
[[nodiscard]] team current_team();
/// The number of the team in force (Fortran's team_number()): its colour, -1 for the world.
/// Local.
[[nodiscard]] int team_number();

/// Fortran's CHANGE TEAM ... END TEAM, as a scope: `{ pgas::change_team scope(t); ... }`.
/// Collective over t at both ends: entering synchronises t's images; leaving completes every
/// write of t's images and synchronises them (sync_all over t), as END TEAM does. Scopes nest;
/// t must have been formed from the team in force (split from it), as Fortran requires —
/// usage_error otherwise, before anything is synchronised. Leaving because of an exception
/// synchronises nothing (the other images may not be leaving).
class change_team {
 public:
  explicit change_team(const team& t);
  change_team(const change_team&) = delete;
  change_team& operator=(const change_team&) = delete;
  change_team(change_team&&) = delete;
  change_team& operator=(change_team&&) = delete;
  ~change_team();

 private:
  int exceptions_at_entry_;
};

namespace runtime {
/// Makes t the team in force for the library's own work on a container of t (an algorithm, a
/// collective member function), without synchronising anyone, until it goes. Local.
class acting_team {
 public:
  explicit acting_team(const team& t);
  /// The team of communicator comm (a container's); nothing changes when comm is the team in
  /// force already, or MPI_COMM_NULL.
  explicit acting_team(MPI_Comm comm);
  acting_team(const acting_team&) = delete;
  acting_team& operator=(const acting_team&) = delete;
  ~acting_team();

 private:
  bool pushed_ = false;
};
namespace detail {
/// The world's size while the environment lives and no other team is in force, else 0: most
/// calls address the world's images, and a stream of remote calls asks for every message.
inline std::size_t world_in_force_size = 0;
/// world_rank_in_force() when the world is not in force, or the image is not the world's.
[[nodiscard]] std::size_t world_rank_in_force_slowly(std::size_t image);
}  // namespace detail
/// The world rank of image `image` of the team in force, without copying the team; throws
/// out_of_range for an image the team does not have. Local.
[[nodiscard]] inline std::size_t world_rank_in_force(std::size_t image) {
  if (image < detail::world_in_force_size)
    return image;
  return detail::world_rank_in_force_slowly(image);
}
/// current_team()'s communicator, without copying the team. Local.
[[nodiscard]] MPI_Comm current_comm();
/// Forgets every change_team scope (the environment ends). Local.
void reset_team_scopes() noexcept;
}  // namespace runtime

}  // namespace pgas
