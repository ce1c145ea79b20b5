// pgas algorithms on 10^7 elements beside the hand-written MPI versions: reduce (std::reduce of
// the local part + MPI_Allreduce), transform and fill (local loop + barrier), inclusive_scan
// (std::inclusive_scan of the local part + MPI_Exscan + fix-up), and sort against std::sort of
// all the data on one image.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "algorithms: pgas vs hand-written MPI",
                           {{"n", "10000000"}, {"sort_n", "10000000"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const int reps = static_cast<int>(opt.get("reps"));
  const std::size_t n = opt.size("n");
  const std::string size = "n=" + std::to_string(n);
  std::vector<bench::result> results;
  const auto ok_all = [](bool ok) { return pgas::co_min(ok ? 1 : 0) == 1; };

  pgas::array<double> a(n);
  pgas::array<double> b(n);
  pgas::iota(a, 0.0);
  // The hand-written versions work on a std::vector holding the same local part.
  std::vector<double> va(a.local().begin(), a.local().end());
  std::vector<double> vb(va.size());
  const double exact_sum = static_cast<double>(n) * static_cast<double>(n - 1) / 2;

  bench::progress("algorithms: reduce");
  double s = 0;
  double s_mpi = 0;
  auto [t, t_mpi] = bench::interleaved_medians(
      reps, [&] { s = pgas::reduce(a); },
      [&] {
        // The local sum as the fastest hand-written code takes it: std::reduce's partial sums.
        // One chain of dependent adds is half as fast, and how fast hangs on where its loop
        // falls (pgas's ran at 0.73-0.80 of the same loop here while it straddled a 64-byte
        // line, EPYC VM).
        double local = std::reduce(va.begin(), va.end(), 0.0);
        MPI_Allreduce(&local, &s_mpi, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      });
  results.push_back(bench::report("reduce", "pgas", size, t, static_cast<double>(n) / t,
                                  "elements/s", ok_all(s == exact_sum)));
  results.push_back(bench::report("reduce", "mpi", size, t_mpi, static_cast<double>(n) / t_mpi,
                                  "elements/s", ok_all(s_mpi == exact_sum)));

  bench::progress("algorithms: transform");
  std::tie(t, t_mpi) = bench::interleaved_medians(
      reps, [&] { pgas::transform(a, b, [](double x) { return 2 * x + 1; }); },
      [&] {
        for (std::size_t k = 0; k < va.size(); ++k) vb[k] = 2 * va[k] + 1;
        MPI_Barrier(MPI_COMM_WORLD);
      });
  results.push_back(
      bench::report("transform", "pgas", size, t, static_cast<double>(n) / t, "elements/s",
                    ok_all(b.local().empty() || b.local()[0] == 2 * a.local()[0] + 1)));
  t = t_mpi;
  results.push_back(bench::report("transform", "mpi", size, t, static_cast<double>(n) / t,
                                  "elements/s", ok_all(vb.empty() || vb[0] == 2 * va[0] + 1)));

  bench::progress("algorithms: fill");
  std::tie(t, t_mpi) = bench::interleaved_medians(
      reps, [&] { pgas::fill(b, 3.5); },
      [&] {
        std::fill(vb.begin(), vb.end(), 3.5);
        MPI_Barrier(MPI_COMM_WORLD);
      });
  results.push_back(bench::report("fill", "pgas", size, t, static_cast<double>(n) / t, "elements/s",
                                  ok_all(pgas::count(b, 3.5) == n)));
  t = t_mpi;
  results.push_back(
      bench::report("fill", "mpi", size, t, static_cast<double>(n) / t, "elements/s",
                    ok_all(std::count(vb.begin(), vb.end(), 3.5) == static_cast<long>(vb.size()))));

  bench::progress("algorithms: inclusive_scan");
  pgas::fill(a, 1.0);
  std::fill(va.begin(), va.end(), 1.0);
  std::tie(t, t_mpi) = bench::interleaved_medians(
      reps, [&] { pgas::inclusive_scan(a, b); },
      [&] {
        // The local pass as std::inclusive_scan takes it: a loop of our own whose running sum
        // goes to MPI_Exscan after it kept that sum on the stack, at a fifth of the speed.
        std::inclusive_scan(va.begin(), va.end(), vb.begin());
        double carry = vb.empty() ? 0.0 : vb.back();
        double before = 0;
        MPI_Exscan(&carry, &before, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (pgas::this_image() != 0) {
          for (double& x : vb) x += before;
        }
        MPI_Barrier(MPI_COMM_WORLD);
      });
  const bool scan_ok =
      b.local().empty() ||
      b.local().back() == static_cast<double>(a.global_index(b.local().size() - 1) + 1);
  results.push_back(bench::report("inclusive_scan", "pgas", size, t, static_cast<double>(n) / t,
                                  "elements/s", ok_all(scan_ok)));
  t = t_mpi;
  const bool mpi_scan_ok =
      vb.empty() || vb.back() == static_cast<double>(a.global_index(vb.size() - 1) + 1);
  results.push_back(bench::report("inclusive_scan", "mpi", size, t, static_cast<double>(n) / t,
                                  "elements/s", ok_all(mpi_scan_ok)));

  bench::progress("algorithms: sort");
  const std::size_t sn = opt.size("sort_n");
  std::mt19937_64 gen(7);
  std::vector<std::int64_t> all(sn);
  for (auto& x : all) x = static_cast<std::int64_t>(gen());
  pgas::array<std::int64_t> keys(sn);
  std::vector<double> sort_times;
  // The answer, sorted here serially: after each sort, element i of the array is its i-th key.
  std::vector<std::int64_t> in_order = all;
  std::sort(in_order.begin(), in_order.end());
  bool sorted_ok = true;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t k = 0; k < keys.local().size(); ++k)
      keys.local()[k] = all[keys.global_index(k)];
    pgas::sync_all();
    sort_times.push_back(bench::median_seconds(1, [&] { pgas::sort(keys); }));
    for (std::size_t k = 0; k < keys.local().size(); ++k)
      sorted_ok = sorted_ok && keys.local()[k] == in_order[keys.global_index(k)];
  }
  t = bench::median(sort_times);
  results.push_back(bench::report("sort", "pgas", "n=" + std::to_string(sn), t,
                                  static_cast<double>(sn) / t, "elements/s", ok_all(sorted_ok)));
  // The baseline: one image sorts everything with std::sort while the others wait.
  std::vector<double> serial_times;
  bool serial_ok = true;
  for (int r = 0; r < reps; ++r) {
    std::vector<std::int64_t> copy = all;
    serial_times.push_back(bench::median_seconds(1, [&] {
      if (pgas::this_image() == 0)
        std::sort(copy.begin(), copy.end());
    }));
    serial_ok = serial_ok && (pgas::this_image() != 0 || copy == in_order);
  }
  t = bench::median(serial_times);
  results.push_back(bench::report("sort", "std_sort_one_image", "n=" + std::to_string(sn), t,
                                  static_cast<double>(sn) / t, "elements/s", ok_all(serial_ok)));
  return bench::summarize(results, "pgas");
}
