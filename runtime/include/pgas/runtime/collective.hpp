#pragma once
// The few collectives the containers need: agreement checks, reductions, gathers, broadcasts.

#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/record_reduction.hpp>
#include <pgas/runtime/request.hpp>
#include <pgas/runtime/rma.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace pgas::runtime {

/// Collective over comm: true on every process iff every process passed the same values
/// (which must have the same length everywhere). Lets all images throw together on mismatched
/// collective arguments instead of hanging.
[[nodiscard]] bool same_everywhere(std::span<const long long> values, MPI_Comm comm);
/// A grid of `dims` extents whose product is `images`, as square as possible, largest extent
/// first (MPI_Dims_create, MPI-4.1 §8.5.2). Local.
[[nodiscard]] std::vector<std::size_t> balanced_grid(std::size_t images, std::size_t dims);

/// Collective over comm: true on every process iff `ok` is true on every process.
[[nodiscard]] bool everyone(bool ok, MPI_Comm comm);

/// Collective over comm: every process's `bytes` bytes at `data`, concatenated in rank order.
[[nodiscard]] std::vector<std::byte> allgather_bytes(const void* data,
                                                     std::size_t bytes,
                                                     MPI_Comm comm);

/// Collective over comm: `bytes` bytes at `data` from `root` copied to every process.
void broadcast_bytes(void* data, std::size_t bytes, int root, MPI_Comm comm);

namespace detail {
// reduce_record's combiner of two T: `upper` becomes `lower` op `upper`, `op` a reduce_op.
template <accumulable T>
void combine_values(const std::byte* lower, std::byte* upper, void* op) {
  T a;
  T b;
  std::memcpy(&a, lower, sizeof(T));
  std::memcpy(&b, upper, sizeof(T));
  const T c = combine(*static_cast<const reduce_op*>(op), a, b);
  std::memcpy(upper, &c, sizeof(T));
}
}  // namespace detail

/// Collective over comm: op over every process's `value` (reduce_record: the same value on
/// every process).
template <accumulable T>
[[nodiscard]] T allreduce(const T& value, reduce_op op, MPI_Comm comm) {
  T out = value;
  reduce_record(std::as_writable_bytes(std::span(&out, 1)), detail::combine_values<T>, &op, comm);
  return out;
}

namespace detail {
// One process's value in an agreed reduction: its type's digest and the op travel with it.
struct typed_value {
  long long digest;
  int op;
  int mismatch;  // set once two processes' digests or ops differ
  alignas(16) std::byte value[32];
};
// Collective over comm: one reduction of `v` (reduce_record) that combines values with
// `combine` (combine_values of their type; its context the op) where every digest and op
// agree and marks a mismatch where not.
void reduce_typed(typed_value& v, record_combiner combine, MPI_Comm comm);
}  // namespace detail
/// Frees what the agreed reductions made (free_record_reduction); the environment calls it
/// before MPI is finalised. Local.
void free_agreed_reduction() noexcept;

/// Collective over comm: op over every process's `value`, or nothing on every process when
/// the processes passed values of different types (`digest`, detail/type_digest.hpp) or
/// different ops. One reduction, not a check and then the reduction: a scalar co_sum costs
/// what one reduce_record does.
template <accumulable T>
[[nodiscard]] std::optional<T> allreduce_agreed(const T& value,
                                                reduce_op op,
                                                long long digest,
                                                MPI_Comm comm) {
  static_assert(sizeof(T) <= sizeof(detail::typed_value::value),
                "a scalar reduction's value fits the agreed record");
  detail::typed_value v{digest, static_cast<int>(op), 0, {}};
  std::memcpy(v.value, &value, sizeof(T));
  detail::reduce_typed(v, detail::combine_values<T>, comm);
  if (v.mismatch != 0)
    return std::nullopt;
  T out;
  std::memcpy(&out, v.value, sizeof(T));
  return out;
}

