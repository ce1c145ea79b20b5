// Micro benchmarks, each beside the raw MPI it stands for: one remote element put (also with a
// hundred more arrays live, which a sync point must not walk) and get, a 1 MiB bulk put, a 1 MiB
// get spanning two images, a strided get, STREAM triad on local(), a scalar co_sum and one of 8
// doubles (vs MPI_Allreduce), sync_all (vs MPI_Barrier), and array construction + destruction.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

namespace {

constexpr std::size_t bulk_doubles = (1 << 20) / sizeof(double);

int right() {
  return static_cast<int>((pgas::this_image() + 1) % pgas::num_images());
}

// Reports `calls` calls of a kernel by pgas (t seconds) and by its MPI baseline (t_mpi), each
// verified on every image.
void report_calls(std::vector<bench::result>& results,
                  const char* kernel,
                  const char* baseline,
                  const std::string& size,
                  std::size_t calls,
                  const char* unit,
                  double t,
                  double t_mpi,
                  bool pgas_ok,
                  bool mpi_ok) {
  results.push_back(bench::report(kernel, "pgas", size, t, static_cast<double>(calls) / t, unit,
                                  pgas::co_min(pgas_ok ? 1 : 0) == 1));
  results.push_back(bench::report(kernel, baseline, size, t_mpi, static_cast<double>(calls) / t_mpi,
                                  unit, pgas::co_min(mpi_ok ? 1 : 0) == 1));
}

// A raw MPI window of n longs in a lock_all epoch, the hand-written baselines' setting.
struct raw_window {
  explicit raw_window(std::size_t n) {
    MPI_Win_allocate(static_cast<MPI_Aint>(n * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    std::fill_n(base, n, 0L);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  }
  raw_window(const raw_window&) = delete;
  raw_window& operator=(const raw_window&) = delete;
  ~raw_window() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
  long* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
};

// The image whose element image 0 writes in the put benchmarks: its right neighbour.
std::size_t written_image() {
  return 1 % pgas::num_images();
}

// Image 0 writes `ops` values to its right neighbour's element of `a`, completing each write.
void pgas_puts(pgas::array<long>& a, std::size_t ops) {
  if (pgas::this_image() != 0)
    return;
  const auto target = static_cast<std::size_t>(right());
  for (std::size_t k = 0; k < ops; ++k) {
    a[target] = static_cast<long>(k);
    pgas::sync_memory();
  }
}

// Collective: whether image 0's last write of pgas_puts landed at its neighbour.
bool pgas_puts_landed(const pgas::array<long>& a, std::size_t ops) {
  pgas::sync_all();
  const bool ok =
      pgas::this_image() != written_image() || a.local()[0] == static_cast<long>(ops - 1);
  return pgas::co_min(ok ? 1 : 0) == 1;
}

// The same by hand: MPI_Put + MPI_Win_flush, with MPI_Win_sync after each if `win_sync` (what
// sync_memory() also does: it orders this image's local loads and stores too).
void raw_puts(const raw_window& w, std::size_t ops, bool win_sync) {
  if (pgas::this_image() != 0)
    return;
  for (std::size_t k = 0; k < ops; ++k) {
    const long v = static_cast<long>(k);
    MPI_Put(&v, 1, MPI_LONG, right(), 0, 1, MPI_LONG, w.win);
    MPI_Win_flush(right(), w.win);
    if (win_sync)
      MPI_Win_sync(w.win);
  }
}

// Collective: raw_puts once more on a cleared target, and whether its last put landed.
bool raw_puts_land(const raw_window& w, std::size_t ops, bool win_sync) {
  *w.base = -1;
  MPI_Win_sync(w.win);
  MPI_Barrier(MPI_COMM_WORLD);
  raw_puts(w, ops, win_sync);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(w.win);
  const bool landed =
      pgas::this_image() != written_image() || *w.base == static_cast<long>(ops - 1);
  return pgas::co_min(landed ? 1 : 0) == 1;
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "micro benchmarks: pgas vs raw MPI",
                           {{"ops", "200000"},
                            {"bulk_reps", "200"},
                            {"stream", "10000000"},
                            {"arrays", "2000"},
                            {"reductions", "20000"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const int reps = static_cast<int>(opt.get("reps"));
  const std::size_t ops = opt.size("ops");
  const std::size_t p = pgas::num_images();
  std::vector<bench::result> results;
  const std::string ops_size = "ops=" + std::to_string(ops);

  // Every pair runs interleaved (pgas, MPI, pgas, MPI, ...), so noise hits both alike.
  bench::progress("micro: element put");
  {
    // The element image 0's right neighbour owns; image 0 writes it and completes each write.
    pgas::array<long> a(p);
    raw_window w(1);
    // The third variant shows where the difference goes: sync_memory() also orders this
    // image's local loads and stores (MPI_Win_sync), which MPI_Put + flush alone does not.
    const auto t = bench::interleaved_medians(
        reps, {[&] { pgas_puts(a, ops); }, [&] { raw_puts(w, ops, false); },
               [&] { raw_puts(w, ops, true); }});
    const auto rate = [&](double seconds) { return static_cast<double>(ops) / seconds; };
    results.push_back(bench::report("put", "pgas", ops_size, t[0], rate(t[0]), "ops/s",
                                    pgas_puts_landed(a, ops)));
    results.push_back(bench::report("put", "mpi_put_flush", ops_size, t[1], rate(t[1]), "ops/s",
                                    raw_puts_land(w, ops, false)));
    results.push_back(bench::report("put", "mpi_put_flush_win_sync", ops_size, t[2], rate(t[2]),
                                    "ops/s", raw_puts_land(w, ops, true)));
  }

  bench::progress("micro: element put, 100 more arrays live");
  {
    // The same puts where a program keeps many arrays: a sync point completes only the windows
    // written since the last one, so the untouched arrays cost it nothing.
    std::vector<std::unique_ptr<pgas::array<double>>> untouched;
    for (int k = 0; k < 100; ++k) untouched.push_back(std::make_unique<pgas::array<double>>(p));
    pgas::array<long> a(p);
    raw_window w(1);
    const auto t = bench::interleaved_medians(
        reps, {[&] { pgas_puts(a, ops); }, [&] { raw_puts(w, ops, false); }});
    const auto rate = [&](double seconds) { return static_cast<double>(ops) / seconds; };
    results.push_back(bench::report("put_100_arrays_live", "pgas", ops_size, t[0], rate(t[0]),
                                    "ops/s", pgas_puts_landed(a, ops)));
    results.push_back(bench::report("put_100_arrays_live", "mpi_put_flush", ops_size, t[1],
                                    rate(t[1]), "ops/s", raw_puts_land(w, ops, false)));
  }

  bench::progress("micro: element get");
  {
    pgas::array<long> a(p, pgas::block{}, 42L);
    raw_window w(1);
    w.base[0] = 42;
    MPI_Win_sync(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    const auto target = static_cast<std::size_t>(right());
    long sum = 0;
    long sum_mpi = 0;
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          sum = 0;
          for (std::size_t k = 0; k < ops; ++k) sum += a[target];
        },
        [&] {
          sum_mpi = 0;
          for (std::size_t k = 0; k < ops; ++k) {
            long v = 0;
            MPI_Get(&v, 1, MPI_LONG, right(), 0, 1, MPI_LONG, w.win);
            MPI_Win_flush_local(right(), w.win);
            sum_mpi += v;
          }
        });
    const long want = 42L * static_cast<long>(ops);
    results.push_back(bench::report("get", "pgas", ops_size, t, static_cast<double>(ops) / t,
                                    "ops/s", pgas::co_min(sum == want ? 1 : 0) == 1));
    results.push_back(bench::report("get", "mpi_get_flush_local", ops_size, t_mpi,
                                    static_cast<double>(ops) / t_mpi, "ops/s",
                                    pgas::co_min(sum_mpi == want ? 1 : 0) == 1));
  }

  bench::progress("micro: 1 MiB bulk put");
  {
    const std::size_t bulk_reps = opt.size("bulk_reps");
    const double bulk_bytes = static_cast<double>(bulk_reps * bulk_doubles * sizeof(double));
    pgas::coarray<double[bulk_doubles]> h;
    double* base = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>(bulk_doubles * sizeof(double)), sizeof(double),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    std::fill_n(base, bulk_doubles, 0.0);  // touched, as the coarray's memory is
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    auto src = std::make_unique<std::array<double, bulk_doubles>>();
    std::iota(src->begin(), src->end(), 0.0);
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < bulk_reps; ++k) {
            h(static_cast<std::size_t>(right())) = *src;
            pgas::sync_memory();
          }
        },
        [&] {
          for (std::size_t k = 0; k < bulk_reps; ++k) {
            MPI_Put(src->data(), static_cast<int>(bulk_doubles), MPI_DOUBLE, right(), 0,
                    static_cast<int>(bulk_doubles), MPI_DOUBLE, win);
            MPI_Win_flush(right(), win);
          }
        });
    pgas::sync_all();
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    const bool ok = h[bulk_doubles - 1] == static_cast<double>(bulk_doubles - 1);
    const bool ok_mpi = base[bulk_doubles - 1] == static_cast<double>(bulk_doubles - 1);
    MPI_Win_free(&win);
    const std::string size = "reps=" + std::to_string(bulk_reps);
    results.push_back(bench::report("bulk_put_1MiB", "pgas", size, t, bulk_bytes / t * 1e-9, "GB/s",
                                    pgas::co_min(ok ? 1 : 0) == 1));
    results.push_back(bench::report("bulk_put_1MiB", "mpi_put_flush", size, t_mpi,
                                    bulk_bytes / t_mpi * 1e-9, "GB/s",
                                    pgas::co_min(ok_mpi ? 1 : 0) == 1));
  }

