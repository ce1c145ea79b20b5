#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>

#include <climits>
#include <map>
#include <string>
#include <tuple>

namespace pgas::runtime {
namespace {

using shape = std::tuple<MPI_Datatype, int, int, int>;

std::map<shape, MPI_Datatype>& cache() {
  static std::map<shape, MPI_Datatype> types;
  return types;
}

}  // namespace

MPI_Datatype strided_type(MPI_Datatype base, int count, int block_length, int stride) {
  const shape key{base, count, block_length, stride};
  auto& types = cache();
  if (auto it = types.find(key); it != types.end())
    return it->second;
  owned_datatype t;
  check(MPI_Type_vector(count, block_length, stride, base, t.out()), "MPI_Type_vector");
  check(MPI_Type_commit(t.out()), "MPI_Type_commit");
  return types.emplace(key, t.release()).first->second;
}

void free_cached_datatypes() noexcept {
  for (auto& entry : cache()) MPI_Type_free(&entry.second);
  cache().clear();
}

int to_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    throw usage_error("a single transfer of " + std::to_string(n) +
                      " elements exceeds MPI's int count; split it into smaller pieces");
  }
  return static_cast<int>(n);
}

}  // namespace pgas::runtime
