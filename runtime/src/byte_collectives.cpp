#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>

#include <cstdint>

namespace pgas::runtime {
namespace {

// The tag of reduce_buffers' point-to-point steps; they run on the caller's communicator
// between its collectives, so a fixed tag cannot meet another step's message.
constexpr int reduce_tag = 0x5e7;

int rank_in(MPI_Comm comm) {
  int r = 0;
  check(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

int size_of(MPI_Comm comm) {
  int p = 0;
  check(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  return p;
}

// reduce_buffers' steps wait as every pgas wait does, making progress: an image that waits in
// a blocking MPI_Send or MPI_Probe serves no call, so a partner that waits for one of its calls
// before it joins the reduction would wait for ever.
void send_buffer(const byte_buffer& bytes, int destination, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(bytes.data(), to_count(bytes.size()), MPI_BYTE, destination, reduce_tag, comm,
                  &request),
        "MPI_Isend");
  messages::wait(request, "MPI_Isend");
}

byte_buffer receive_buffer(int source, MPI_Comm comm) {
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  messages::progress_until([&] {
    int arrived = 0;
    check(MPI_Improbe(source, reduce_tag, comm, &arrived, &message, &status), "MPI_Improbe");
    return arrived != 0;
  });
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  byte_buffer bytes(static_cast<std::size_t>(count));
  check(MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
  return bytes;
}

}  // namespace

std::optional<std::string> first_failure(const std::optional<std::string>& mine, MPI_Comm comm) {
  const int p = size_of(comm);
  const int candidate = mine ? rank_in(comm) : p;
  const int first = allreduce(candidate, reduce_op::min, comm);
  if (first == p)
    return std::nullopt;
  byte_buffer text;
  if (mine && first == candidate) {
    const auto* b = reinterpret_cast<const std::byte*>(mine->data());
    text.assign(b, b + mine->size());
  }
  broadcast_buffer(text, first, comm);
  return std::string(reinterpret_cast<const char*>(text.data()), text.size());
}

void broadcast_buffer(byte_buffer& bytes, int root, MPI_Comm comm) {
  std::uint64_t n = bytes.size();
  messages::collective("MPI_Ibcast", MPI_Ibcast, &n, 1, MPI_UINT64_T, root, comm);
  bytes.resize(static_cast<std::size_t>(n));
  messages::collective("MPI_Ibcast", MPI_Ibcast, bytes.data(), to_count(bytes.size()), MPI_BYTE,
                       root, comm);
}

std::vector<byte_buffer> gather_buffers(const byte_buffer& mine, int root, MPI_Comm comm) {
  const int p = size_of(comm);
  const bool at_root = rank_in(comm) == root;
  const int my_count = to_count(mine.size());
  std::vector<int> counts(at_root ? static_cast<std::size_t>(p) : 0);
  messages::collective("MPI_Igather", MPI_Igather, &my_count, 1, MPI_INT, counts.data(), 1, MPI_INT,
                       root, comm);
  std::vector<int> offsets(counts.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = to_count(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  byte_buffer all(total);
  messages::collective("MPI_Igatherv", MPI_Igatherv, mine.data(), my_count, MPI_BYTE, all.data(),
                       counts.data(), offsets.data(), MPI_BYTE, root, comm);
  std::vector<byte_buffer> out(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const auto first = all.begin() + offsets[r];
    out[r].assign(first, first + counts[r]);
  }
  return out;
}

byte_buffer reduce_buffers(
    byte_buffer mine,
    const std::function<byte_buffer(const byte_buffer&, const byte_buffer&)>& combine,
    int root,
    MPI_Comm comm) {
  const int p = size_of(comm);
  const int me = rank_in(comm);
  // Reduce to rank 0 over a binomial tree: at distance d, rank r (a multiple of 2d) takes the
  // partial result of ranks [r + d, r + 2d) and puts it on its right.
  for (int d = 1; d < p; d *= 2) {
    if (me % (2 * d) == d) {
      send_buffer(mine, me - d, comm);
      break;
    }
    if (me % (2 * d) == 0 && me + d < p)
      mine = combine(mine, receive_buffer(me + d, comm));
  }
  if (root < 0) {
    broadcast_buffer(mine, 0, comm);
    return mine;
  }
  if (root != 0) {
    if (me == 0)
      send_buffer(mine, root, comm);
    if (me == root)
      mine = receive_buffer(0, comm);
  }
  if (me != root)
    mine.clear();
  return mine;
}

}  // namespace pgas::runtime