/// What every process passes to a collective of a span, checked on all together.
struct span_arguments {
  long long digest;  // of the element type (detail/type_digest.hpp)
  long long length;  // elements
  long long image;   // the result's or the source's image, or -1 for none
  int op;            // a reduce_op, or broadcast_op
};
/// span_arguments::op of a broadcast from `image`.
inline constexpr int broadcast_op = -1;
/// What agree_on_span() found.
enum class agreement {
  mismatch,       // the processes passed different arguments
  no_such_image,  // they agree on an image that comm does not have
  combined,       // agreed, and the values were combined (or broadcast) in the same record
  checked_only,   // agreed; too many values for the record, so nothing was combined
};
namespace detail {
// The head of agree_on_span()'s record: the arguments and whether they differ; the values
// follow at agreed_header_bytes, and the record ends after them.
struct agreed_span_header {
  span_arguments arguments;
  int mismatch;  // set once two processes' arguments differ
  int source;    // a broadcast: whether the values are the source's
  int carried;   // whether the values travel in the record
};
inline constexpr std::size_t agreed_header_bytes = 48;
static_assert(sizeof(agreed_span_header) <= agreed_header_bytes);
// reduce_record of agree_on_span()'s record, of `bytes`.
void reduce_agreed_span(std::byte* record,
                        std::size_t bytes,
                        record_combiner element,
                        std::size_t element_bytes,
                        MPI_Comm comm);
}  // namespace detail
/// The bytes of values that travel with the check (agree_on_span).
inline constexpr std::size_t agreed_values_bytes =
    max_reduced_record_bytes - detail::agreed_header_bytes;

/// Collective over comm: checks that every process passed the same `arguments`, in one record
/// reduction (reduce_record); when they agree and `values` (`arguments.length` elements) fit
/// in agreed_values_bytes, combines them in the same record — element by element with
/// `element` (a combiner of one element, its context the op), or, for broadcast_op, as the
/// source image's — and writes the result into `values` where the collective leaves one (every
/// process, or only `arguments.image` for a reduction to one image). Empty `values`: the check
/// only. So a small co_sum or co_broadcast costs one scalar reduction, not a check and then an
/// MPI collective.
template <class T>
requires std::is_trivially_copyable_v<T>
[[nodiscard]] agreement agree_on_span(const span_arguments& arguments,
                                      std::span<T> values,
                                      record_combiner element,
                                      MPI_Comm comm) {
  const bool carried = !values.empty() && values.size_bytes() <= agreed_values_bytes;
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  detail::agreed_span_header head{arguments, 0, 0, carried ? 1 : 0};
  head.source = carried && arguments.op == broadcast_op && arguments.image == rank ? 1 : 0;
  alignas(16) std::array<std::byte, max_reduced_record_bytes> record;
  std::byte* const values_at = record.data() + detail::agreed_header_bytes;
  std::memcpy(record.data(), &head, sizeof head);
  if (carried)
    std::memcpy(values_at, values.data(), values.size_bytes());
  detail::reduce_agreed_span(record.data(),
                             detail::agreed_header_bytes + (carried ? values.size_bytes() : 0),
                             element, sizeof(T), comm);
  std::memcpy(&head, record.data(), sizeof head);
  if (head.mismatch != 0)
    return agreement::mismatch;
  if (arguments.image >= size)
    return agreement::no_such_image;
  if (!carried)
    return agreement::checked_only;
  if (arguments.op == broadcast_op || arguments.image < 0 || arguments.image == rank)
    std::memcpy(values.data(), values_at, values.size_bytes());
  return agreement::combined;
}

/// Collective over comm: op over every process's `values`, element by element, in place: on
/// every process (root < 0, MPI_Allreduce) or on `root` only (MPI_Reduce; the others' values
/// stay as they were).
template <accumulable T>
void reduce_in_place(std::span<T> values, reduce_op op, int root, MPI_Comm comm) {
  // MPI's reductions take predefined types only (MPI-4.1 §6.9.2): past an int count, in pieces.
  const std::size_t piece = largest_count();
  if (values.size() > piece) {
    for (std::size_t at = 0; at < values.size(); at += piece)
      reduce_in_place(values.subspan(at, std::min(piece, values.size() - at)), op, root, comm);
    return;
  }
  const MPI_Datatype type = layout_of<T>().type;
  const int count = static_cast<int>(values.size());
  if (root < 0) {
    messages::collective("MPI_Iallreduce", MPI_Iallreduce, MPI_IN_PLACE, values.data(), count, type,
                         to_mpi(op), comm);
    return;
  }
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (rank == root) {
    messages::collective("MPI_Ireduce", MPI_Ireduce, MPI_IN_PLACE, values.data(), count, type,
                         to_mpi(op), root, comm);
  } else {
    messages::collective("MPI_Ireduce", MPI_Ireduce, values.data(), nullptr, count, type,
                         to_mpi(op), root, comm);
  }
}