  bench::progress("micro: 1 MiB bulk get spanning two images");
  {
    // Image 0 reads the last half of its own part and the first half of its right
    // neighbour's: pgas::get of one range, against the two MPI_Gets a programmer would write.
    const std::size_t bulk_reps = opt.size("bulk_reps");
    const double bulk_bytes = static_cast<double>(bulk_reps * bulk_doubles * sizeof(double));
    pgas::array<double> a(bulk_doubles * p);
    for (std::size_t k = 0; k < a.local().size(); ++k)
      a.local()[k] = static_cast<double>(a.global_index(k));
    double* base = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>(bulk_doubles * sizeof(double)), sizeof(double),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (std::size_t k = 0; k < bulk_doubles; ++k)
      base[k] = static_cast<double>(pgas::this_image() * bulk_doubles + k);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    pgas::sync_all();
    const std::size_t half = bulk_doubles / 2;
    const std::size_t first = pgas::this_image() * bulk_doubles + half;  // wraps for the last image
    const std::size_t mine = p == 1 ? bulk_doubles - half : half;
    std::vector<double> out(bulk_doubles);
    std::vector<double> out_mpi(bulk_doubles);
    const std::size_t start = first + bulk_doubles <= a.size() ? first : 0;
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          if (pgas::this_image() != 0)
            return;
          for (std::size_t k = 0; k < bulk_reps; ++k) pgas::get(a, start, std::span<double>(out));
        },
        [&] {
          if (pgas::this_image() != 0)
            return;
          for (std::size_t k = 0; k < bulk_reps; ++k) {
            MPI_Get(out_mpi.data(), static_cast<int>(mine), MPI_DOUBLE, 0,
                    static_cast<MPI_Aint>(half), static_cast<int>(mine), MPI_DOUBLE, win);
            if (p > 1) {
              MPI_Get(out_mpi.data() + mine, static_cast<int>(bulk_doubles - mine), MPI_DOUBLE, 1,
                      0, static_cast<int>(bulk_doubles - mine), MPI_DOUBLE, win);
            }
            MPI_Win_flush_local_all(win);
          }
        });
    bool ok = true;
    if (pgas::this_image() == 0) {
      for (std::size_t k = 0; k < bulk_doubles; ++k) {
        ok = ok && out[k] == static_cast<double>(start + k) && out_mpi[k] == out[k];
      }
    }
    pgas::sync_all();
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    const std::string size = "reps=" + std::to_string(bulk_reps);
    results.push_back(bench::report("bulk_get_1MiB_two_images", "pgas", size, t,
                                    bulk_bytes / t * 1e-9, "GB/s", pgas::co_min(ok ? 1 : 0) == 1));
    results.push_back(bench::report("bulk_get_1MiB_two_images", "mpi_get_flush_local", size, t_mpi,
                                    bulk_bytes / t_mpi * 1e-9, "GB/s",
                                    pgas::co_min(ok ? 1 : 0) == 1));
  }
  bench::progress("micro: strided get of 4096 doubles");
  {
    // Every 4th double of the right neighbour's part: pgas::get_strided against one MPI_Get
    // with a vector datatype.
    constexpr std::size_t count = 4096;
    constexpr std::size_t stride = 4;
    const std::size_t strided_reps = 20 * opt.size("bulk_reps");
    pgas::array<double> a(count * stride * p);
    for (std::size_t k = 0; k < a.local().size(); ++k)
      a.local()[k] = static_cast<double>(a.global_index(k));
    double* base = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>(count * stride * sizeof(double)), sizeof(double),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (std::size_t k = 0; k < count * stride; ++k)
      base[k] = static_cast<double>(pgas::this_image() * count * stride + k);
    MPI_Datatype every_fourth;
    MPI_Type_vector(static_cast<int>(count), 1, static_cast<int>(stride), MPI_DOUBLE,
                    &every_fourth);
    MPI_Type_commit(&every_fourth);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    pgas::sync_all();
    const auto target = static_cast<std::size_t>(right());
    std::vector<double> out(count);
    std::vector<double> out_mpi(count);
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < strided_reps; ++k) {
            pgas::get_strided(a, target * count * stride, stride, std::span<double>(out));
          }
        },
        [&] {
          for (std::size_t k = 0; k < strided_reps; ++k) {
            MPI_Get(out_mpi.data(), static_cast<int>(count), MPI_DOUBLE, right(), 0, 1,
                    every_fourth, win);
            MPI_Win_flush_local(right(), win);
          }
        });
    bool ok = true;
    for (std::size_t k = 0; k < count; ++k) {
      ok = ok && out[k] == static_cast<double>(target * count * stride + k * stride) &&
           out_mpi[k] == out[k];
    }
    pgas::sync_all();
    MPI_Win_unlock_all(win);
    MPI_Type_free(&every_fourth);
    MPI_Win_free(&win);
    const double bytes = static_cast<double>(strided_reps * count * sizeof(double));
    const std::string size = "count=4096,stride=4,reps=" + std::to_string(strided_reps);
    results.push_back(bench::report("strided_get_4096", "pgas", size, t, bytes / t * 1e-9, "GB/s",
                                    pgas::co_min(ok ? 1 : 0) == 1));
    results.push_back(bench::report("strided_get_4096", "mpi_get_vector_type", size, t_mpi,
                                    bytes / t_mpi * 1e-9, "GB/s", pgas::co_min(ok ? 1 : 0) == 1));
  }
  bench::progress("micro: STREAM triad");
  {
    const std::size_t n = opt.size("stream");
    const double triad_bytes = 3.0 * sizeof(double) * static_cast<double>(n);
    pgas::array<double> a(n * p), b(n * p, pgas::block{}, 1.0), c(n * p, pgas::block{}, 2.0);
    auto la = a.local();
    auto lb = b.local();
    auto lc = c.local();
    std::vector<double> va(n), vb(n, 1.0), vc(n, 2.0);
    const auto [t, t_std] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < la.size(); ++k) la[k] = lb[k] + 3.0 * lc[k];
        },
        [&] {
          for (std::size_t k = 0; k < va.size(); ++k) va[k] = vb[k] + 3.0 * vc[k];
        });
    const std::string size = "elements_per_image=" + std::to_string(n);
    results.push_back(bench::report("stream_triad", "pgas_local", size, t, triad_bytes / t * 1e-9,
                                    "GB/s/image", pgas::co_min(la[0] == 7.0 ? 1 : 0) == 1));
    results.push_back(bench::report("stream_triad", "std_vector", size, t_std,
                                    triad_bytes / t_std * 1e-9, "GB/s/image",
                                    pgas::co_min(va[0] == 7.0 ? 1 : 0) == 1));
  }

  bench::progress("micro: scalar co_sum");
  {
    // One double summed over the images, again and again (a solver's convergence test): each
    // call's result must be the image count, on every image.
    const std::size_t calls = opt.size("reductions");
    const auto images = static_cast<double>(p);
    bool pgas_ok = true;
    bool mpi_ok = true;
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < calls; ++k) pgas_ok = pgas::co_sum(1.0) == images && pgas_ok;
        },
        [&] {
          for (std::size_t k = 0; k < calls; ++k) {
            const double one = 1.0;
            double sum = 0.0;
            MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            mpi_ok = sum == images && mpi_ok;
          }
        });
    const std::string size = "calls=" + std::to_string(calls);
    report_calls(results, "co_sum_scalar", "mpi_allreduce", size, calls, "calls/s", t, t_mpi,
                 pgas_ok, mpi_ok);
  }

  bench::progress("micro: co_sum of 8 doubles, sync_all");
  {
    // Eight doubles summed over the images (a solver's norms and residuals at once), and a
    // barrier, again and again.
    const std::size_t calls = opt.size("reductions");
    const auto images = static_cast<double>(p);
    bool pgas_ok = true;
    bool mpi_ok = true;
    const auto all_images = [images](const std::array<double, 8>& v) {
      return std::all_of(v.begin(), v.end(), [images](double x) { return x == images; });
    };
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < calls; ++k) {
            std::array<double, 8> v;
            v.fill(1.0);
            pgas::co_sum(std::span<double>(v));
            pgas_ok = all_images(v) && pgas_ok;
          }
        },
        [&] {
          for (std::size_t k = 0; k < calls; ++k) {
            std::array<double, 8> v;
            v.fill(1.0);
            MPI_Allreduce(MPI_IN_PLACE, v.data(), 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            mpi_ok = all_images(v) && mpi_ok;
          }
        });
    const std::string size = "calls=" + std::to_string(calls) + ",doubles=8";
    report_calls(results, "co_sum_8_doubles", "mpi_allreduce", size, calls, "calls/s", t, t_mpi,
                 pgas_ok, mpi_ok);
    // A barrier has no result to check; each variant's calls all returned.
    const auto [t_sync, t_barrier] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < calls; ++k) pgas::sync_all();
        },
        [&] {
          for (std::size_t k = 0; k < calls; ++k) MPI_Barrier(MPI_COMM_WORLD);
        });
    report_calls(results, "sync_all", "mpi_barrier", "calls=" + std::to_string(calls), calls,
                 "calls/s", t_sync, t_barrier, true, true);
  }

  bench::progress("micro: array construction + destruction");
  {
    const std::size_t arrays = opt.size("arrays");
    // Each array must be usable: this image's 1024 elements, the ends zero as a new array's are
    // (a kept window reused without clearing would show), and every MPI call must succeed.
    bool pgas_ok = true;
    bool mpi_ok = true;
    const auto [t, t_mpi] = bench::interleaved_medians(
        reps,
        [&] {
          for (std::size_t k = 0; k < arrays; ++k) {
            pgas::array<double> a(1024 * p);
            const auto mine = a.local();
            pgas_ok = pgas_ok && mine.size() == 1024 && mine.front() == 0.0 && mine.back() == 0.0;
            mine.front() = 1.0;
            mine.back() = 1.0;
          }
        },
        [&] {
          for (std::size_t k = 0; k < arrays; ++k) {
            double* base = nullptr;
            MPI_Win win;
            mpi_ok = MPI_Win_allocate(1024 * sizeof(double), sizeof(double), MPI_INFO_NULL,
                                      MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS &&
                     base != nullptr && MPI_Win_free(&win) == MPI_SUCCESS && mpi_ok;
          }
        });
    const std::string size = "arrays=" + std::to_string(arrays) + ",elements_per_image=1024";
    report_calls(results, "array_lifecycle", "mpi_win_allocate_free", size, arrays, "arrays/s", t,
                 t_mpi, pgas_ok, mpi_ok);
  }
  return bench::summarize(results, "pgas") + bench::summarize(results, "pgas_local");
}
