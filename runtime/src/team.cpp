#include <pgas/runtime/team.hpp>

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>

namespace pgas {

team::team(boost::mpi::communicator comm)
    : comm_{std::move(comm)},
      rank_{static_cast<std::size_t>(comm_.rank())},
      size_{static_cast<std::size_t>(comm_.size())} {}

team team::world() {
  // The environment owns the world duplicate; the team only refers to it.
  return team{boost::mpi::communicator(runtime::world_comm(), boost::mpi::comm_attach)};
}

team team::split(int colour, int key) const {
  if (colour < 0) throw usage_error("team::split needs a colour >= 0");
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_split(native(), colour, key, &out), "MPI_Comm_split");
  runtime::check(MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return team{boost::mpi::communicator(out, boost::mpi::comm_take_ownership)};
}

std::size_t team::rank() const noexcept { return rank_; }
std::size_t team::size() const noexcept { return size_; }

void team::barrier() const { runtime::check(MPI_Barrier(native()), "MPI_Barrier"); }

}  // namespace pgas
