// PRK Synch_p2p (pipelined wavefront, columns split over the images, corner fed back between
// sweeps): pgas with one pgas::event post per row group beside a hand-written MPI version that
// sends each row group's boundary value with MPI_Send / MPI_Recv, as PRK's MPI1 version does.
// Both verify the corner value against PRK's formula.
#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <cmath>
#include <pgas_programs/prk_synch_p2p.hpp>
#include <vector>

namespace {

// PRK's MPI1 algorithm, with the same layout as the pgas version (row-major block of columns
// with a ghost column in front).
class mpi_synch_p2p {
 public:
  mpi_synch_p2p(std::size_t m, std::size_t n, std::size_t group)
      : m_{m}, group_{group}, d_{pgas::block{}.bind(n, pgas::num_images())} {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    width_ = d_.local_size(static_cast<std::size_t>(rank_));
    first_ = d_.first_of(static_cast<std::size_t>(rank_));
    a_.assign(m_ * (width_ + 1), 0.0);
    for (std::size_t j = 0; j < width_; ++j) at(0, j) = static_cast<double>(first_ + j);
    for (std::size_t i = 0; i < m_; ++i)
      ghost(i) = first_ == 0 ? 0.0 : static_cast<double>(first_ - 1);
    if (first_ == 0) {
      for (std::size_t i = 0; i < m_; ++i) at(i, 0) = static_cast<double>(i);
    }
    buffer_.resize(group_);
  }
  mpi_synch_p2p(const mpi_synch_p2p&) = delete;
  mpi_synch_p2p& operator=(const mpi_synch_p2p&) = delete;
  ~mpi_synch_p2p() { MPI_Comm_free(&comm_); }

  void sweep() {
    const bool first_rank = rank_ == 0;
    const bool last_rank = rank_ + 1 == size_;
    if (first_rank && sweeps_ > 0 && !last_rank) {
      double corner = 0;
      MPI_Recv(&corner, 1, MPI_DOUBLE, size_ - 1, 2, comm_, MPI_STATUS_IGNORE);
      at(0, 0) = -corner;
    }
    const std::size_t from = first_ == 0 ? 1 : 0;
    for (std::size_t i0 = 1; i0 < m_; i0 += group_) {
      const std::size_t i1 = std::min(m_, i0 + group_);
      const int count = static_cast<int>(i1 - i0);
      if (!first_rank) {
        MPI_Recv(buffer_.data(), count, MPI_DOUBLE, rank_ - 1, 1, comm_, MPI_STATUS_IGNORE);
        for (std::size_t i = i0; i < i1; ++i) ghost(i) = buffer_[i - i0];
      }
      for (std::size_t i = i0; i < i1; ++i) {
        double left = from == 0 ? ghost(i) : at(i, 0);
        double up_left = from == 0 ? ghost(i - 1) : at(i - 1, 0);
        const double* up = &at(i - 1, 0);
        double* row = &at(i, 0);
        for (std::size_t j = from; j < width_; ++j) {
          const double v = up[j] + left - up_left;
          row[j] = v;
          up_left = up[j];
          left = v;
        }
      }
      if (!last_rank) {
        for (std::size_t i = i0; i < i1; ++i) buffer_[i - i0] = at(i, width_ - 1);
        MPI_Send(buffer_.data(), count, MPI_DOUBLE, rank_ + 1, 1, comm_);
      }
    }
    if (last_rank) {
      const double corner = at(m_ - 1, width_ - 1);
      if (first_rank) {
        at(0, 0) = -corner;
      } else {
        MPI_Send(&corner, 1, MPI_DOUBLE, 0, 2, comm_);
      }
    }
    ++sweeps_;
  }
  [[nodiscard]] double corner() {
    double c = rank_ + 1 == size_ ? at(m_ - 1, width_ - 1) : 0.0;
    MPI_Bcast(&c, 1, MPI_DOUBLE, size_ - 1, comm_);
    return c;
  }

 private:
  double& ghost(std::size_t i) { return a_[i * (width_ + 1)]; }
  double& at(std::size_t i, std::size_t j) { return a_[i * (width_ + 1) + 1 + j]; }
  std::size_t m_;
  std::size_t group_;
  pgas::block d_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::size_t width_ = 0;
  std::size_t first_ = 0;
  std::vector<double> a_;
  std::vector<double> buffer_;
  std::size_t sweeps_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(
      argc, argv, "PRK Synch_p2p: pgas events vs MPI_Send/MPI_Recv per row group",
      {{"rows", "4000"}, {"cols", "4000"}, {"iterations", "10"}, {"group", "1"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const std::size_t m = std::max<std::size_t>(2, opt.size("rows"));
  const std::size_t n = std::max<std::size_t>(pgas::num_images(), opt.size("cols"));
  const std::size_t iterations = std::max<std::size_t>(1, opt.size("iterations"));
  const std::size_t group = std::max<std::size_t>(1, opt.size("group"));
  prk::synch_p2p pgas_grid(m, n, group);
  mpi_synch_p2p mpi_grid(m, n, group);
  const auto pgas_pass = [&] {
    for (std::size_t k = 0; k < iterations; ++k) pgas_grid.sweep();
  };
  const auto mpi_pass = [&] {
    for (std::size_t k = 0; k < iterations; ++k) mpi_grid.sweep();
  };
  const int reps = static_cast<int>(opt.get("reps"));
  // PRK's untimed first sweep before every repetition, as PRK's program has one before its
  // timed sweeps: each repetition starts after the other variant's, as PRK's program never does.
  const std::vector<double> medians =
      bench::interleaved_medians(reps, {pgas_pass, mpi_pass}, [&](std::size_t v) {
        if (v == 0) {
          pgas_grid.sweep();
        } else {
          mpi_grid.sweep();
        }
      });
  const double pgas_s = medians[0];
  const double mpi_s = medians[1];
  // Every sweep adds m + n - 2 to the corner (PRK's validation), whichever variant: each grid
  // swept iterations + 1 times per repetition.
  const double expected =
      static_cast<double>(static_cast<std::size_t>(reps) * (iterations + 1) * (m + n - 2));
  const auto valid = [&](double corner) { return std::fabs(corner - expected) / expected < 1e-8; };
  const bool pgas_ok = valid(pgas_grid.corner());
  const bool mpi_ok = valid(mpi_grid.corner());
  const std::string size = "grid=" + std::to_string(m) + "x" + std::to_string(n) +
                           ",iterations=" + std::to_string(iterations) +
                           ",group=" + std::to_string(group);
  const double flops = 2.0 * static_cast<double>((m - 1) * (n - 1) * iterations);
  std::vector<bench::result> results;
  results.push_back(bench::report("synch_p2p", "pgas_events", size, pgas_s, flops / pgas_s * 1e-6,
                                  "MFlop/s", pgas_ok));
  results.push_back(bench::report("synch_p2p", "mpi_send_recv", size, mpi_s, flops / mpi_s * 1e-6,
                                  "MFlop/s", mpi_ok));
  return bench::summarize(results, "pgas_events");
}
