#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/record_reduction.hpp>

#include <algorithm>
#include <cstring>

namespace pgas::runtime {

namespace {
// reduce_record's combiner for the agreed reduction: `context` is the record_combiner of T.
void combine_typed(const std::byte* lower, std::byte* upper, void* context) {
  detail::typed_value from;
  detail::typed_value into;
  std::memcpy(&from, lower, sizeof from);
  std::memcpy(&into, upper, sizeof into);
  if (from.mismatch != 0 || into.mismatch != 0 || from.digest != into.digest ||
      from.op != into.op) {
    into.mismatch = 1;
  } else {
    auto op = static_cast<reduce_op>(into.op);
    (*static_cast<record_combiner*>(context))(from.value, into.value, &op);
  }
  std::memcpy(upper, &into, sizeof into);
}
}  // namespace

void detail::reduce_typed(typed_value& v, record_combiner combine, MPI_Comm comm) {
  reduce_record(std::as_writable_bytes(std::span(&v, 1)), combine_typed, &combine, comm);
}

void free_agreed_reduction() noexcept {
  free_record_reduction();
}

bool same_everywhere(std::span<const long long> values, MPI_Comm comm) {
  // One allreduce of (v, -v) with MPI_MIN gives min and max of every entry at once.
  std::vector<long long> both(2 * values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    both[2 * k] = values[k];
    both[2 * k + 1] = -values[k];
  }
  std::vector<long long> out(both.size());
  messages::collective("MPI_Iallreduce", MPI_Iallreduce, both.data(), out.data(),
                       to_count(both.size()), MPI_LONG_LONG, MPI_MIN, comm);
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (out[2 * k] != -out[2 * k + 1])
      return false;
  }
  return true;
}

std::vector<std::size_t> balanced_grid(std::size_t images, std::size_t dims) {
  std::vector<int> extents(dims, 0);
  check(MPI_Dims_create(to_count(images), to_count(dims), extents.data()), "MPI_Dims_create");
  return {extents.begin(), extents.end()};
}

bool everyone(bool ok, MPI_Comm comm) {
  return allreduce(ok ? 1 : 0, reduce_op::min, comm) == 1;
}

std::vector<std::byte> allgather_bytes(const void* data, std::size_t bytes, MPI_Comm comm) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<std::byte> out(bytes * static_cast<std::size_t>(size));
  const int count = to_count(bytes);
  messages::collective("MPI_Iallgather", MPI_Iallgather, data, count, MPI_BYTE, out.data(), count,
                       MPI_BYTE, comm);
  return out;
}

void broadcast_bytes(void* data, std::size_t bytes, int root, MPI_Comm comm) {
  messages::collective("MPI_Ibcast", MPI_Ibcast, data, to_count(bytes), MPI_BYTE, root, comm);
}

}  // namespace pgas::runtime
