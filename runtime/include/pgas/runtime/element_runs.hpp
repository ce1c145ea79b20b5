#pragma once
// Runs of consecutive elements: how a transfer of many scattered elements is described at either
// end, whatever carries it (a derived datatype, runs.hpp; a message to the owner,
// owner_updates.hpp).

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace pgas::runtime {

/// Runs of elements from a base: run k covers `lengths[k]` elements from element `starts[k]`.
/// Element order is run order, then order within a run; origin and target runs of one transfer
/// pair their elements in that order.
class element_runs {
 public:
  /// Appends `length` elements from `start`, joining the last run when it ends at `start`.
  void add(MPI_Aint start, std::size_t length) {
    if (length == 0)
      return;
    if (!starts_.empty() && starts_.back() + static_cast<MPI_Aint>(lengths_.back()) == start) {
      lengths_.back() += length;
    } else {
      starts_.push_back(start);
      lengths_.push_back(length);
    }
    elements_ += length;
  }
  /// Moves every start by `delta` elements.
  void shift(MPI_Aint delta) {
    for (MPI_Aint& s : starts_) s += delta;
  }
  [[nodiscard]] const std::vector<MPI_Aint>& starts() const noexcept { return starts_; }
  [[nodiscard]] const std::vector<std::size_t>& lengths() const noexcept { return lengths_; }
  [[nodiscard]] std::size_t elements() const noexcept { return elements_; }
  [[nodiscard]] bool empty() const noexcept { return elements_ == 0; }
  /// True for one run, or runs of equal length at equal spacing (a strided pattern, which one
  /// vector datatype describes whatever its length).
  [[nodiscard]] bool equally_spaced() const noexcept {
    for (std::size_t k = 2; k < starts_.size(); ++k) {
      if (lengths_[k] != lengths_[0] || starts_[k] - starts_[k - 1] != starts_[1] - starts_[0])
        return false;
    }
    return starts_.size() < 2 || lengths_[1] == lengths_[0];
  }
  /// The lowest start, and one past the highest element touched.
  [[nodiscard]] MPI_Aint lowest() const noexcept;
  [[nodiscard]] MPI_Aint end() const noexcept;

 private:
  std::vector<MPI_Aint> starts_;
  std::vector<std::size_t> lengths_;
  std::size_t elements_ = 0;
};

namespace detail {
// Calls f(origin element, target element) for each pair the two runs make, in order (both carry
// the same number of elements), and touch(target element) some target runs ahead: target runs
// are often single random elements (scattered and aggregated updates), and asking for their
// cache lines early lets the memory accesses overlap instead of waiting one after another.
// in_pieces(n, body) calls body(first, last, ahead) over the target runs [0, n) in order, each
// piece asking `ahead` runs ahead (none if 0): ask_ahead.hpp's for_each_piece_asking_ahead, or
// one piece asking nothing.
template <class F, class InPieces, class Touch>
void for_each_paired_element(
    const element_runs& origin, const element_runs& target, F f, InPieces in_pieces, Touch touch) {
  const auto& t_starts = target.starts();
  const auto& t_lengths = target.lengths();
  const auto& o_starts = origin.starts();
  const auto& o_lengths = origin.lengths();
  std::size_t o_run = 0;
  std::size_t o_done = 0;  // elements of origin run o_run already paired
  in_pieces(t_starts.size(), [&](std::size_t first, std::size_t last, std::size_t ahead) {
    for (std::size_t t_run = first; t_run < last; ++t_run) {
      if (ahead != 0 && t_run + ahead < t_starts.size())
        touch(t_starts[t_run + ahead]);
      for (std::size_t k = 0; k < t_lengths[t_run];) {
        const std::size_t n = std::min(t_lengths[t_run] - k, o_lengths[o_run] - o_done);
        for (std::size_t j = 0; j < n; ++j) {
          f(o_starts[o_run] + static_cast<MPI_Aint>(o_done + j),
            t_starts[t_run] + static_cast<MPI_Aint>(k + j));
        }
        k += n;
        o_done += n;
        if (o_done == o_lengths[o_run]) {
          ++o_run;
          o_done = 0;
        }
      }
    }
  });
}

// Every pair for_each_paired_element visits, in order: origin positions and target offsets, for
// paths that name elements one by one (a message to the owner).
struct element_pairs {
  std::vector<MPI_Aint> origin;
  std::vector<MPI_Aint> target;
};
inline element_pairs pairs_of(const element_runs& origin, const element_runs& target) {
  element_pairs p;
  p.origin.reserve(origin.elements());
  p.target.reserve(origin.elements());
  for_each_paired_element(
      origin, target,
      [&p](MPI_Aint a, MPI_Aint b) {
        p.origin.push_back(a);
        p.target.push_back(b);
      },
      [](std::size_t n, auto&& body) { body(0, n, 0); }, [](MPI_Aint) {});
  return p;
}
}  // namespace detail

}  // namespace pgas::runtime
