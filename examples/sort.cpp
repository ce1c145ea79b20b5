// Sorts a distributed array of random 64-bit integers with pgas::sort and checks the result:
// globally ordered, every image keeping its share, the same multiset as before (a checksum).
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <random>
#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t n = 1'000'000;
  pgas_programs::command_line app{
      "Sorts N random int64 values and verifies the order and the checksum.", "sort"};
  app.add_option("--n", n, "values to sort")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  pgas::array<std::int64_t> a(n);
  std::mt19937_64 gen(99 + pgas::this_image());
  for (auto& x : a.local()) x = static_cast<std::int64_t>(gen());
  const auto checksum = [&a] {
    std::uint64_t s = 0;
    for (auto x : a.local()) s += static_cast<std::uint64_t>(x) * 0x9e3779b97f4a7c15ULL;
    return pgas::co_sum(s);
  };
  const std::uint64_t before = checksum();
  const std::size_t share = a.local().size();
  pgas::sync_all();
  const double t0 = MPI_Wtime();
  pgas::sort(a);
  const double t = pgas::co_max(MPI_Wtime() - t0);
  // Ordered within every image, and across neighbours (each last <= the next image's first).
  bool ok = std::is_sorted(a.local().begin(), a.local().end()) && a.local().size() == share;
  for (std::size_t i = 1; i < n; ++i) {
    if (a.owner(i) != a.owner(i - 1) && a.owner(i) == pgas::this_image())
      ok = ok && a[i - 1] <= a.local()[0];
  }
  ok = pgas::co_min(ok ? 1 : 0) == 1 && checksum() == before;
  if (pgas::this_image() == 0) {
    std::printf("sort: %zu int64 on %zu images in %.3f s (%.3g elements/s): %s\n", n,
                pgas::num_images(), t, static_cast<double>(n) / t,
                ok ? "sorted, shares kept, same elements" : "WRONG");
  }
  return ok ? 0 : 1;
}
