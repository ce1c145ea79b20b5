// The bale histo kernel: a table of T counters per image (cyclic or block over the images);
// every image adds 1 at N random global indices with pgas::histogram. Verification recomputes
// every counter independently from every image's random stream.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include <cstdio>
#include <pgas_programs/bale_updates.hpp>
#include <pgas_programs/command_line.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

template <class Dist>
bool run(std::size_t per_image, std::size_t n) {
  const std::size_t p = pgas::num_images();
  const std::size_t table = per_image * p;
  pgas::array<long, Dist> counts(table);
  const auto mine = bale::updates_of(pgas::this_image(), n, table);
  pgas::sync_all();
  const double t0 = MPI_Wtime();
  pgas::histogram(counts, mine);
  const double t = pgas::co_max(MPI_Wtime() - t0);
  // Independent recount: every image replays every stream and checks the counters it owns.
  std::vector<long> want(counts.local().size(), 0);
  const auto& d = counts.distribution();
  for (std::size_t img = 0; img < p; ++img) {
    for (std::size_t k : bale::updates_of(img, n, table)) {
      if (d.owner(k) == pgas::this_image())
        ++want[d.local_offset(k)];
    }
  }
  const bool mine_ok = std::equal(want.begin(), want.end(), counts.local().begin());
  const bool ok = pgas::co_min(mine_ok ? 1 : 0) == 1;
  if (pgas::this_image() == 0) {
    std::printf(
        "histogram: %zu counters per image, %zu updates per image: %.3f s, %.3g updates/s per "
        "image, %s\n",
        per_image, n, t, static_cast<double>(n) / t,
        ok ? "every counter verified" : "COUNTERS WRONG");
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t per_image = 1 << 20;
  std::size_t n = 1'000'000;
  std::string layout = "cyclic";
  pgas_programs::command_line app{
      "bale histo: random updates of counters spread over the images; every counter is\n"
      "verified against an independent recount.",
      "histogram"};
  app.add_option("--counters", per_image, "counters per image")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option("--updates", n, "random updates per image")->capture_default_str();
  app.add_option("--layout", layout, "how the counters are spread")
      ->capture_default_str()
      ->check(pgas_programs::one_of({"cyclic", "block"}));
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const bool ok =
      layout == "cyclic" ? run<pgas::cyclic>(per_image, n) : run<pgas::block>(per_image, n);
  return ok ? 0 : 1;
}
