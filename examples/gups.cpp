// HPCC RandomAccess (GUPS) on a pgas::array: a table of 2^k 64-bit words, 4 x 2^k XOR updates
// from the HPCC random stream, applied in batches with pgas::accumulate_at (combined per owner,
// one accumulate per owner per batch). Verification replays the stream: at most 1 % of the
// table may be wrong, as the HPCC rules allow.
#include <pgas/algorithms.hpp>
#include <pgas_programs/command_line.hpp>

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <pgas_programs/hpcc_random.hpp>

namespace {

// Applies this image's share of the stream in batches. Collective.
void apply_updates(pgas::array<std::uint64_t>& table, std::size_t updates_per_image, std::size_t batch) {
  const std::uint64_t mask = table.size() - 1;
  std::uint64_t ran = hpcc::starts(static_cast<std::int64_t>(updates_per_image * pgas::this_image()));
  std::vector<std::size_t> idx;
  std::vector<std::uint64_t> val;
  for (std::size_t done = 0; done < updates_per_image; done += batch) {
    idx.clear();
    val.clear();
    for (std::size_t u = done; u < std::min(updates_per_image, done + batch); ++u) {
      ran = hpcc::next(ran);
      idx.push_back(static_cast<std::size_t>(ran & mask));
      val.push_back(ran);
    }
    pgas::accumulate_at(table, std::span<const std::size_t>(idx), std::span<const std::uint64_t>(val),
                        pgas::reduce_op::bxor);
  }
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  unsigned log_size = 20;
  std::size_t batch = 0;  // 0: all of an image's updates in one batch
  CLI::App app{"HPCC RandomAccess: 2^K 64-bit words, 4 x 2^K XOR updates, verified by replaying\n"
               "the stream.", "gups"};
  app.add_option("--log-size", log_size, "K: the table has 2^K words")->capture_default_str()->check(CLI::Range(1U, 40U));
  app.add_option("--batch", batch, "updates per image in one batch (0: all in one)")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv)) return *stop;
  const std::size_t size = std::size_t{1} << log_size;
  const std::size_t p = pgas::num_images();
  // HPCC: 4 x table updates in all; split evenly (the table size is a power of two).
  const std::size_t updates_per_image = 4 * size / p;
  if (batch == 0) batch = std::max<std::size_t>(1, updates_per_image);
  pgas::array<std::uint64_t> table(size);
  pgas::iota(table, std::uint64_t{0});
  const double t0 = MPI_Wtime();
  apply_updates(table, updates_per_image, batch);
  const double t = pgas::co_max(MPI_Wtime() - t0);
  const double gups = static_cast<double>(updates_per_image * p) / t * 1e-9;
  // XOR is its own inverse: applying the same updates again restores table[i] == i.
  apply_updates(table, updates_per_image, batch);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < table.local().size(); ++k) {
    if (table.local()[k] != table.global_index(k)) ++wrong;
  }
  wrong = pgas::co_sum(wrong);
  const bool ok = static_cast<double>(wrong) <= 0.01 * static_cast<double>(size);
  if (pgas::this_image() == 0) {
    std::printf("gups: table 2^%u words, %zu updates in %.3f s: %.6f GUP/s; %zu wrong words (%s)\n", log_size,
                updates_per_image * p, t, gups, wrong, ok ? "passed: at most 1% allowed" : "FAILED");
  }
  return ok ? 0 : 1;
}
