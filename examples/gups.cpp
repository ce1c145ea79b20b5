// HPCC RandomAccess (GUPS) on a pgas::array: a table of 2^k 64-bit words, 4 x 2^k XOR updates
// from the HPCC random stream. By default under HPCC's rules: each image streams its updates
// through a pgas::aggregator of capacity 1024 (the rules' look-ahead), which sends each owner
// its share as one accumulate whenever it fills; no other image takes part. `--batch B` instead
// applies them with the collective pgas::accumulate_at in batches of B per image (0: one batch
// of all), which looks further ahead than the rules allow. Verification replays the stream:
// at most 1 % of the table may be wrong, as the rules allow.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/hpcc_random.hpp>
#include <pgas_programs/progress.hpp>
#include <string>
#include <vector>

namespace {

// Applies this image's share of the stream through an aggregator holding at most `look_ahead`
// updates. Not collective but for the sync point at the end.
void apply_through_aggregator(pgas::array<std::uint64_t>& table,
                              std::size_t updates_per_image,
                              std::size_t look_ahead) {
  const std::uint64_t mask = table.size() - 1;
  std::uint64_t ran =
      hpcc::starts(static_cast<std::int64_t>(updates_per_image * pgas::this_image()));
  pgas::aggregator agg(table, pgas::reduce_op::bxor, look_ahead);
  pgas_programs::progress shown("gups updates", static_cast<long long>(updates_per_image));
  for (std::size_t u = 0; u < updates_per_image; ++u) {
    ran = hpcc::next(ran);
    agg.add(static_cast<std::size_t>(ran & mask), ran);
    if ((u & 0xffff) == 0)
      shown.update(static_cast<long long>(u));
  }
  shown.done();
  pgas::sync_all();  // sends what the aggregator still holds and completes every update
}

// Applies this image's share of the stream in collective batches (outside HPCC's rules when a
// batch is longer than 1024). Collective.
void apply_in_batches(pgas::array<std::uint64_t>& table,
                      std::size_t updates_per_image,
                      std::size_t batch) {
  const std::uint64_t mask = table.size() - 1;
  std::uint64_t ran =
      hpcc::starts(static_cast<std::int64_t>(updates_per_image * pgas::this_image()));
  std::vector<std::size_t> idx;
  std::vector<std::uint64_t> val;
  pgas_programs::progress shown("gups updates", static_cast<long long>(updates_per_image));
  for (std::size_t done = 0; done < updates_per_image; done += batch) {
    shown.update(static_cast<long long>(done));
    idx.clear();
    val.clear();
    for (std::size_t u = done; u < std::min(updates_per_image, done + batch); ++u) {
      ran = hpcc::next(ran);
      idx.push_back(static_cast<std::size_t>(ran & mask));
      val.push_back(ran);
    }
    pgas::accumulate_at(table, std::span<const std::size_t>(idx),
                        std::span<const std::uint64_t>(val), pgas::reduce_op::bxor);
  }
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  unsigned log_size = 20;
  std::size_t look_ahead = 1024;
  std::optional<std::size_t> batch;
  pgas_programs::command_line app{
      "HPCC RandomAccess: 2^K 64-bit words, 4 x 2^K XOR updates, verified by replaying\n"
      "the stream.",
      "gups"};
  app.add_option("--log-size", log_size, "K: the table has 2^K words")
      ->capture_default_str()
      ->check(pgas_programs::range(1U, 40U));
  app.add_option("--look-ahead", look_ahead,
                 "updates an image holds before sending (HPCC's rules: at most 1024)")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option(
      "--batch", batch,
      "instead: collective pgas::accumulate_at batches of B updates per image, 0 for one batch "
      "of all (outside HPCC's rules for B > 1024)");
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const std::size_t size = std::size_t{1} << log_size;
  const std::size_t p = pgas::num_images();
  // HPCC: 4 x table updates in all; split evenly (the table size is a power of two).
  const std::size_t updates_per_image = 4 * size / p;
  if (batch && *batch == 0)
    batch = std::max<std::size_t>(1, updates_per_image);
  const auto apply_updates = [&](pgas::array<std::uint64_t>& table) {
    if (batch) {
      apply_in_batches(table, updates_per_image, *batch);
    } else {
      apply_through_aggregator(table, updates_per_image, look_ahead);
    }
  };
  pgas::array<std::uint64_t> table(size);
  pgas::iota(table, std::uint64_t{0});
  const double t0 = MPI_Wtime();
  apply_updates(table);
  const double t = pgas::co_max(MPI_Wtime() - t0);
  const double gups = static_cast<double>(updates_per_image * p) / t * 1e-9;
  // XOR is its own inverse: applying the same updates again restores table[i] == i.
  apply_updates(table);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < table.local().size(); ++k) {
    if (table.local()[k] != table.global_index(k))
      ++wrong;
  }
  wrong = pgas::co_sum(wrong);
  const bool ok = static_cast<double>(wrong) <= 0.01 * static_cast<double>(size);
  if (pgas::this_image() == 0) {
    const std::string how = batch ? "collective batches of " + std::to_string(*batch) +
                                        (*batch > 1024 ? " (outside HPCC's rules)" : "")
                                  : "aggregator, look-ahead " + std::to_string(look_ahead) +
                                        (look_ahead > 1024 ? " (outside HPCC's rules)" : "");
    std::printf(
        "gups: table 2^%u words, %zu updates (%s) in %.3f s: %.6f GUP/s; %zu wrong words (%s)\n",
        log_size, updates_per_image * p, how.c_str(), t, gups, wrong,
        ok ? "passed: at most 1% allowed" : "FAILED");
  }
  return ok ? 0 : 1;
}
