// bale's index gather: each image gathers table[index[k]] for its own random indices from a
// cyclic table. pgas (one pgas::gather call, no other image taking part) beside hand-written
// MPI: request/reply through MPI_Alltoallv (indices bucketed by owner, owners look them up,
// values sent back and placed) in one round, and in rounds of bale's exstack buffers, and one
// MPI_Get per element (completed once at the end). Every variant checks every gathered value.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <cstdint>
#include <pgas_programs/bale_updates.hpp>
#include <vector>

namespace {

// Owner and offset of a cyclic table index: by shift and mask when the image count is a power
// of two (as an MPI programmer writes it, and as cheap as unpacking bale's packed indices), by
// division otherwise.
struct cyclic_map {
  explicit cyclic_map(std::size_t images) : p{images} {
    if ((p & (p - 1)) == 0) {
      while ((std::size_t{1} << shift) < p) ++shift;
      power_of_two = true;
    }
  }
  [[nodiscard]] std::size_t owner(std::size_t i) const {
    return power_of_two ? i & (p - 1) : i % p;
  }
  [[nodiscard]] std::size_t offset(std::size_t i) const {
    return power_of_two ? i >> shift : i / p;
  }
  std::size_t p;
  unsigned shift = 0;
  bool power_of_two = false;
};

// Request/reply in one round: every request bucketed by owner and sent in one all-to-all, the
// owners' answers back in a second. Latency-bound networks favour it (two collectives in all);
// its buffers are as large as the request list.
void one_round_gather(const std::vector<std::int64_t>& local_table,
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

// bale's exstack index gather (apps/ig_src, ig_exstack): requests go into per-owner buffers of
// bale's 1024 slots until one is full or the requests end; then a round: the buffers go to
// their owners in one all-to-all, each owner replaces every request by its table value and
// sends them back in a second, and the requester retraces the round's requests, taking each
// owner's replies in order. Each round's counts also say whether an image has more, so every
// image stops after the same round.
void exstack_gather(const std::vector<std::int64_t>& local_table,
                    const std::vector<std::size_t>& index,
                    std::vector<std::int64_t>& target) {
  constexpr std::size_t slots = 1024;  // bale's default buf_cnt
  const std::size_t p = pgas::num_images();
  const cyclic_map map{p};
  std::vector<std::uint64_t> asks(p * slots), asked(p * slots);
  std::vector<std::int64_t> answers(p * slots), replies(p * slots);
  std::vector<int> sizes(p), rsizes(p), displs(p), head(2 * p), rhead(2 * p);
  std::vector<std::size_t> taken(p);
  for (std::size_t d = 0; d < p; ++d) displs[d] = static_cast<int>(d * slots);
  std::size_t i = 0;
  for (bool more = true; more;) {
    const std::size_t first = i;
    std::fill(sizes.begin(), sizes.end(), 0);
    for (; i < index.size(); ++i) {
      const std::size_t d = map.owner(index[i]);
      if (sizes[d] == static_cast<int>(slots))
        break;
      asks[d * slots + static_cast<std::size_t>(sizes[d]++)] = map.offset(index[i]);
    }
    for (std::size_t d = 0; d < p; ++d) {
      head[2 * d] = sizes[d];
      head[2 * d + 1] = i < index.size() ? 1 : 0;
    }
    MPI_Alltoall(head.data(), 2, MPI_INT, rhead.data(), 2, MPI_INT, MPI_COMM_WORLD);
    more = false;
    for (std::size_t s = 0; s < p; ++s) {
      rsizes[s] = rhead[2 * s];
      more = more || rhead[2 * s + 1] != 0;
    }
    MPI_Alltoallv(asks.data(), sizes.data(), displs.data(), MPI_UINT64_T, asked.data(),
                  rsizes.data(), displs.data(), MPI_UINT64_T, MPI_COMM_WORLD);
    for (std::size_t s = 0; s < p; ++s) {
      for (std::size_t k = s * slots; k < s * slots + static_cast<std::size_t>(rsizes[s]); ++k)
        answers[k] = local_table[asked[k]];
    }
    MPI_Alltoallv(answers.data(), rsizes.data(), displs.data(), MPI_INT64_T, replies.data(),
                  sizes.data(), displs.data(), MPI_INT64_T, MPI_COMM_WORLD);
    std::fill(taken.begin(), taken.end(), 0);
    for (std::size_t j = first; j < i; ++j) {
      const std::size_t d = map.owner(index[j]);
      target[j] = replies[d * slots + taken[d]++];
    }
  }
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
  std::vector<std::int64_t> t_pgas(requests), t_a2a(requests), t_exstack(requests), t_get(few);
  const auto times = bench::interleaved_medians(
      static_cast<int>(opt.get("reps")),
      {[&] {
         // Owners answer without shared memory (runtime/owner_reads.hpp): the timing's raw MPI
         // reduction must not start while another image still waits for this one's answers.
         pgas::gather(table, index, t_pgas);
         pgas::sync_all();
       },
       [&] { one_round_gather(local_table, index, t_a2a); },
       [&] { exstack_gather(local_table, index, t_exstack); },
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
  results.push_back(bench::report("index_gather", "mpi_exstack_rounds", size, times[2],
                                  total / times[2] * 1e-6, "Mgathers/s", all_right(t_exstack)));
  results.push_back(bench::report("index_gather", "mpi_get_per_element", size, times[3],
                                  static_cast<double>(few * p) / times[3] * 1e-6, "Mgathers/s",
                                  all_right(t_get)));
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  return bench::summarize(results, "pgas");
}
