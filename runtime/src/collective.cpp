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

// What reduce_agreed_span's combiner needs besides the records.
struct span_combiner {
  record_combiner element;
  std::size_t element_bytes;
};

// reduce_record's combiner for agree_on_span: `context` is the span_combiner. Each record's
// header says how long it is; the values are read only where both agree.
void combine_agreed_span(const std::byte* lower, std::byte* upper, void* context) {
  const auto& c = *static_cast<const span_combiner*>(context);
  detail::agreed_span_header from;
  detail::agreed_span_header into;
  std::memcpy(&from, lower, sizeof from);
  std::memcpy(&into, upper, sizeof into);
  const span_arguments& a = from.arguments;
  const span_arguments& b = into.arguments;
  const std::byte* const from_values = lower + detail::agreed_header_bytes;
  std::byte* const into_values = upper + detail::agreed_header_bytes;
  if (from.mismatch != 0 || into.mismatch != 0 || a.digest != b.digest || a.length != b.length ||
      a.image != b.image || a.op != b.op || from.carried != into.carried) {
    into.mismatch = 1;
  } else if (into.carried != 0 && a.op == broadcast_op) {
    if (from.source != 0) {
      std::memcpy(into_values, from_values, static_cast<std::size_t>(a.length) * c.element_bytes);
      into.source = 1;
    }
  } else if (into.carried != 0) {
    auto op = static_cast<reduce_op>(a.op);
    for (long long k = 0; k < a.length; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * c.element_bytes;
      c.element(from_values + at, into_values + at, &op);
    }
  }
  std::memcpy(upper, &into, sizeof into);
}

// reduce_record's combiner for same_everywhere: the least of each of `*context` long longs.
void least_of_each(const std::byte* lower, std::byte* upper, void* context) {
  const std::size_t n = *static_cast<const std::size_t*>(context);
  reduce_op least = reduce_op::min;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t at = k * sizeof(long long);
    detail::combine_values<long long>(lower + at, upper + at, &least);
  }
}
}  // namespace

void detail::reduce_typed(typed_value& v, record_combiner combine, MPI_Comm comm) {
  reduce_record(std::as_writable_bytes(std::span(&v, 1)), combine_typed, &combine, comm);
}

void detail::reduce_agreed_span(std::byte* record,
                                std::size_t bytes,
                                record_combiner element,
                                std::size_t element_bytes,
                                MPI_Comm comm) {
  span_combiner c{element, element_bytes};
  reduce_record(std::span(record, bytes), combine_agreed_span, &c, comm);
}

void free_agreed_reduction() noexcept {
  free_record_reduction();
}

bool same_everywhere(std::span<const long long> values, MPI_Comm comm) {
  // One allreduce of (v, ~v) with MPI_MIN gives min and max of every entry at once (~v, not -v,
  // which overflows for the least long long: a type's digest may be any value).
  std::vector<long long> both(2 * values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    both[2 * k] = values[k];
    both[2 * k + 1] = ~values[k];
  }
  // A few values (every check of a container's or a collective's arguments) go as one record,
  // at the cost of a scalar reduction; more as a non-blocking allreduce.
  std::size_t count = both.size();
  if (count * sizeof(long long) <= max_reduced_record_bytes) {
    reduce_record(std::as_writable_bytes(std::span(both)), least_of_each, &count, comm);
  } else {
    messages::collective("MPI_Iallreduce", MPI_Iallreduce, MPI_IN_PLACE, both.data(),
                         to_count(count), MPI_LONG_LONG, MPI_MIN, comm);
  }
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (both[2 * k] != ~both[2 * k + 1])
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
