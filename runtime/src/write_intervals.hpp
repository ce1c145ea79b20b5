#pragma once
// The byte ranges of one target that this process has written since its writes there last
// completed, and how (put or accumulate), so that a later write to the same bytes can wait for
// them: MPI leaves the outcome of a put that overlaps an earlier put or accumulate in the same
// epoch undefined, and orders only accumulates after accumulates (MPI-4.1 §12.7.1, §12.7.2,
// default accumulate_ordering). Private to runtime/src.

#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace pgas::runtime {

class write_intervals {
 public:
  /// Most ranges kept; past that every write waits (a flush empties the list), which bounds
  /// both the memory and the search.
  static constexpr std::size_t capacity = 64;

  /// True when a write of `kind` to bytes [begin, end) must wait for the pending ones: it
  /// overlaps a pending put, or it is a put overlapping a pending accumulate, or the list is full.
  [[nodiscard]] bool must_wait(MPI_Aint begin, MPI_Aint end, write_kind kind) const noexcept {
    if (ranges_.size() == capacity)
      return true;
    return std::any_of(ranges_.begin(), ranges_.end(), [&](const range& r) {
      return r.begin < end && begin < r.end &&
             (r.kind == write_kind::put || kind == write_kind::put);
    });
  }
  /// Records a write that need not wait (must_wait was false). A write that continues the
  /// last range with the same kind extends it: streams of consecutive elements keep one range.
  void record(MPI_Aint begin, MPI_Aint end, write_kind kind) {
    if (!ranges_.empty() && ranges_.back().kind == kind && ranges_.back().end == begin) {
      ranges_.back().end = end;
      return;
    }
    ranges_.push_back({begin, end, kind});
  }
  void clear() noexcept { ranges_.clear(); }

 private:
  struct range {
    MPI_Aint begin;
    MPI_Aint end;
    write_kind kind;
  };
  std::vector<range> ranges_;
};

}  // namespace pgas::runtime