/// Starts the all-process form of reduce_in_place (MPI_Iallreduce); `values` must stay until
/// the request completes (keep_or_complete may have completed it already).
template <accumulable T>
[[nodiscard]] request start_reduce_in_place(std::span<T> values, reduce_op op, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), to_count(values.size()), layout_of<T>().type,
                       to_mpi(op), comm, &r),
        "MPI_Iallreduce");
  return keep_or_complete(r, "MPI_Iallreduce");
}

/// Collective over comm: root's `values` copied into every process's (MPI_Bcast, or started
/// with MPI_Ibcast; then `values` must stay until the request completes, which
/// keep_or_complete may have done already).
template <transferable T>
void broadcast(std::span<T> values, int root, MPI_Comm comm) {
  const element_layout l = layout_of<T>();
  const mpi_count c(l.type, values.size() * static_cast<std::size_t>(l.per_element));
  messages::collective("MPI_Ibcast", MPI_Ibcast, values.data(), c.count(), c.type(), root, comm);
}
template <transferable T>
[[nodiscard]] request start_broadcast(std::span<T> values, int root, MPI_Comm comm) {
  const element_layout l = layout_of<T>();
  MPI_Request r = MPI_REQUEST_NULL;
  const mpi_count c(l.type, values.size() * static_cast<std::size_t>(l.per_element));
  check(MPI_Ibcast(values.data(), c.count(), c.type(), root, comm, &r), "MPI_Ibcast");
  return keep_or_complete(r, "MPI_Ibcast");
}

/// Collective over comm: op over the values of all processes of lower rank (MPI_Exscan); the
/// result on rank 0 is `identity`.
template <accumulable T>
[[nodiscard]] T exclusive_prefix(const T& value, reduce_op op, const T& identity, MPI_Comm comm) {
  T out = identity;
  messages::collective("MPI_Iexscan", MPI_Iexscan, &value, &out, 1, layout_of<T>().type, to_mpi(op),
                       comm);
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank == 0 ? identity : out;
}

}  // namespace pgas::runtime

namespace pgas::runtime {

/// The processes of comm, once `counts` (one per process) is checked to match. Local.
[[nodiscard]] inline std::size_t process_count_for_exchange(MPI_Comm comm, std::size_t counts) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (counts != static_cast<std::size_t>(size))
    throw usage_error("exchange needs one count per process");
  return static_cast<std::size_t>(size);
}

/// True when buffers of `bytes` bytes fit an exchange of runs, whose byte displacements
/// MPI_Ialltoallw takes in ints. Local.
[[nodiscard]] inline bool exchange_fits(std::size_t bytes) noexcept {
  return bytes <= static_cast<std::size_t>(std::numeric_limits<int>::max());
}

/// What one process sends to or receives from one other in an exchange of runs: `count` of
/// `type` from `byte_offset` bytes into the buffer (count 0: nothing).
struct exchange_run {
  std::size_t byte_offset = 0;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
};

/// What an exchange of runs keeps until it completes: MPI reads a non-blocking collective's
/// arrays until then (MPI-4.1 §6.12). `done` is the last member, so that destruction waits for
/// the exchange before the arrays go.
struct runs_exchange {
  std::vector<int> send_counts, send_displs, receive_counts, receive_displs;
  std::vector<MPI_Datatype> send_types, receive_types;
  request done;
};

/// Collective over comm: starts sending sends[t] from `send_base` to process t and receiving
/// receives[t] from t into `receive_base`, where each side knows both (no exchange of counts
/// first; a datatype per run, so a strided block goes without packing it here:
/// MPI_Ialltoallw). The buffers and the runs' types must stay until `kept.done` completes.
/// Throws usage_error for an offset past exchange_fits.
inline void start_runs_exchange(const void* send_base,
                                std::span<const exchange_run> sends,
                                void* receive_base,
                                std::span<const exchange_run> receives,
                                MPI_Comm comm,
                                runs_exchange& kept) {
  const std::size_t p = process_count_for_exchange(comm, sends.size());
  if (receives.size() != p)
    throw usage_error("exchange needs one run per process");
  const auto lay_out = [p](std::span<const exchange_run> runs, std::vector<int>& counts,
                           std::vector<int>& displs, std::vector<MPI_Datatype>& types) {
    counts.resize(p);
    displs.resize(p);
    types.resize(p);
    for (std::size_t t = 0; t < p; ++t) {
      counts[t] = runs[t].count;
      displs[t] = to_count(runs[t].byte_offset);
      types[t] = runs[t].type;
    }
  };
  lay_out(sends, kept.send_counts, kept.send_displs, kept.send_types);
  lay_out(receives, kept.receive_counts, kept.receive_displs, kept.receive_types);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ialltoallw(send_base, kept.send_counts.data(), kept.send_displs.data(),
                       kept.send_types.data(), receive_base, kept.receive_counts.data(),
                       kept.receive_displs.data(), kept.receive_types.data(), comm, &r),
        "MPI_Ialltoallw");
  kept.done = keep_or_complete(r, "MPI_Ialltoallw");
}

