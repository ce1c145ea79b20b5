// bale's index gather: each image gathers table[index[k]] for its own random indices from a
// cyclic table. pgas (one pgas::gather call, no other image taking part) beside hand-written
// MPI: request/reply through MPI_Alltoallv (indices bucketed by owner, owners look them up,
// values sent back and placed), and one MPI_Get per element (completed once at the end).
// Every variant checks every gathered value.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <cstdint>
#include <pgas_programs/bale_updates.hpp>
#include <vector>

namespace {

// Request/reply with two all-to-alls, as a bale "exstack"-style program does in one round.
void alltoallv_gather(const std::vector<std::int64_t>& local_table,
                      const std::vector<std::size_t>& index,
                      std::vector<std::int64_t>& target) {
  const std::size_t p = pgas::num_images();
  std::vector<int> counts(p, 0), displs(p), rcounts(p), rdispls(p);
  for (std::size_t i : index) ++counts[i % p];
  int at = 0;
  for (std::size_t d = 0; d < p; ++d) {
    displs[d] = at;
    at += counts[d];
  }
  std::vector<std::uint64_t> asks(index.size());
  std::vector<std::size_t> from(index.size());  // where each request's reply goes
  std::vector<int> fill = displs;
  for (std::size_t k = 0; k < index.size(); ++k) {
    const auto slot = static_cast<std::size_t>(fill[index[k] % p]++);
    asks[slot] = index[k] / p;  // the owner's local offset
    from[slot] = k;
  }
  MPI_Alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (std::size_t d = 0; d < p; ++d) {
    rdispls[d] = total;
    total += rcounts[d];
  }
  std::vector<std::uint64_t> asked(static_cast<std::size_t>(total));
  MPI_Alltoallv(asks.data(), counts.data(), displs.data(), MPI_UINT64_T, asked.data(),
                rcounts.data(), rdispls.data(), MPI_UINT64_T, MPI_COMM_WORLD);
  std::vector<std::int64_t> answers(asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k) answers[k] = local_table[asked[k]];
  std::vector<std::int64_t> replies(index.size());
  MPI_Alltoallv(answers.data(), rcounts.data(), rdispls.data(), MPI_INT64_T, replies.data(),
                counts.data(), displs.data(), MPI_INT64_T, MPI_COMM_WORLD);
  for (std::size_t slot = 0; slot < replies.size(); ++slot) target[from[slot]] = replies[slot];
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "bale index gather: pgas::gather vs hand-written MPI",
                           {{"table", "100000"}, {"requests", "1000000"}, {"get_share", "10"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const std::size_t p = pgas::num_images();
  const std::size_t per_image = opt.size("table");
  const std::size_t requests = opt.size("requests");
  const std::size_t n = per_image * p;
  pgas::array<std::int64_t, pgas::cyclic> table(n);
  for (std::size_t k = 0; k < table.local().size(); ++k)
    table.local()[k] = bale::table_value(table.global_index(k));
  const std::vector<std::int64_t> local_table(table.local().begin(), table.local().end());
  std::int64_t* base = nullptr;
  MPI_Win win;
  MPI_Win_allocate(static_cast<MPI_Aint>(local_table.size() * sizeof(std::int64_t)),
                   sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  std::copy(local_table.begin(), local_table.end(), base);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  pgas::sync_all();

  const std::vector<std::size_t> index = bale::updates_of(pgas::this_image(), requests, n);
  // One MPI_Get per element is slow: it runs on 1/get_share of the requests; its rate compares.
  const std::size_t few = requests / std::max<std::size_t>(1, opt.size("get_share"));
  std::vector<std::int64_t> t_pgas(requests), t_a2a(requests), t_get(few);
  const auto times = bench::interleaved_medians(
      static_cast<int>(opt.get("reps")),
      {[&] {
         // Owners answer without shared memory (runtime/owner_reads.hpp): the timing's raw MPI
         // reduction must not start while another image still waits for this one's answers.
         pgas::gather(table, index, t_pgas);
         pgas::sync_all();
       },
       [&] { alltoallv_gather(local_table, index, t_a2a); },
       [&] {
         for (std::size_t k = 0; k < few; ++k) {
           MPI_Get(&t_get[k], 1, MPI_INT64_T, static_cast<int>(index[k] % p),
                   static_cast<MPI_Aint>(index[k] / p), 1, MPI_INT64_T, win);
         }
         MPI_Win_flush_local_all(win);
       }});
  const auto all_right = [&](const std::vector<std::int64_t>& got) {
    bool ok = true;
    for (std::size_t k = 0; k < got.size(); ++k) ok = ok && got[k] == bale::table_value(index[k]);
    return pgas::co_min(ok ? 1 : 0) == 1;
  };
  const std::string size =
      "table=" + std::to_string(n) + ",requests_per_image=" + std::to_string(requests);
  const double total = static_cast<double>(requests * p);
  std::vector<bench::result> results;
  results.push_back(bench::report("index_gather", "pgas", size, times[0], total / times[0] * 1e-6,
                                  "Mgathers/s", all_right(t_pgas)));
  results.push_back(bench::report("index_gather", "mpi_alltoallv_request_reply", size, times[1],
                                  total / times[1] * 1e-6, "Mgathers/s", all_right(t_a2a)));
  results.push_back(bench::report("index_gather", "mpi_get_per_element", size, times[2],
                                  static_cast<double>(few * p) / times[2] * 1e-6, "Mgathers/s",
                                  all_right(t_get)));
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  return bench::summarize(results, "pgas");
}
