// HPCC RandomAccess: 2^k 64-bit words, 4 x 2^k XOR updates from the HPCC stream. pgas
// (pgas::accumulate_at: combined per owner, one reduce-scatter) beside the hand-written
// bucketed MPI version (bucket (index, value) pairs by owner, MPI_Alltoallv, XOR locally).
// Both verify by replaying the stream (at most 1 % of the table wrong).
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <cstdint>
#include <vector>

#include <pgas_programs/hpcc_random.hpp>
#include "harness.hpp"

namespace {

struct stream {
  std::vector<std::size_t> index;
  std::vector<std::uint64_t> value;
};

stream my_updates(std::size_t table, std::size_t per_image) {
  stream s;
  std::uint64_t ran = hpcc::starts(static_cast<std::int64_t>(per_image * pgas::this_image()));
  for (std::size_t u = 0; u < per_image; ++u) {
    ran = hpcc::next(ran);
    s.index.push_back(static_cast<std::size_t>(ran & (table - 1)));
    s.value.push_back(ran);
  }
  return s;
}

// Bucketed two-sided version over a block-distributed local table.
void bucketed(std::vector<std::uint64_t>& local, const stream& s, std::size_t table) {
  const std::size_t p = pgas::num_images();
  const auto d = pgas::block{}.bind(table, p);
  std::vector<int> counts(p, 0), displs(p), rcounts(p), rdispls(p);
  for (std::size_t k : s.index) counts[d.owner(k)] += 2;
  int at = 0;
  for (std::size_t t = 0; t < p; ++t) {
    displs[t] = at;
    at += counts[t];
  }
  std::vector<std::uint64_t> send(static_cast<std::size_t>(at));
  std::vector<int> fill = displs;
  for (std::size_t u = 0; u < s.index.size(); ++u) {
    const std::size_t t = d.owner(s.index[u]);
    send[static_cast<std::size_t>(fill[t]++)] = d.local_offset(s.index[u]);
    send[static_cast<std::size_t>(fill[t]++)] = s.value[u];
  }
  MPI_Alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (std::size_t t = 0; t < p; ++t) {
    rdispls[t] = total;
    total += rcounts[t];
  }
  std::vector<std::uint64_t> recv(static_cast<std::size_t>(total));
  MPI_Alltoallv(send.data(), counts.data(), displs.data(), MPI_UINT64_T, recv.data(), rcounts.data(),
                rdispls.data(), MPI_UINT64_T, MPI_COMM_WORLD);
  for (std::size_t k = 0; k + 1 < recv.size(); k += 2) local[recv[k]] ^= recv[k + 1];
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "HPCC RandomAccess: pgas vs bucketed MPI", {{"log_size", "22"}});
  if (opt.stop()) return opt.failed() ? 2 : 0;
  const std::size_t table = std::size_t{1} << opt.size("log_size");
  const std::size_t p = pgas::num_images();
  const std::size_t per_image = 4 * table / p;
  const stream s = my_updates(table, per_image);
  const std::string size = "table=2^" + std::to_string(opt.get("log_size")) + ",updates=" + std::to_string(per_image * p);
  const double updates = static_cast<double>(per_image * p);

  pgas::array<std::uint64_t> t(table);
  pgas::iota(t, std::uint64_t{0});
  const auto d = pgas::block{}.bind(table, p);
  std::vector<std::uint64_t> local(d.local_size(pgas::this_image()));
  for (std::size_t k = 0; k < local.size(); ++k) local[k] = d.global_index(pgas::this_image(), k);
  // An odd number of repetitions leaves every word XORed once; the even case is restored.
  const int reps = static_cast<int>(opt.get("reps"));
  const auto [t_pgas, t_mpi] = bench::interleaved_medians(
      reps,
      [&] {
        pgas::accumulate_at(t, std::span<const std::size_t>(s.index), std::span<const std::uint64_t>(s.value),
                            pgas::reduce_op::bxor);
      },
      [&] { bucketed(local, s, table); });
  // Verification: one more pass if reps was odd brings both tables back to table[i] == i.
  if (reps % 2 == 1) {
    pgas::accumulate_at(t, std::span<const std::size_t>(s.index), std::span<const std::uint64_t>(s.value),
                        pgas::reduce_op::bxor);
    bucketed(local, s, table);
  }
  std::size_t wrong_pgas = 0;
  std::size_t wrong_mpi = 0;
  for (std::size_t k = 0; k < local.size(); ++k) {
    if (local[k] != d.global_index(pgas::this_image(), k)) ++wrong_mpi;
  }
  for (std::size_t k = 0; k < t.local().size(); ++k) {
    if (t.local()[k] != t.global_index(k)) ++wrong_pgas;
  }
  const double allowed = 0.01 * static_cast<double>(table);
  std::vector<bench::result> results;
  results.push_back(bench::report("gups", "pgas", size, t_pgas, updates / t_pgas * 1e-9, "GUP/s",
                                  static_cast<double>(pgas::co_sum(wrong_pgas)) <= allowed));
  results.push_back(bench::report("gups", "mpi_bucketed_alltoallv", size, t_mpi, updates / t_mpi * 1e-9, "GUP/s",
                                  static_cast<double>(pgas::co_sum(wrong_mpi)) <= allowed));
  return bench::summarize(results, "pgas");
}
