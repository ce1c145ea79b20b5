#pragma once
// The benchmarks' shared harness: options, timing (median of repetitions, slowest image per
// repetition), and the RESULT lines bench/run-all collects.

#include <pgas/pgas.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <pgas_programs/command_line.hpp>
#include <string>
#include <vector>

namespace bench {

/// The most one-sided operations a hand-written variant starts before it flushes them, as a user
/// of this MPI must (docs/platform.md): MPICH 4.0 (ch4:ucx) loses accumulates past some 50
/// outstanding to one target through UCX's shared memory, and ends the job past some 2^18
/// outstanding in all — 32 there; elsewhere 2^16, a flush that costs nothing measurable.
inline std::size_t most_operations_unflushed() {
  static const std::size_t most = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    return std::strstr(version, "MPICH") != nullptr ? std::size_t{32} : std::size_t{1} << 16;
  }();
  return most;
}

/// --name value options from the command line (CLI11), each with a default; --help prints them.
class options {
 public:
  options(int argc,
          char** argv,
          const std::string& about,
          std::map<std::string, std::string> defaults)
      : values_{std::move(defaults)} {
    values_.emplace("reps", "5");
    pgas_programs::command_line app{about};
    for (auto& [name, value] : values_) {
      app.add_option("--" + name, value,
                     name == "reps" ? "repetitions, of which the median counts" : "")
          ->capture_default_str()
          ->check(pgas_programs::non_negative_number());
    }
    stop_code_ = pgas_programs::parse_command_line(app, argc, argv);
  }
  /// True if the program should stop: --help was given (printed) or an option is unknown.
  [[nodiscard]] bool stop() const { return stop_code_.has_value(); }
  /// True if the command line was wrong.
  [[nodiscard]] bool failed() const { return stop_code_.value_or(0) != 0; }
  [[nodiscard]] long get(const std::string& name) const { return std::stol(values_.at(name)); }
  [[nodiscard]] std::size_t size(const std::string& name) const {
    return static_cast<std::size_t>(get(name));
  }

 private:
  std::map<std::string, std::string> values_;
  std::optional<int> stop_code_;
};

/// The median of some timings.
inline double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t.empty() ? 0.0 : t[t.size() / 2];
}

/// Runs f `reps` times between barriers; a repetition takes as long as its slowest image.
/// Returns the median, the same on every image. The barrier and the maximum are pgas's, which
/// serve other images while they wait: an image done with a one-sided pgas read must still
/// answer the reads other images send it (the progress rule), which a raw MPI_Barrier would not.
template <class F>
double median_seconds(int reps, F f) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    pgas::sync_all();
    const double t0 = MPI_Wtime();
    f();
    times.push_back(pgas::co_max(MPI_Wtime() - t0));
  }
  return median(times);
}

/// Calls run(r, v) for every repetition r < reps and variant v < count, the variants of one
/// repetition in turn (a, b, c, b, c, a, ...): a noisy moment on a shared machine hits all
/// alike, and no variant always runs first.
template <class Run>
void in_rotation(long reps, std::size_t count, Run run) {
  for (long r = 0; r < reps; ++r) {
    for (std::size_t step = 0; step < count; ++step)
      run(r, (static_cast<std::size_t>(r) + step) % count);
  }
}

/// Times several variants in_rotation; returns their median seconds, in the order given.
/// `untimed(v)`, when given, runs before each repetition of variant v, outside its timing: what
/// puts every repetition in the same starting state without counting in it.
inline std::vector<double> interleaved_medians(
    int reps,
    const std::vector<std::function<void()>>& variants,
    const std::function<void(std::size_t)>& untimed = {}) {
  std::vector<std::vector<double>> times(variants.size());
  in_rotation(reps, variants.size(), [&](long, std::size_t v) {
    if (untimed)
      untimed(v);
    times[v].push_back(median_seconds(1, variants[v]));
  });
  std::vector<double> medians;
  for (const auto& t : times) medians.push_back(median(t));
  return medians;
}

/// The same for two variants.
template <class A, class B>
std::pair<double, double> interleaved_medians(int reps, A a, B b) {
  const auto m = interleaved_medians(reps, std::vector<std::function<void()>>{a, b});
  return {m[0], m[1]};
}

/// One measured variant, as printed and kept for the summary.
struct result {
  std::string kernel;
  std::string variant;
  std::string size;
  double seconds;
  double rate;
  std::string unit;
  bool verified;
};

/// Prints the RESULT line of one variant (image 0 only) and returns it.
inline result report(const std::string& kernel,
                     const std::string& variant,
                     const std::string& size,
                     double seconds,
                     double rate,
                     const std::string& unit,
                     bool verified) {
  if (pgas::this_image() == 0) {
    std::printf(
        "RESULT kernel=%s variant=%s images=%zu size=%s seconds=%.6g rate=%.6g unit=%s "
        "verified=%s\n",
        kernel.c_str(), variant.c_str(), pgas::num_images(), size.c_str(), seconds, rate,
        unit.c_str(), verified ? "yes" : "no");
    std::fflush(stdout);
  }
  return {kernel, variant, size, seconds, rate, unit, verified};
}

/// Prints "SUMMARY ... ratio=" lines: each variant's rate over the reference's (higher is
/// better for pgas when the reference is a baseline). Returns 0 if everything verified.
inline int summarize(const std::vector<result>& results, const std::string& subject) {
  bool all_ok = true;
  for (const auto& r : results) all_ok = all_ok && r.verified;
  if (pgas::this_image() == 0) {
    for (const auto& s : results) {
      if (s.variant != subject)
        continue;
      for (const auto& b : results) {
        if (b.kernel != s.kernel || b.variant == subject)
          continue;
        std::printf("SUMMARY kernel=%s %s_vs_%s rate_ratio=%.3f time_ratio=%.3f\n",
                    s.kernel.c_str(), s.variant.c_str(), b.variant.c_str(), s.rate / b.rate,
                    s.seconds / b.seconds);
      }
    }
    std::printf("verification: %s\n", all_ok ? "all variants verified" : "SOME VARIANT FAILED");
  }
  return all_ok ? 0 : 1;
}

/// Prints a progress line on image 0 (to stderr, so RESULT lines stay clean).
inline void progress(const std::string& what) {
  if (pgas::this_image() == 0) {
    std::fprintf(stderr, "[bench] %s\n", what.c_str());
  }
}

}  // namespace bench
