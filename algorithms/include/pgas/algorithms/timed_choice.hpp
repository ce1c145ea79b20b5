#pragma once
// A choice between two ways of doing one collective job where which is faster depends on the
// MPI and the network beneath, not on anything a rule could read: a transpose's blocks read by
// gets run level with hand-written sends under Open MPI between two hosts over TCP and at half
// their speed under MPICH's UCX (bench/README). So the first calls of a job take each way in
// turn, twice (the first call of a way also pays for its buffers), each timed as its slowest
// image took it; the later calls keep the way whose better time was lower — measured on the
// machine in use, at run time, for this job's shape.

#include <pgas/runtime/collective.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <limits>
#include <map>
#include <span>

namespace pgas::detail {

class timed_choice {
 public:
  static constexpr int trials_of_each_way = 2;

  /// The way this call takes, 0 or 1: the same on every image of the job's team, since every
  /// image records the same agreed times.
  [[nodiscard]] int way() const noexcept { return chosen_ >= 0 ? chosen_ : trials_ % 2; }
  /// True while the calls are still timed.
  [[nodiscard]] bool measuring() const noexcept { return chosen_ < 0; }

  /// Runs job(way()), which returns whether this image's part of it depended on the way at all
  /// (moved data the ways move differently). While measuring, times it and agrees over comm on
  /// the slowest image's time, and on whether any image's part depended on the way, for
  /// record(). Collective over comm while measuring; local after.
  template <class Job>
  void run(MPI_Comm comm, Job job) {
    if (!measuring()) {
      (void)job(chosen_);
      return;
    }
    const int w = way();
    const auto start = std::chrono::steady_clock::now();
    const bool depended = job(w);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::array<double, 2> agreed{took.count(), depended ? 1.0 : 0.0};
    runtime::reduce_in_place(std::span<double>(agreed), runtime::reduce_op::max, -1, comm);
    record(agreed[0], agreed[1] != 0.0);
  }

  /// Records a call that took way(): `slowest_seconds` on its slowest image; `depended` if any
  /// image's part depended on the way. Where none did, keeps way 0 with no more trials (the
  /// job moves nothing either way could move faster). After trials_of_each_way of each, keeps
  /// the way whose better time was lower. Local.
  void record(double slowest_seconds, bool depended) {
    if (!measuring())
      return;
    if (!depended) {
      chosen_ = 0;
      return;
    }
    auto& best = best_[static_cast<std::size_t>(way())];
    best = std::min(best, slowest_seconds);
    if (++trials_ == 2 * trials_of_each_way)
      chosen_ = best_[1] < best_[0] ? 1 : 0;
  }

 private:
  std::array<double, 2> best_{std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::infinity()};
  int trials_ = 0;
  int chosen_ = -1;
};

/// The choice for the job `key` names (a value every image of its team forms alike), kept for
/// the process's life. Local.
template <class Key>
[[nodiscard]] timed_choice& timed_choice_for(const Key& key) {
  static std::map<Key, timed_choice> choices;
  return choices[key];
}

}  // namespace pgas::detail
