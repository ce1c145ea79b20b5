// The bale histo kernel: T counters per image (cyclic over images), each image adds 1 at N
// random global indices. pgas::histogram beside one MPI_Accumulate per update (the naive RMA
// code) and bucket-by-owner + MPI_Alltoallv + local increments (the usual hand-written code).
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <pgas_programs/bale_updates.hpp>
#include <random>
#include <vector>

namespace {

// Image img's updates: the same on every image that regenerates them.

// What this image's counters must hold after every image's first `n` updates were applied
// `times` times, recomputed from every image's stream.
std::vector<long> expected_counts(std::size_t n, std::size_t table, long times) {
  const std::size_t p = pgas::num_images();
  const std::size_t me = pgas::this_image();
  std::vector<long> want(table / p, 0);
  for (std::size_t img = 0; img < p; ++img) {
    for (std::size_t k : bale::updates_of(img, n, table)) {
      if (k % p == me)
        want[k / p] += times;
    }
  }
  return want;
}

bool all_verified(bool mine) {
  int ok = mine ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return ok == 1;
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(
      argc, argv, "bale histo: pgas::histogram vs hand-written MPI",
      {{"counters", "1048576"}, {"updates", "10000000"}, {"per_update_fraction", "10"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const std::size_t p = pgas::num_images();
  const std::size_t me = pgas::this_image();
  const std::size_t per_image = opt.size("counters");
  const std::size_t table = per_image * p;
  const std::size_t n = opt.size("updates");
  // The per-update baseline is ~100x slower; it runs a fraction of the updates (rates compare).
  const std::size_t n_slow = std::max<std::size_t>(1, n / opt.size("per_update_fraction"));
  const int reps = static_cast<int>(opt.get("reps"));
  const auto mine = bale::updates_of(me, n, table);
  bench::progress("histogram: computing the expected counts");
  const auto want = expected_counts(n, table, reps);
  const auto want_slow = expected_counts(n_slow, table, reps);
  const std::string size =
      "counters_per_image=" + std::to_string(per_image) + ",updates_per_image=" + std::to_string(n);
  std::vector<bench::result> results;

  {  // pgas
    bench::progress("histogram pgas");
    pgas::array<long, pgas::cyclic> bins(table);
    const double t = bench::median_seconds(reps, [&] { pgas::histogram(bins, mine); });
    const bool ok = all_verified(std::equal(want.begin(), want.end(), bins.local().begin()));
    results.push_back(bench::report("histogram", "pgas", size, t, static_cast<double>(n) / t,
                                    "updates/s/image", ok));
  }
  {  // one MPI_Accumulate per update, in one lock_all epoch
    bench::progress("histogram mpi_accumulate_per_update");
    long* base = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>(per_image * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    std::fill_n(base, per_image, 0L);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    const long one = 1;
    const double t = bench::median_seconds(reps, [&] {
      for (std::size_t u = 0; u < n_slow; ++u) {
        const std::size_t k = mine[u];
        MPI_Accumulate(&one, 1, MPI_LONG, static_cast<int>(k % p), static_cast<MPI_Aint>(k / p), 1,
                       MPI_LONG, MPI_SUM, win);
        if ((u + 1) % bench::most_operations_unflushed() == 0)
          MPI_Win_flush_all(win);  // as its MPI needs (harness.hpp)
      }
      MPI_Win_flush_all(win);
      MPI_Barrier(MPI_COMM_WORLD);
    });
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    const bool ok = all_verified(std::equal(want_slow.begin(), want_slow.end(), base));
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    results.push_back(bench::report("histogram", "mpi_accumulate_per_update",
                                    "counters_per_image=" + std::to_string(per_image) +
                                        ",updates_per_image=" + std::to_string(n_slow),
                                    t, static_cast<double>(n_slow) / t, "updates/s/image", ok));
  }
  {  // bucket by owner, one MPI_Alltoallv, apply locally
    bench::progress("histogram mpi_alltoallv_buckets");
    std::vector<long> counters(per_image, 0);
    std::vector<int> send_counts(p), send_displs(p), recv_counts(p), recv_displs(p);
    std::vector<std::size_t> send(n);
    std::vector<std::size_t> recv;
    const double t = bench::median_seconds(reps, [&] {
      std::fill(send_counts.begin(), send_counts.end(), 0);
      for (std::size_t k : mine) ++send_counts[k % p];
      int off = 0;
      for (std::size_t t2 = 0; t2 < p; ++t2) {
        send_displs[t2] = off;
        off += send_counts[t2];
      }
      std::vector<int> fill = send_displs;
      for (std::size_t k : mine) send[static_cast<std::size_t>(fill[k % p]++)] = k / p;
      MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
      int total = 0;
      for (std::size_t t2 = 0; t2 < p; ++t2) {
        recv_displs[t2] = total;
        total += recv_counts[t2];
      }
      recv.resize(static_cast<std::size_t>(total));
      MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_UNSIGNED_LONG,
                    recv.data(), recv_counts.data(), recv_displs.data(), MPI_UNSIGNED_LONG,
                    MPI_COMM_WORLD);
      for (std::size_t off2 : recv) ++counters[off2];
      MPI_Barrier(MPI_COMM_WORLD);
    });
    const bool ok = all_verified(counters == want);
    results.push_back(bench::report("histogram", "mpi_alltoallv_buckets", size, t,
                                    static_cast<double>(n) / t, "updates/s/image", ok));
  }
  return bench::summarize(results, "pgas");
}