/// Collective over comm: sends send[sum(counts[0..t)) .. + counts[t]) to process t and returns
/// what every process sent here, in rank order; `received_counts` (if given) gets how many came
/// from each (MPI_Alltoall of the counts, then MPI_Alltoallv). With a scratch_allocator the
/// result is kept scratch and its elements are not cleared before they arrive.
template <transferable T, class Allocator = std::allocator<T>>
[[nodiscard]] std::vector<T, Allocator> exchange(
    std::span<const T> send,
    std::span<const std::size_t> counts,
    MPI_Comm comm,
    std::vector<std::size_t>* received_counts = nullptr) {
  const std::size_t p = process_count_for_exchange(comm, counts.size());
  const element_layout l = layout_of<T>();
  const auto per = static_cast<std::size_t>(l.per_element);
  std::vector<int> send_counts(p), send_displs(p), recv_counts(p), recv_displs(p);
  std::size_t offset = 0;
  for (std::size_t t = 0; t < p; ++t) {
    send_counts[t] = to_count(counts[t] * per);
    send_displs[t] = to_count(offset * per);
    offset += counts[t];
  }
  messages::collective("MPI_Ialltoall", MPI_Ialltoall, send_counts.data(), 1, MPI_INT,
                       recv_counts.data(), 1, MPI_INT, comm);
  std::size_t total = 0;
  for (std::size_t t = 0; t < p; ++t) {
    recv_displs[t] = to_count(total);
    total += static_cast<std::size_t>(recv_counts[t]);
  }
  std::vector<T, Allocator> out(total / per);
  messages::collective("MPI_Ialltoallv", MPI_Ialltoallv, send.data(), send_counts.data(),
                       send_displs.data(), l.type, out.data(), recv_counts.data(),
                       recv_displs.data(), l.type, comm);
  if (received_counts != nullptr) {
    received_counts->resize(p);
    for (std::size_t t = 0; t < p; ++t) {
      (*received_counts)[t] = static_cast<std::size_t>(recv_counts[t]) / per;
    }
  }
  return out;
}

/// Collective over comm: every process's `mine`, concatenated in rank order, on every process;
/// `counts` (if given) gets how many each contributed (MPI_Allgather, then MPI_Allgatherv).
template <transferable T>
[[nodiscard]] std::vector<T> allgatherv(std::span<const T> mine,
                                        MPI_Comm comm,
                                        std::vector<std::size_t>* counts = nullptr) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const auto p = static_cast<std::size_t>(size);
  const element_layout l = layout_of<T>();
  const int my_count = to_count(mine.size() * static_cast<std::size_t>(l.per_element));
  std::vector<int> all_counts(p), displs(p);
  messages::collective("MPI_Iallgather", MPI_Iallgather, &my_count, 1, MPI_INT, all_counts.data(),
                       1, MPI_INT, comm);
  std::size_t total = 0;
  for (std::size_t t = 0; t < p; ++t) {
    displs[t] = to_count(total);
    total += static_cast<std::size_t>(all_counts[t]);
  }
  std::vector<T> out(total / static_cast<std::size_t>(l.per_element));
  messages::collective("MPI_Iallgatherv", MPI_Iallgatherv, mine.data(), my_count, l.type,
                       out.data(), all_counts.data(), displs.data(), l.type, comm);
  if (counts != nullptr) {
    counts->resize(p);
    for (std::size_t t = 0; t < p; ++t) {
      (*counts)[t] =
          static_cast<std::size_t>(all_counts[t]) / static_cast<std::size_t>(l.per_element);
    }
  }
  return out;
}

}  // namespace pgas::runtime
