#pragma once
// The Parallel Research Kernels' Synch_p2p on pgas, shared by the synch_p2p example and its
// benchmark. An m x n grid, A(0, j) = j and A(i, 0) = i, swept as
// A(i, j) = A(i-1, j) + A(i, j-1) - A(i-1, j-1): a wavefront. The columns are split in blocks
// over the images; each image keeps its block row by row, and the column left of it in a ghost
// column of its own. Before row i an image needs A(i, first column - 1), which its left
// neighbour stores into that ghost column and announces with one event post per group of rows:
// point-to-point, no barrier. The ghost column is a coarray apart from the grid, its cells
// contiguous: the neighbour's stores then fill one cache line per eight rows, where a ghost cell
// at the head of each row (as PRK's MPI program receives into) would take a line of the grid
// from the image computing it at every row — on the neighbour's path, row after row. After
// each sweep the last image hands A(m-1, n-1) to image 0, which sets A(0, 0) to its negative
// (PRK's corner feedback, which orders the sweeps). After iterations + 1 sweeps A(m-1, n-1) is
// (iterations + 1)(m + n - 2).

#include <pgas/pgas.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace prk {

class synch_p2p {
 public:
  /// Collective. m, n >= 2; group >= 1 rows per post.
  synch_p2p(std::size_t m, std::size_t n, std::size_t group)
      : m_{m},
        group_{group},
        columns_{pgas::block{}.bind(n, pgas::num_images())},
        width_{max_width(columns_)},
        local_width_{columns_.local_size(me())},
        grid_(m * width_),
        ghosts_(m) {
    const std::size_t first = columns_.first_of(me());
    for (std::size_t j = 0; j < local_width_; ++j) at(0, j) = static_cast<double>(first + j);
    for (std::size_t i = 0; i < m_; ++i)
      ghost(i) = first == 0 ? 0.0 : static_cast<double>(first - 1);
    if (first == 0) {
      for (std::size_t i = 0; i < m_; ++i) at(i, 0) = static_cast<double>(i);
    }
    pgas::sync_all();
  }

  /// One sweep over the grid. Collective in effect: every image takes part, but images only
  /// wait for their left neighbour (and image 0 for the last image's corner).
  void sweep() {
    const std::size_t p = pgas::num_images();
    const bool first_image = me() == 0;
    const bool last_image = me() + 1 == p;
    if (first_image && sweeps_ > 0)
      corner_ready_.wait();                                         // A(0, 0) = -corner has arrived
    const std::size_t from = columns_.first_of(me()) == 0 ? 1 : 0;  // column 0 is fixed
    std::int64_t ready = 0;  // row groups the left neighbour has announced and this image not used
    for (std::size_t i0 = 1; i0 < m_; i0 += group_) {
      const std::size_t i1 = std::min(m_, i0 + group_);
      if (!first_image && ready == 0) {
        // The left neighbour's ghost values for rows i0..i1: take every announcement already
        // made in one wait (as Fortran's event_query + event wait until_count), at least one.
        const std::size_t left_to_do = (m_ - i0 + group_ - 1) / group_;
        ready =
            std::clamp<std::int64_t>(row_ready_.query(), 1, static_cast<std::int64_t>(left_to_do));
        row_ready_.wait(ready);
      }
      if (!first_image)
        --ready;
      for (std::size_t i = i0; i < i1; ++i) {
        double left = from == 0 ? ghost(i) : at(i, 0);
        double up_left = from == 0 ? ghost(i - 1) : at(i - 1, 0);
        const double* up = &at(i - 1, 0);
        double* row = &at(i, 0);
        for (std::size_t j = from; j < local_width_; ++j) {
          const double v = up[j] + left - up_left;
          row[j] = v;
          up_left = up[j];
          left = v;
        }
      }
      if (!last_image) {
        for (std::size_t i = i0; i < i1; ++i) ghosts_(me() + 1)[i] = at(i, local_width_ - 1);
        row_ready_.post(me() + 1);
      }
    }
    if (last_image) {
      // Image 0's A(0, 0) is the first cell of its block.
      grid_(0)[0] = -at(m_ - 1, local_width_ - 1);
      corner_ready_.post(0);
    }
    ++sweeps_;
  }

  /// A(m-1, n-1), on every image. Collective.
  [[nodiscard]] double corner() {
    const double mine = me() + 1 == pgas::num_images() ? at(m_ - 1, local_width_ - 1) : 0.0;
    return pgas::co_broadcast(mine, pgas::num_images() - 1);
  }

 private:
  static std::size_t me() { return pgas::this_image(); }
  static std::size_t max_width(const pgas::block& d) {
    std::size_t w = 0;
    for (std::size_t img = 0; img < d.images(); ++img) w = std::max(w, d.local_size(img));
    return w;
  }
  // A(i, first column - 1), as the left neighbour stored it.
  double& ghost(std::size_t i) { return ghosts_.local()[i]; }
  // Row i of this image's block: local_width_ cells of a row width_ long.
  double& at(std::size_t i, std::size_t j) { return grid_.local()[i * width_ + j]; }

  std::size_t m_;
  std::size_t group_;
  pgas::block columns_;
  std::size_t width_;        // the widest block, so every image's copy has the same size
  std::size_t local_width_;  // this image's block (a member: the inner loop must not call out)
  pgas::coarray<double[]> grid_;
  pgas::coarray<double[]> ghosts_;  // A(i, first column - 1) for every row i
  pgas::event row_ready_;
  pgas::event corner_ready_;
  std::size_t sweeps_ = 0;
};

}  // namespace prk
