#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/messages.hpp>

#include <algorithm>

namespace pgas::runtime {

namespace {
// The process's own combiner for the agreed reduction in progress (one at a time: a handler
// never starts a collective), and the datatype and op of its record, made once.
detail::value_combiner current_combiner = nullptr;
MPI_Datatype typed_value_type = MPI_DATATYPE_NULL;
MPI_Op typed_value_op = MPI_OP_NULL;

void combine_typed(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* from = static_cast<const detail::typed_value*>(in);
  auto* into = static_cast<detail::typed_value*>(inout);
  for (int k = 0; k < *len; ++k) {
    if (from[k].mismatch != 0 || into[k].mismatch != 0 || from[k].digest != into[k].digest ||
        from[k].op != into[k].op) {
      into[k].mismatch = 1;
    } else {
      current_combiner(into[k].value, from[k].value, static_cast<reduce_op>(into[k].op));
    }
  }
}
}  // namespace

void detail::reduce_typed(typed_value& v, value_combiner combine, MPI_Comm comm) {
  if (typed_value_type == MPI_DATATYPE_NULL) {
    check(MPI_Type_contiguous(static_cast<int>(sizeof(typed_value)), MPI_BYTE, &typed_value_type),
          "MPI_Type_contiguous");
    check(MPI_Type_commit(&typed_value_type), "MPI_Type_commit");
    check(MPI_Op_create(combine_typed, 1, &typed_value_op), "MPI_Op_create");
  }
  current_combiner = combine;
  typed_value out{};
  messages::collective("MPI_Iallreduce", MPI_Iallreduce, &v, &out, 1, typed_value_type,
                       typed_value_op, comm);
  v = out;
}

void free_agreed_reduction() noexcept {
  if (typed_value_type != MPI_DATATYPE_NULL) {
    MPI_Type_free(&typed_value_type);
    MPI_Op_free(&typed_value_op);
  }
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
  const int mine = ok ? 1 : 0;
  int all = 0;
  messages::collective("MPI_Iallreduce", MPI_Iallreduce, &mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
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
