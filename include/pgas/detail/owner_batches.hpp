#pragma once
// Groups the runs of one image's many-element transfer that MPI carries by owner: runs that lie
// consecutively in this image's buffer and in an owner's memory are joined, and each owner gets
// one operation with a derived datatype per side (or a few, one per max_runs_per_operation
// runs). Which runs come here is locality.hpp's choice (runs in this process's memory are
// copied there).

#include <pgas/detail/internal_only.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/runtime/runs.hpp>

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace pgas::detail {

/// Most runs one derived datatype carries. Past it an owner's elements go as several
/// operations: an MPI implementation builds and walks the whole datatype for one operation.
inline constexpr std::size_t max_runs_per_operation = std::size_t{1} << 16;

/// What one owner reached through MPI receives in one operation: `origin` runs are positions
/// in the caller's buffer, `target` runs element offsets from `first` (the owner's touched
/// element with the lowest address).
template <class T>
struct owner_batch {
  global_ptr<T> first;
  runtime::element_runs origin;
  runtime::element_runs target;
};

/// Collects runs; calls `remote(owner_batch&)` for each owner's batch when it is full and at
/// finish().
template <class T, class Remote>
class owner_batches {
 public:
  explicit owner_batches(Remote remote) : remote_{std::move(remote)} {}

  /// `length` elements from buffer position `position` on, lying in their owner's memory from
  /// `first` on, `step` elements apart (1: consecutively).
  void add(std::size_t position,
           const global_ptr<T>& first,
           std::size_t length,
           std::size_t step = 1) {
    if (length == 0)
      return;
    if (pending_.empty())
      pending_.resize(static_cast<std::size_t>(first.window(internal)->ranks()));
    auto& slot = pending_[first.image()];
    if (!slot) {
      slot = std::make_unique<building>();
      slot->reference = first;
    }
    building& b = *slot;
    // Offsets from the first element seen; shifted to start at 0 before sending.
    const MPI_Aint offset =
        (first.displacement(internal) - b.reference.displacement(internal)) / first.step(internal);
    b.origin.add(static_cast<MPI_Aint>(position), length);
    if (step == 1) {
      b.target.add(offset, length);
    } else {
      for (std::size_t j = 0; j < length; ++j)
        b.target.add(offset + static_cast<MPI_Aint>(j * step), 1);
    }
    if (b.origin.starts().size() >= max_runs_per_operation ||
        b.target.starts().size() >= max_runs_per_operation) {
      send(slot);
    }
  }
  /// Sends every owner's batch. Call once, after the last add().
  void finish() {
    for (auto& slot : pending_) {
      if (slot)
        send(slot);
    }
  }

 private:
  struct building {
    global_ptr<T> reference;
    runtime::element_runs origin;
    runtime::element_runs target;
  };
  void send(std::unique_ptr<building>& slot) {
    building& b = *slot;
    const MPI_Aint lowest = b.target.lowest();
    b.target.shift(-lowest);
    owner_batch<T> batch{b.reference + static_cast<std::ptrdiff_t>(lowest), std::move(b.origin),
                         std::move(b.target)};
    slot.reset();
    remote_(batch);
  }
  std::vector<std::unique_ptr<building>> pending_;
  Remote remote_;
};

}  // namespace pgas::detail
