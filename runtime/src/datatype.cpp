#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>

#include <climits>
#include <map>
#include <string>
#include <tuple>

namespace pgas::runtime {
namespace {

using shape = std::tuple<MPI_Datatype, int, int, int>;

int largest_count_now = INT_MAX;

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

void throw_count_too_large(std::size_t n) {
  throw usage_error("a single transfer of " + std::to_string(n) +
                    " elements exceeds MPI's int count; split it into smaller pieces");
}

mpi_count::mpi_count(MPI_Datatype type, std::size_t n) : type_{type}, count_{0} {
  const std::size_t largest = largest_count();
  if (n <= largest) {
    count_ = static_cast<int>(n);
    return;
  }
  owned_datatype block;
  check(MPI_Type_contiguous(largest_count_now, type, block.out()), "MPI_Type_contiguous");
  MPI_Aint lower = 0;
  MPI_Aint extent = 0;
  check(MPI_Type_get_extent(type, &lower, &extent), "MPI_Type_get_extent");
  const std::size_t blocks = n / largest;
  const int lengths[2] = {to_count(blocks), static_cast<int>(n % largest)};
  const MPI_Aint starts[2] = {0, static_cast<MPI_Aint>(blocks * largest) * extent};
  const MPI_Datatype types[2] = {block.get(), type};
  check(MPI_Type_create_struct(2, lengths, starts, types, derived_.out()),
        "MPI_Type_create_struct");
  check(MPI_Type_commit(derived_.out()), "MPI_Type_commit");
  type_ = derived_.get();
  count_ = 1;
}

std::size_t largest_count() noexcept {
  return static_cast<std::size_t>(largest_count_now);
}

void testing::set_largest_count(int n) noexcept {
  largest_count_now = n > 0 ? n : INT_MAX;
}

}  // namespace pgas::runtime
