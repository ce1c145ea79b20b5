#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/group.hpp>

namespace pgas::runtime {

group group::include(MPI_Group from, const std::vector<int>& ranks) {
  MPI_Group out = MPI_GROUP_NULL;
  check(MPI_Group_incl(from, to_count(ranks.size()), ranks.data(), &out), "MPI_Group_incl");
  return group{out};
}

int group::size() const {
  int n = 0;
  check(MPI_Group_size(native(), &n), "MPI_Group_size");
  return n;
}

}  // namespace pgas::runtime
