#include <pgas/runtime/team.hpp>

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>

namespace pgas {

namespace {

// Frees a split communicator, unless MPI has already been finalised (a team outliving the
// environment has nothing left to free).
struct free_communicator {
  void operator()(const MPI_Comm* comm) const noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    MPI_Comm handle = *comm;
    if (finalized == 0) MPI_Comm_free(&handle);
    delete comm;
  }
};

}  // namespace

team::team(std::shared_ptr<const MPI_Comm> comm, int number, std::shared_ptr<const team> parent)
    : comm_{std::move(comm)}, number_{number}, parent_{std::move(parent)} {
  int rank = 0;
  int size = 1;
  runtime::check(MPI_Comm_rank(*comm_, &rank), "MPI_Comm_rank");
  runtime::check(MPI_Comm_size(*comm_, &size), "MPI_Comm_size");
  rank_ = static_cast<std::size_t>(rank);
  size_ = static_cast<std::size_t>(size);
}

team team::world() {
  // The environment owns the world duplicate; the team only refers to it.
  return team{std::make_shared<const MPI_Comm>(runtime::world_comm()), -1, nullptr};
}

namespace {
std::shared_ptr<const MPI_Comm> owned(MPI_Comm comm) {
  runtime::check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return std::shared_ptr<const MPI_Comm>(new MPI_Comm(comm), free_communicator{});
}
}  // namespace

team team::shared_memory() {
  const team world = team::world();
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_split_type(world.native(), MPI_COMM_TYPE_SHARED, static_cast<int>(world.rank()),
                                     MPI_INFO_NULL, &out),
                 "MPI_Comm_split_type");
  auto comm = owned(out);
  int first = static_cast<int>(world.rank());
  runtime::check(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, *comm), "MPI_Allreduce");
  return team{std::move(comm), first, std::make_shared<const team>(world)};
}

team team::from_native(MPI_Comm comm, int number) {
  runtime::require_environment("pgas::team::from_native");
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_dup(comm, &out), "MPI_Comm_dup");
  return team{owned(out), number, std::make_shared<const team>(team::world())};
}

team team::parent() const { return parent_ ? *parent_ : *this; }

team team::split(int colour, int key) const {
  if (colour < 0) throw usage_error("team::split needs a colour >= 0");
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_split(native(), colour, key, &out), "MPI_Comm_split");
  return team{owned(out), colour, std::make_shared<const team>(*this)};
}

std::size_t team::rank() const noexcept { return rank_; }
std::size_t team::size() const noexcept { return size_; }

void team::barrier() const { runtime::check(MPI_Barrier(native()), "MPI_Barrier"); }

}  // namespace pgas
