// pgas::vector growth: push_back with a commit every C appends, beside std::vector::push_back
// of the same values (the goal: at least 0.8x its throughput for C = 10 000).
#include <pgas/algorithms.hpp>

#include "harness.hpp"
#include <vector>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "pgas::vector push_back + commit vs std::vector::push_back",
                           {{"appends", "10000000"}, {"commit_every", "10000"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const std::size_t n = opt.size("appends");
  const std::size_t every = std::max<std::size_t>(1, opt.size("commit_every"));
  const std::string size =
      "appends_per_image=" + std::to_string(n) + ",commit_every=" + std::to_string(every);
  bool ok_pgas = true;
  bool ok_std = true;
  const auto [t_pgas, t_std] = bench::interleaved_medians(
      static_cast<int>(opt.get("reps")),
      [&] {
        pgas::vector<long> v;
        for (std::size_t k = 0; k < n; ++k) {
          v.push_back(static_cast<long>(k));
          if ((k + 1) % every == 0)
            v.commit();
        }
        v.commit();
        ok_pgas = ok_pgas && v.size() == n * pgas::num_images() &&
                  v.local().back() == static_cast<long>(n - 1);
      },
      [&] {
        std::vector<long> v;
        for (std::size_t k = 0; k < n; ++k) v.push_back(static_cast<long>(k));
        ok_std = ok_std && v.size() == n && (n == 0 || v[n - 1] == static_cast<long>(n - 1));
      });
  std::vector<bench::result> results;
  results.push_back(bench::report("vector_push_back", "pgas", size, t_pgas,
                                  static_cast<double>(n) / t_pgas, "appends/s/image",
                                  pgas::co_min(ok_pgas ? 1 : 0) == 1));
  results.push_back(bench::report("vector_push_back", "std_vector", size, t_std,
                                  static_cast<double>(n) / t_std, "appends/s/image",
                                  pgas::co_min(ok_std ? 1 : 0) == 1));
  return bench::summarize(results, "pgas");
}
