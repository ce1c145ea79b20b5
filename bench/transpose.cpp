// PRK Transpose (B += Aᵀ, A += 1, order x order): pgas::transpose on ndarrays beside a
// hand-written MPI version as PRK's MPI1 one works (column blocks, MPI_Alltoall of square blocks,
// then each received block transposed into B; here in cache-sized tiles, as PRK's tiled kernels
// do), and PRK's own MPI1 algorithm (blocks transposed at the sender, one Isend/Irecv per
// phase). All verify B against PRK's formula.
#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <cmath>
#include <pgas_programs/prk_transpose.hpp>
#include <string>
#include <vector>

namespace {

// PRK's MPI1 transpose with MPI_Alltoall: rank r owns columns [r b, (r + 1) b) of A and of B
// (b = order / ranks), stored row by row, b wide.
class mpi_transpose {
 public:
  explicit mpi_transpose(std::size_t order) : order_{order} {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    block_ = order_ / static_cast<std::size_t>(size_);
    a_.resize(order_ * block_);
    b_.assign(order_ * block_, 0.0);
    work_.resize(order_ * block_);
    const std::size_t first = static_cast<std::size_t>(rank_) * block_;
    for (std::size_t i = 0; i < order_; ++i) {
      for (std::size_t j = 0; j < block_; ++j)
        a_[i * block_ + j] = static_cast<double>(order_ * i + first + j);
    }
  }
  mpi_transpose(const mpi_transpose&) = delete;
  mpi_transpose& operator=(const mpi_transpose&) = delete;
  ~mpi_transpose() { MPI_Comm_free(&comm_); }

  void iterate() {
    const int count = static_cast<int>(block_ * block_);
    // Rows [p b, (p + 1) b) of my columns go to rank p, where they become its columns' rows
    // [r b, ...) transposed.
    MPI_Alltoall(a_.data(), count, MPI_DOUBLE, work_.data(), count, MPI_DOUBLE, comm_);
    constexpr std::size_t tile = 32;
    for (int p = 0; p < size_; ++p) {
      const std::size_t lo = static_cast<std::size_t>(p) * block_ * block_;
      for (std::size_t i0 = 0; i0 < block_; i0 += tile) {
        for (std::size_t j0 = 0; j0 < block_; j0 += tile) {
          for (std::size_t i = i0; i < std::min(block_, i0 + tile); ++i) {
            for (std::size_t j = j0; j < std::min(block_, j0 + tile); ++j) {
              b_[lo + i * block_ + j] += work_[lo + j * block_ + i];
            }
          }
        }
      }
    }
    for (double& x : a_) x += 1.0;
    ++done_;
  }
  /// PRK's MPI1 Transpose itself: the diagonal block transposed into B in tiles, A += 1 in the
  /// same sweep; then, phase by phase, the block for rank me - phase is transposed into a send
  /// buffer (A += 1 again in the same sweep), exchanged with Isend/Irecv, and the block received
  /// from rank me + phase added to B as it is, no transpose on that side.
  void iterate_by_phases() {
    const auto me = static_cast<std::size_t>(rank_);
    const auto p = static_cast<std::size_t>(size_);
    const int count = static_cast<int>(block_ * block_);
    transposed_plus_one(me, b_.data() + me * block_ * block_, true);
    out_.resize(block_ * block_);
    for (std::size_t phase = 1; phase < p; ++phase) {
      const std::size_t from = (me + phase) % p;
      const std::size_t to = (me + p - phase) % p;
      MPI_Request requests[2];
      MPI_Irecv(work_.data(), count, MPI_DOUBLE, static_cast<int>(from), static_cast<int>(phase),
                comm_, &requests[0]);
      transposed_plus_one(to, out_.data(), false);
      MPI_Isend(out_.data(), count, MPI_DOUBLE, static_cast<int>(to), static_cast<int>(phase),
                comm_, &requests[1]);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
      double* into = b_.data() + from * block_ * block_;
      for (std::size_t k = 0; k < block_ * block_; ++k) into[k] += work_[k];
    }
    ++done_;
  }
  [[nodiscard]] double error() {
    const auto e = static_cast<double>(done_);
    const std::size_t first = static_cast<std::size_t>(rank_) * block_;
    double sum = 0;
    for (std::size_t i = 0; i < order_; ++i) {
      for (std::size_t j = 0; j < block_; ++j) {
        sum += std::fabs(b_[i * block_ + j] -
                         (static_cast<double>(order_ * (first + j) + i) * e + e * (e - 1) / 2));
      }
    }
    double total = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, comm_);
    return total;
  }

