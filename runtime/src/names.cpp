#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/group.hpp>
#include <pgas/runtime/names.hpp>

namespace pgas::runtime {

namespace {

// The smallest count this process has not used.
std::uint64_t next_count = 0;

int world_rank_of_first(MPI_Comm comm) {
  MPI_Group from = MPI_GROUP_NULL;
  MPI_Group to = MPI_GROUP_NULL;
  check(MPI_Comm_group(comm, &from), "MPI_Comm_group");
  const group owned_from{from};
  check(MPI_Comm_group(MPI_COMM_WORLD, &to), "MPI_Comm_group");
  const group owned_to{to};
  const int first = 0;
  int world = MPI_UNDEFINED;
  check(MPI_Group_translate_ranks(from, 1, &first, to, &world), "MPI_Group_translate_ranks");
  return world;
}

}  // namespace

std::uint64_t agree_on_new_name(MPI_Comm comm) {
  // Every process takes the largest count any of them has not used: unused on every member.
  const std::uint64_t count = allreduce(next_count, reduce_op::max, comm);
  next_count = count + 1;
  return (static_cast<std::uint64_t>(world_rank_of_first(comm)) << name_count_bits) | count;
}

}  // namespace pgas::runtime
