// Remote calls through the owner-side message engine, beside hand-written MPI:
// - rpc_ff_stream: every image sends --messages calls with 16 bytes of arguments (an index and
//   a value) to pseudo-random images, each adding the value into a counter table where it
//   runs; done at a sync point. The hand-written version packs the same 16 bytes per call into
//   per-destination buffers of the engine's buffer size, sends each full buffer with
//   MPI_Isend, receives into posted MPI_Irecv buffers and applies what arrives while it sends,
//   and ends by counting (an all-to-all of how many buffers each image sent to each).
// - rpc_round_trip: image 0 calls image 1 and waits for the result, --round-trips times,
//   beside an MPI_Send/MPI_Recv ping-pong of the same 16 bytes.
// Every variant verifies: each image's table sum equals the sum of the values every image sent
// it (reduce-scattered independently of the path under test), and each round trip's result.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <cstdint>
#include <deque>
#include <numeric>
#include <vector>

namespace {

constexpr std::size_t table_size = 1 << 16;

struct stream {
  explicit stream(std::size_t seed) : x{0x9e3779b97f4a7c15ULL * (seed + 1)} {}
  std::uint64_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
  std::uint64_t x;
};

// The counters every call adds into, one table per image.
std::vector<std::uint64_t> table(table_size);

void add_into_table(std::uint64_t index, std::uint64_t value) {
  table[index & (table_size - 1)] += value;
}

// What each image sends each image: the sum of the values, from the same stream as the run.
std::uint64_t expected_sum_here(std::size_t messages) {
  const std::size_t p = pgas::num_images();
  std::vector<std::uint64_t> sums(p, 0);
  stream s(pgas::this_image());
  for (std::size_t k = 0; k < messages; ++k) {
    const std::uint64_t r = s.next();
    sums[r % p] += r >> 8;
  }
  std::vector<std::uint64_t> mine(1);
  std::vector<int> ones(p, 1);
  MPI_Reduce_scatter(sums.data(), mine.data(), ones.data(), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return mine[0];
}

bool table_holds(std::uint64_t expected) {
  const std::uint64_t sum = std::accumulate(table.begin(), table.end(), std::uint64_t{0});
  int ok = sum == expected ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return ok == 1;
}

void pgas_stream(std::size_t messages) {
  const std::size_t p = pgas::num_images();
  stream s(pgas::this_image());
  for (std::size_t k = 0; k < messages; ++k) {
    const std::uint64_t r = s.next();
    pgas::rpc_ff(
        r % p, [](std::uint64_t index, std::uint64_t value) { add_into_table(index, value); }, r,
        r >> 8);
  }
  pgas::sync_all();
}

// The hand-written aggregated stream.
class mpi_stream {
 public:
  explicit mpi_stream(std::size_t buffer_bytes)
      : p_{pgas::num_images()},
        per_buffer_{buffer_bytes / (2 * sizeof(std::uint64_t))},
        out_(p_),
        flying_(p_),
        in_flight_(p_, MPI_REQUEST_NULL),
        sent_(p_, 0),
        receives_(4) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    for (auto& b : out_) b.reserve(2 * per_buffer_);
    for (auto& r : receives_) r.data.resize(2 * per_buffer_);
  }
  mpi_stream(const mpi_stream&) = delete;
  mpi_stream& operator=(const mpi_stream&) = delete;
  ~mpi_stream() { MPI_Comm_free(&comm_); }

  void run(std::size_t messages) {
    received_ = 0;
    std::fill(sent_.begin(), sent_.end(), 0);
    for (std::size_t k = 0; k < receives_.size(); ++k) post(k);
    stream s(pgas::this_image());
    for (std::size_t k = 0; k < messages; ++k) {
      const std::uint64_t r = s.next();
      auto& b = out_[r % p_];
      b.push_back(r);
      b.push_back(r >> 8);
      if (b.size() == 2 * per_buffer_)
        send(r % p_);
      if ((k & 63) == 0)
        receive_what_came();
    }
    for (std::size_t d = 0; d < p_; ++d) send(d);
    // Termination by counting: how many buffers each image sent here.
    std::vector<long> coming(p_);
    MPI_Request counts = MPI_REQUEST_NULL;
    MPI_Ialltoall(sent_.data(), 1, MPI_LONG, coming.data(), 1, MPI_LONG, comm_, &counts);
    int counted = 0;
    while (counted == 0) {
      receive_what_came();
      MPI_Test(&counts, &counted, MPI_STATUS_IGNORE);
    }
    const long expected = std::accumulate(coming.begin(), coming.end(), 0L);
    while (received_ < expected) receive_what_came();
    complete_sends();
    for (auto& r : receives_) {
      MPI_Cancel(&r.request);
      MPI_Wait(&r.request, MPI_STATUS_IGNORE);
    }
    posted_.clear();
  }

 private:
  struct receive {
    std::vector<std::uint64_t> data;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  void post(std::size_t k) {
    MPI_Irecv(receives_[k].data.data(), static_cast<int>(receives_[k].data.size()), MPI_UINT64_T,
              MPI_ANY_SOURCE, 0, comm_, &receives_[k].request);
    posted_.push_back(k);
  }
  void send(std::size_t d) {
    auto& b = out_[d];
    if (b.empty())
      return;
    // At most one send in flight per destination (the engine's budget: a buffer being filled
    // and one on its way per destination).
    int done = 0;
    while (done == 0) {
      MPI_Test(&in_flight_[d], &done, MPI_STATUS_IGNORE);
      if (done == 0)
        receive_what_came();
    }
    flying_[d].swap(b);
    b.clear();
    MPI_Isend(flying_[d].data(), static_cast<int>(flying_[d].size()), MPI_UINT64_T,
              static_cast<int>(d), 0, comm_, &in_flight_[d]);
    ++sent_[d];
  }
  void complete_sends() {
    MPI_Waitall(static_cast<int>(in_flight_.size()), in_flight_.data(), MPI_STATUSES_IGNORE);
  }
  void receive_what_came() {
    for (;;) {
      const std::size_t k = posted_.front();
      int done = 0;
      MPI_Status st;
      MPI_Test(&receives_[k].request, &done, &st);
      if (done == 0)
        return;
      posted_.pop_front();
      int n = 0;
      MPI_Get_count(&st, MPI_UINT64_T, &n);
      const std::uint64_t* d = receives_[k].data.data();
      for (int j = 0; j < n; j += 2) add_into_table(d[j], d[j + 1]);
      ++received_;
      post(k);
    }
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t p_;
  std::size_t per_buffer_;
  std::vector<std::vector<std::uint64_t>> out_;
  std::vector<std::vector<std::uint64_t>> flying_;
  std::vector<MPI_Request> in_flight_;
  std::vector<long> sent_;
  std::vector<receive> receives_;
  std::deque<std::size_t> posted_;
  long received_ = 0;
};

std::uint64_t respond(std::uint64_t a, std::uint64_t b) {
  return a + b;
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "remote calls: pgas::rpc_ff / rpc vs hand-written MPI",
                           {{"messages", "10000000"}, {"round-trips", "20000"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const auto reps = static_cast<int>(opt.get("reps"));
  const std::size_t messages = opt.size("messages");
  const std::size_t trips = opt.size("round-trips");
  const std::size_t p = pgas::num_images();
  const std::size_t me = pgas::this_image();
  std::vector<bench::result> results;

  bench::progress("rpc_ff stream");
  const std::uint64_t expected = expected_sum_here(messages);
  // The engine's buffer size is the hand-written version's.
  mpi_stream hand(pgas::runtime::messages::buffer_bytes());
  bool pgas_ok = true;
  bool mpi_ok = true;
  const auto stream_times =
      bench::interleaved_medians(reps, {[&] {
                                          std::fill(table.begin(), table.end(), 0);
                                          pgas_stream(messages);
                                          pgas_ok = pgas_ok && table_holds(expected);
                                        },
                                        [&] {
                                          std::fill(table.begin(), table.end(), 0);
                                          hand.run(messages);
                                          mpi_ok = mpi_ok && table_holds(expected);
                                        }});
  const std::string size = std::to_string(messages) + "x16B";
  const double total = static_cast<double>(messages * p);
  results.push_back(bench::report("rpc_ff_stream", "pgas", size, stream_times[0],
                                  total / stream_times[0] / 1e6, "Mcalls/s", pgas_ok));
  results.push_back(bench::report("rpc_ff_stream", "mpi_aggregated_isend", size, stream_times[1],
                                  total / stream_times[1] / 1e6, "Mcalls/s", mpi_ok));

  if (p >= 2) {
    bench::progress("rpc round trip");
    bool rpc_ok = true;
    bool pingpong_ok = true;
    const auto trip_times = bench::interleaved_medians(
        reps, {[&] {
                 if (me == 0) {
                   for (std::size_t k = 0; k < trips; ++k) {
                     const std::uint64_t got =
                         pgas::rpc(1, respond, std::uint64_t{k}, std::uint64_t{7}).get();
                     rpc_ok = rpc_ok && got == k + 7;
                   }
                 }
                 pgas::sync_all();  // image 1 serves the calls while it waits here
               },
               [&] {
                 std::uint64_t msg[2] = {0, 7};
                 if (me == 0) {
                   for (std::size_t k = 0; k < trips; ++k) {
                     msg[0] = k;
                     MPI_Send(msg, 2, MPI_UINT64_T, 1, 0, MPI_COMM_WORLD);
                     std::uint64_t got = 0;
                     MPI_Recv(&got, 1, MPI_UINT64_T, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                     pingpong_ok = pingpong_ok && got == k + 7;
                   }
                 } else if (me == 1) {
                   for (std::size_t k = 0; k < trips; ++k) {
                     MPI_Recv(msg, 2, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                     const std::uint64_t sum = msg[0] + msg[1];
                     MPI_Send(&sum, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
                   }
                 }
               }});
    int oks[2] = {rpc_ok ? 1 : 0, pingpong_ok ? 1 : 0};
    MPI_Allreduce(MPI_IN_PLACE, oks, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const auto per_second = [&](double s) { return static_cast<double>(trips) / s / 1e3; };
    results.push_back(bench::report("rpc_round_trip", "pgas", "16B", trip_times[0],
                                    per_second(trip_times[0]), "Ktrips/s", oks[0] == 1));
    results.push_back(bench::report("rpc_round_trip", "mpi_send_recv_ping_pong", "16B",
                                    trip_times[1], per_second(trip_times[1]), "Ktrips/s",
                                    oks[1] == 1));
  }
  return bench::summarize(results, "pgas");
}
