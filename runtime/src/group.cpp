#include <pgas/runtime/group.hpp>

#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>

#include <numeric>

namespace pgas::runtime {

group group::include(MPI_Group from, const std::vector<int>& ranks) {
  MPI_Group out = MPI_GROUP_NULL;
  check(MPI_Group_incl(from, to_count(ranks.size()), ranks.data(), &out), "MPI_Group_incl");
  return group{out};
}

int group::size() const {
  int n = 0;
  check(MPI_Group_size(handle_, &n), "MPI_Group_size");
  return n;
}

std::vector<int> group::ranks_in(MPI_Group other) const {
  const int n = size();
  std::vector<int> mine(static_cast<std::size_t>(n));
  std::iota(mine.begin(), mine.end(), 0);
  std::vector<int> theirs(mine.size());
  check(MPI_Group_translate_ranks(handle_, n, mine.data(), other, theirs.data()),
        "MPI_Group_translate_ranks");
  return theirs;
}

void group::release() noexcept {
  // MPI_GROUP_EMPTY is predefined and must not be freed.
  if (handle_ != MPI_GROUP_NULL && handle_ != MPI_GROUP_EMPTY) MPI_Group_free(&handle_);
  handle_ = MPI_GROUP_NULL;
}

}  // namespace pgas::runtime
