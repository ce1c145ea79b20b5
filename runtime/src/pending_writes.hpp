#pragma once
// Which targets of one window may still have writes from this process that have not completed
// remotely, and which bytes: a read of such a target must complete them first (MPI does not
// order a put and a later get, MPI-4.1 §12.7.2), so must a write that overlaps them
// (write_intervals.hpp), and a sync point flushes only windows that have any. Private to
// runtime/src.

#include "write_intervals.hpp"
#include <algorithm>
#include <cstddef>
#include <vector>

namespace pgas::runtime {

class pending_writes {
 public:
  /// Tracks `targets` ranks, none pending.
  void reset_for(int targets) {
    flags_.assign(static_cast<std::size_t>(targets), 0);
    written_.assign(static_cast<std::size_t>(targets), write_intervals{});
  }
  /// What this process wrote to `target` since its writes there last completed, in the passive
  /// epoch (phases complete theirs at each fence and keep no record).
  [[nodiscard]] write_intervals& written(int target) {
    return written_[static_cast<std::size_t>(target)];
  }
  void mark(int target) {
    unsigned char& flag = flags_[static_cast<std::size_t>(target)];
    if (flag == 0) {
      flag = 1;
      targets_.push_back(target);
    }
  }
  [[nodiscard]] bool at(int target) const noexcept {
    return flags_[static_cast<std::size_t>(target)] != 0;
  }
  /// The targets marked, in the order first marked.
  [[nodiscard]] const std::vector<int>& targets() const noexcept { return targets_; }
  void clear(int target) noexcept {
    unsigned char& flag = flags_[static_cast<std::size_t>(target)];
    if (flag == 0)
      return;
    flag = 0;
    written_[static_cast<std::size_t>(target)].clear();
    targets_.erase(std::find(targets_.begin(), targets_.end(), target));
  }
  void clear_all() noexcept {
    for (int t : targets_) {
      flags_[static_cast<std::size_t>(t)] = 0;
      written_[static_cast<std::size_t>(t)].clear();
    }
    targets_.clear();
  }

 private:
  std::vector<unsigned char> flags_;      // per target: indexed, so marking costs no search
  std::vector<int> targets_;              // the marked ones, so clearing costs no sweep
  std::vector<write_intervals> written_;  // per target
};

}  // namespace pgas::runtime
