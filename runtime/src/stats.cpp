// The counters' switch, and the table the environment prints when it ends.
#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/stats.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace pgas {

const rma_stats& stats() noexcept {
  return runtime::statistics::counters;
}

namespace runtime::statistics {

void start_from_environment() {
  const char* v = std::getenv("PGAS_STATS");
  enabled = v != nullptr && std::strcmp(v, "0") != 0 && v[0] != '\0';
  counters = rma_stats{};
}

namespace {

constexpr int transfer_fields = 23;
// Then how far ahead each kind of scattered loop asks (ask_ahead.hpp), -1 while it is trying.
constexpr int distance_fields = transfer_fields + static_cast<int>(scattered_loop_kinds);
// Then the transposes by route: by gets, by sends, timed.
constexpr int fields = distance_fields + 3;

void flatten(const rma_stats& s, double* out) {
  const transfer_count* counts[] = {
      &s.puts,        &s.gets,       &s.accumulates,      &s.atomics,
      &s.peer_stores, &s.peer_loads, &s.in_place_updates, &s.owner_updates,
      &s.owner_reads};
  int k = 0;
  for (const transfer_count* c : counts) {
    out[k++] = static_cast<double>(c->operations);
    out[k++] = static_cast<double>(c->bytes);
  }
  out[k++] = static_cast<double>(s.sync_points);
  out[k++] = s.sync_seconds;
  out[k++] = static_cast<double>(s.windows_created);
  out[k++] = static_cast<double>(s.windows_from_pool);
  out[k++] = static_cast<double>(s.windows_freed);
  for (std::size_t kind = 0; kind < scattered_loop_kinds; ++kind) {
    const ask_ahead_tuner& t = ask_ahead_for(static_cast<scattered_loop>(kind));
    out[k++] = t.chosen() ? static_cast<double>(t.distance()) : -1.0;
  }
  out[k++] = static_cast<double>(s.transposes_by_gets);
  out[k++] = static_cast<double>(s.transposes_by_sends);
  out[k++] = static_cast<double>(s.transposes_timed);
}

void print_row(const char* who, const double* f) {
  // Operations, then bytes in MiB, for each kind of transfer.
  std::printf("%-6s", who);
  for (int k = 0; k < 18; k += 2) std::printf(" %10.0f %9.2f", f[k], f[k + 1] / (1024.0 * 1024.0));
  std::printf(" %8.0f %9.4f %7.0f %6.0f %6.0f\n", f[18], f[19], f[20], f[21], f[22]);
}

void print_distances(int image, const double* f) {
  std::printf("%-6d", image);
  for (int k = transfer_fields; k < distance_fields; ++k) {
    if (f[k] < 0)
      std::printf(" %16s", "trying");
    else
      std::printf(" %16.0f", f[k]);
  }
  std::printf("\n");
}

}  // namespace

void print_table(MPI_Comm comm) {
  if (!enabled)
    return;
  int rank = 0;
  int size = 1;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  double mine[fields];
  flatten(counters, mine);
  std::vector<double> all(
      rank == 0 ? static_cast<std::size_t>(fields) * static_cast<std::size_t>(size) : 0);
  check(MPI_Gather(mine, fields, MPI_DOUBLE, all.data(), fields, MPI_DOUBLE, 0, comm),
        "MPI_Gather");
  if (rank != 0)
    return;
  std::printf(
      "pgas statistics (PGAS_STATS=1): operations and MiB per kind; sync points and seconds in "
      "them; windows created, taken from the pool and freed\n");
  std::printf("%-6s %20s %20s %20s %20s %20s %20s %20s %20s %20s %8s %9s %7s %6s %6s\n", "image",
              "MPI puts", "MPI gets", "MPI accumulates", "MPI atomics", "peer stores", "peer loads",
              "in-place updates", "owner updates", "owner reads", "syncs", "sync s", "windows",
              "pool", "freed");
  std::vector<double> total(transfer_fields, 0.0);
  for (int r = 0; r < size; ++r) {
    const double* row = all.data() + static_cast<std::size_t>(r) * fields;
    // The distances chosen are each image's own: no total.
    for (int k = 0; k < transfer_fields; ++k) total[static_cast<std::size_t>(k)] += row[k];
    char who[16];
    std::snprintf(who, sizeof who, "%d", r);
    print_row(who, row);
  }
  print_row("total", total.data());
  std::printf(
      "how many iterations ahead loops over scattered memory ask for lines, as each image chose "
      "(PGAS_ASK_AHEAD fixes it)\n");
  std::printf("%-6s %16s %16s %16s %16s %16s\n", "image", "updates", "counts", "in place",
              "owner reads", "map updates");
  for (int r = 0; r < size; ++r)
    print_distances(r, all.data() + static_cast<std::size_t>(r) * fields);
  double transposes = 0;
  for (int r = 0; r < size; ++r) {
    const double* row = all.data() + static_cast<std::size_t>(r) * fields;
    transposes += row[distance_fields] + row[distance_fields + 1];
  }
  if (transposes > 0) {
    std::printf(
        "transposes whose blocks went through MPI, by the route each image took "
        "(PGAS_TRANSPOSE_ROUTE fixes it), and how many of them were timed to choose it\n");
    std::printf("%-6s %16s %16s %16s\n", "image", "by gets", "by sends", "timed");
    for (int r = 0; r < size; ++r) {
      const double* row = all.data() + static_cast<std::size_t>(r) * fields;
      std::printf("%-6d %16.0f %16.0f %16.0f\n", r, row[distance_fields], row[distance_fields + 1],
                  row[distance_fields + 2]);
    }
  }
  std::fflush(stdout);
}

}  // namespace runtime::statistics

}  // namespace pgas
