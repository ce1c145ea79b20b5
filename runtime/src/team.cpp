#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>

#include "window_pool.hpp"
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

namespace pgas {

namespace {

// Frees a split communicator, unless MPI has already been finalised (a team outliving the
// environment has nothing left to free). The windows kept for reuse on it go first: the pool
// knows windows by communicator, and MPI may hand the freed handle to the next one.
struct free_communicator {
  void operator()(const MPI_Comm* comm) const noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    MPI_Comm handle = *comm;
    if (finalized == 0) {
      runtime::window_pool::drain(handle);
      MPI_Comm_free(&handle);
    }
    delete comm;
  }
};

// The change_team scopes in force, innermost last, and the rank and size of the innermost.
// Changed only by enter_scope and leave_scope, which keep world_in_force_size with them.
std::vector<team>& scopes() {
  static std::vector<team> s;
  return s;
}
void enter_scope(const team& t) {
  scopes().push_back(t);
  runtime::detail::world_in_force_size = 0;
}
void leave_scope() noexcept {
  scopes().pop_back();
  if (scopes().empty()) {
    try {
      runtime::detail::world_in_force_size = runtime::world_size();
    } catch (const usage_error&) {
      // no environment: every address takes the checked path, which says so
    }
  }
}

}  // namespace

team::team(std::shared_ptr<const MPI_Comm> comm, int number, std::shared_ptr<const team> parent)
    : comm_{std::move(comm)}, number_{number}, parent_{std::move(parent)} {
  int rank = 0;
  int size = 1;
  runtime::check(MPI_Comm_rank(*comm_, &rank), "MPI_Comm_rank");
  runtime::check(MPI_Comm_size(*comm_, &size), "MPI_Comm_size");
  rank_ = static_cast<std::size_t>(rank);
  size_ = static_cast<std::size_t>(size);
  // Each image's world number, for what is addressed by world number (sync_images' messages).
  MPI_Group mine = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  runtime::check(MPI_Comm_group(*comm_, &mine), "MPI_Comm_group");
  runtime::check(MPI_Comm_group(runtime::world_comm(), &world), "MPI_Comm_group");
  std::vector<int> ranks(size_);
  for (std::size_t r = 0; r < size_; ++r) ranks[r] = static_cast<int>(r);
  auto in_world = std::make_shared<std::vector<int>>(size_);
  const int err = MPI_Group_translate_ranks(mine, size, ranks.data(), world, in_world->data());
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  runtime::check(err, "MPI_Group_translate_ranks");
  world_ranks_ = std::move(in_world);
}

namespace {
// The world team, made once per environment: every container made outside a change_team scope
// asks for it, and making one translates ranks (MPI_Group_translate_ranks).
std::optional<team>& world_team_cache() {
  static std::optional<team> world;
  return world;
}
}  // namespace

team team::world() {
  // The environment owns the world duplicate; the team only refers to it.
  const MPI_Comm comm = runtime::world_comm();
  auto& cached = world_team_cache();
  if (!cached || cached->native() != comm)
    cached = team{std::make_shared<const MPI_Comm>(comm), -1, nullptr};
  return *cached;
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
  runtime::check(MPI_Comm_split_type(world.native(), MPI_COMM_TYPE_SHARED,
                                     static_cast<int>(world.rank()), MPI_INFO_NULL, &out),
                 "MPI_Comm_split_type");
  auto comm = owned(out);
  int first = static_cast<int>(world.rank());
  runtime::messages::collective("MPI_Iallreduce", MPI_Iallreduce, MPI_IN_PLACE, &first, 1, MPI_INT,
                                MPI_MIN, *comm);
  return team{std::move(comm), first, std::make_shared<const team>(world)};
}

team team::from_native(MPI_Comm comm, int number) {
  runtime::require_environment("pgas::team::from_native");
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_dup(comm, &out), "MPI_Comm_dup");
  return team{owned(out), number, std::make_shared<const team>(team::world())};
}

team team::borrowed(MPI_Comm comm) {
  return team{std::make_shared<const MPI_Comm>(comm), -1,
              std::make_shared<const team>(team::world())};
}

team team::parent() const {
  return parent_ ? *parent_ : *this;
}

team team::split(int colour, int key) const {
  // Agreed first: an image that throws alone would leave the others waiting in MPI_Comm_split.
  if (!runtime::everyone(colour >= 0, native())) {
    throw usage_error(colour < 0 ? "team::split needs a colour >= 0"
                                 : "team::split: another image passed a colour < 0");
  }
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_split(native(), colour, key, &out), "MPI_Comm_split");
  return team{owned(out), colour, std::make_shared<const team>(*this)};
}

std::size_t team::world_image(std::size_t image) const {
  if (image >= size_)
    runtime::throw_out_of_range("image", image, size_);
  return static_cast<std::size_t>((*world_ranks_)[image]);
}

void team::barrier() const {
  runtime::messages::barrier(native());
}

team current_team() {
  runtime::require_environment("pgas::current_team()");
  return scopes().empty() ? team::world() : scopes().back();
}

int team_number() {
  return scopes().empty() ? -1 : scopes().back().number();
}

std::size_t this_image() {
  runtime::require_environment("pgas::this_image()");
  return scopes().empty() ? runtime::world_rank() : scopes().back().rank();
}

std::size_t num_images() {
  runtime::require_environment("pgas::num_images()");
  return scopes().empty() ? runtime::world_size() : scopes().back().size();
}

change_team::change_team(const team& t) : exceptions_at_entry_{std::uncaught_exceptions()} {
  runtime::require_environment("pgas::change_team");
  const MPI_Comm in_force = runtime::current_comm();
  if (t.parent().native() != in_force && t.native() != in_force) {
    throw usage_error(
        "pgas::change_team: the team was not formed from the team in force (split it from "
        "pgas::current_team(), or enter the scopes in the order the teams were formed)");
  }
  t.barrier();
  enter_scope(t);
}

change_team::~change_team() {
  if (scopes().empty())
    return;  // the environment already ended
  const team t = scopes().back();
  leave_scope();
  if (std::uncaught_exceptions() > exceptions_at_entry_)
    return;  // others may not be leaving
  try {
    runtime::sync_all(t.native());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pgas: leaving a change_team scope failed: %s\n", e.what());
  }
}

namespace runtime {

acting_team::acting_team(const team& t) : pushed_{true} {
  enter_scope(t);
}
acting_team::acting_team(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || comm == current_comm())
    return;
  enter_scope(team::borrowed(comm));
  pushed_ = true;
}
acting_team::~acting_team() {
  if (pushed_ && !scopes().empty())
    leave_scope();
}

std::size_t detail::world_rank_in_force_slowly(std::size_t image) {
  require_environment("addressing an image");
  const std::size_t size = scopes().empty() ? world_size() : scopes().back().size();
  if (image >= size)
    throw_out_of_range("image", image, size);
  return scopes().empty() ? image : static_cast<std::size_t>(scopes().back().world_rank(image));
}

MPI_Comm current_comm() {
  require_environment("the current team");
  return scopes().empty() ? world_comm() : scopes().back().native();
}

void reset_team_scopes() noexcept {
  scopes().clear();
  detail::world_in_force_size = 0;
  world_team_cache().reset();
}

}  // namespace runtime

}  // namespace pgas