 private:
  // A's rows [r b, (r + 1) b) (a b x b block) transposed into `into` (b wide), added there or
  // stored, and A += 1 over the block in the same sweep; in 32 x 32 tiles, as PRK's tiled kernel.
  void transposed_plus_one(std::size_t r, double* into, bool add) {
    constexpr std::size_t tile = 32;
    double* a = a_.data() + r * block_ * block_;
    for (std::size_t i0 = 0; i0 < block_; i0 += tile) {
      for (std::size_t j0 = 0; j0 < block_; j0 += tile) {
        for (std::size_t i = i0; i < std::min(block_, i0 + tile); ++i) {
          for (std::size_t j = j0; j < std::min(block_, j0 + tile); ++j) {
            into[j * block_ + i] = (add ? into[j * block_ + i] : 0.0) + a[i * block_ + j];
            a[i * block_ + j] += 1.0;
          }
        }
      }
    }
  }

  std::size_t order_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::size_t block_ = 0;
  std::vector<double> a_;
  std::vector<double> b_;
  std::vector<double> work_;
  std::vector<double> out_;
  std::size_t done_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv,
                           "PRK Transpose: pgas::transpose vs MPI_Alltoall of column blocks",
                           {{"order", "4000"}, {"iterations", "5"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  // PRK's MPI version needs the order to be a multiple of the ranks.
  const std::size_t p = pgas::num_images();
  const std::size_t order = std::max<std::size_t>(p, opt.size("order") / p * p);
  const std::size_t iterations = std::max<std::size_t>(1, opt.size("iterations"));
  prk::transpose pgas_kernel(order, pgas::grid({1, p}));
  mpi_transpose mpi_kernel(order);
  mpi_transpose phases_kernel(order);
  pgas_kernel.iterate();  // PRK's untimed first iteration
  mpi_kernel.iterate();
  phases_kernel.iterate_by_phases();
  const auto pgas_pass = [&] {
    for (std::size_t k = 0; k < iterations; ++k) pgas_kernel.iterate();
  };
  const auto mpi_pass = [&] {
    for (std::size_t k = 0; k < iterations; ++k) mpi_kernel.iterate();
  };
  const auto phases_pass = [&] {
    for (std::size_t k = 0; k < iterations; ++k) phases_kernel.iterate_by_phases();
  };
  const int reps = static_cast<int>(opt.get("reps"));
  const std::vector<double> medians =
      bench::interleaved_medians(reps, {pgas_pass, mpi_pass, phases_pass});
  const double pgas_s = medians[0];
  const double mpi_s = medians[1];
  const double phases_s = medians[2];
  const bool pgas_ok = pgas_kernel.error() < prk::transpose::epsilon;
  const bool mpi_ok = mpi_kernel.error() < prk::transpose::epsilon;
  const bool phases_ok = phases_kernel.error() < prk::transpose::epsilon;
  const std::string size =
      "order=" + std::to_string(order) + ",iterations=" + std::to_string(iterations);
  const double bytes = pgas_kernel.bytes() * static_cast<double>(iterations);
  std::vector<bench::result> results;
  results.push_back(
      bench::report("transpose", "pgas", size, pgas_s, bytes / pgas_s * 1e-6, "MB/s", pgas_ok));
  results.push_back(bench::report("transpose", "mpi_alltoall", size, mpi_s, bytes / mpi_s * 1e-6,
                                  "MB/s", mpi_ok));
  results.push_back(bench::report("transpose", "mpi_prk_phases", size, phases_s,
                                  bytes / phases_s * 1e-6, "MB/s", phases_ok));
  return bench::summarize(results, "pgas");
}
