#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/record_reduction.hpp>

#include <array>
#include <cstring>
#include <memory>
#include <string>

namespace pgas::runtime {

namespace {

int duplicate_key = MPI_KEYVAL_INVALID;

// The attribute's delete callback: comm goes, and its duplicate with it.
int free_duplicate(MPI_Comm, int, void* attribute, void*) {
  auto* duplicate = static_cast<MPI_Comm*>(attribute);
  const int rc = MPI_Comm_free(duplicate);
  delete duplicate;
  return rc;
}

// comm's duplicate for the reductions' messages, made (without blocking: images that are not
// here yet may wait on this one's progress) at the first reduction over comm.
MPI_Comm reduction_comm(MPI_Comm comm) {
  if (duplicate_key == MPI_KEYVAL_INVALID) {
    check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_duplicate, &duplicate_key, nullptr),
          "MPI_Comm_create_keyval");
  }
  void* attribute = nullptr;
  int found = 0;
  check(MPI_Comm_get_attr(comm, duplicate_key, &attribute, &found), "MPI_Comm_get_attr");
  if (found != 0)
    return *static_cast<MPI_Comm*>(attribute);
  auto duplicate = std::make_unique<MPI_Comm>(MPI_COMM_NULL);
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Comm_idup(comm, duplicate.get(), &request), "MPI_Comm_idup");
  messages::wait(request, "MPI_Comm_idup");
  check(MPI_Comm_set_attr(comm, duplicate_key, duplicate.get()), "MPI_Comm_set_attr");
  return *duplicate.release();
}

// Sends `bytes` of `out` to `to` and receives into `in` (max_reduced_record_bytes of room)
// from `from` (either skipped when negative), making progress until both are done. Each pair
// of processes exchanges at most one record each way per reduction, and MPI keeps one sender's
// messages in order (MPI-4.1 §3.5), so one tag serves. The receive takes a record of any size
// up to the largest (a shorter message fills the start of the room, MPI-4.1 §3.2.4): records
// differ in size only between processes that passed different arguments, which the combiner
// finds in the records' headers, and that must end in its verdict, not in MPI_ERR_TRUNCATE.
void transfer(const std::byte* out, int to, std::byte* in, int from, int bytes, MPI_Comm comm) {
  constexpr int tag = 0;
  std::array<MPI_Request, 2> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (from >= 0) {
    // What a shorter record leaves of the room a combiner may read (the header it compares)
    // reads as zeros, not as what the last reduction left there.
    std::memset(in, 0, static_cast<std::size_t>(bytes));
    check(MPI_Irecv(in, static_cast<int>(max_reduced_record_bytes), MPI_BYTE, from, tag, comm,
                    &requests[0]),
          "MPI_Irecv");
  }
  if (to >= 0)
    check(MPI_Isend(out, bytes, MPI_BYTE, to, tag, comm, &requests[1]), "MPI_Isend");
  messages::wait_all(requests);
}

}  // namespace

void reduce_record(std::span<std::byte> record,
                   record_combiner combine,
                   void* context,
                   MPI_Comm comm) {
  if (record.size() > max_reduced_record_bytes) {
    throw usage_error("a reduced record of " + std::to_string(record.size()) + " bytes; at most " +
                      std::to_string(max_reduced_record_bytes));
  }
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (size == 1)
    return;
  const MPI_Comm c = reduction_comm(comm);
  const int bytes = static_cast<int>(record.size());
  // Cleared by each receive up to this process's record size, not whole (4 KiB of stores).
  std::array<std::byte, max_reduced_record_bytes> partner_record;
  std::byte* const theirs = partner_record.data();
  // Recursive doubling over the largest power of two of processes; each of the first 2 *
  // `extra` even ranks first hands its record to the odd rank after it, which stands for both
  // and hands it the result at the end. The folded ranks keep the processes' order.
  int folded_size = 1;
  while (folded_size * 2 <= size) folded_size *= 2;
  const int extra = size - folded_size;
  int folded = rank - extra;
  if (rank < 2 * extra) {
    if (rank % 2 == 0) {
      transfer(record.data(), rank + 1, nullptr, -1, bytes, c);
      transfer(nullptr, -1, theirs, rank + 1, bytes, c);
      std::memcpy(record.data(), theirs, record.size());
      return;
    }
    transfer(nullptr, -1, theirs, rank - 1, bytes, c);
    combine(theirs, record.data(), context);
    folded = rank / 2;
  }
  for (int distance = 1; distance < folded_size; distance *= 2) {
    const int partner_folded = folded ^ distance;
    const int partner = partner_folded < extra ? 2 * partner_folded + 1 : partner_folded + extra;
    transfer(record.data(), partner, theirs, partner, bytes, c);
    if (partner < rank) {
      combine(theirs, record.data(), context);
    } else {
      combine(record.data(), theirs, context);
      std::memcpy(record.data(), theirs, record.size());
    }
  }
  if (rank < 2 * extra)
    transfer(record.data(), rank - 1, nullptr, -1, bytes, c);
}

void free_record_reduction() noexcept {
  if (duplicate_key != MPI_KEYVAL_INVALID)
    MPI_Comm_free_keyval(&duplicate_key);
}

}  // namespace pgas::runtime
