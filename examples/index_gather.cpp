// bale's index gather: every image holds random global indices into a distributed table and
// gathers table[index] into a local array, with one pgas::gather call and no other image taking
// part. The table is spread cyclically, as bale spreads it; every gathered value is checked.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <pgas_programs/bale_updates.hpp>
#include <pgas_programs/command_line.hpp>
#include <vector>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t per_image = 100000;
  std::size_t requests = 1000000;
  pgas_programs::command_line app{
      "bale index gather: random reads of a cyclic table into a local array, verified.",
      "index_gather"};
  app.add_option("--table", per_image, "table entries per image")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option("--requests", requests, "indices each image gathers")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const std::size_t n = per_image * pgas::num_images();
  pgas::array<std::int64_t, pgas::cyclic> table(n);
  for (std::size_t k = 0; k < table.local().size(); ++k)
    table.local()[k] = bale::table_value(table.global_index(k));
  pgas::sync_all();

  const std::vector<std::size_t> index = bale::updates_of(pgas::this_image(), requests, n);
  std::vector<std::int64_t> target(requests);
  const double t0 = MPI_Wtime();
  pgas::gather(table, index, target);
  const double t = pgas::co_max(MPI_Wtime() - t0);

  std::size_t wrong = 0;
  for (std::size_t k = 0; k < requests; ++k)
    wrong += target[k] == bale::table_value(index[k]) ? 0U : 1U;
  wrong = pgas::co_sum(wrong);
  if (pgas::this_image() == 0) {
    std::printf(
        "index_gather: %zu table entries, %zu requests per image on %zu images in %.3f s "
        "(%.1f M gathers/s); %zu wrong (%s)\n",
        n, requests, pgas::num_images(), t,
        static_cast<double>(requests * pgas::num_images()) / t * 1e-6, wrong,
        wrong == 0 ? "passed" : "FAILED");
  }
  return wrong == 0 ? 0 : 1;
}
