#pragma once
// A bulk-synchronous phase: writes go out without per-operation completion, and fence() ends
// each step for all images at once (MPI_Win_fence).

#include <pgas/runtime/window.hpp>

#include <cstdio>
#include <exception>
#include <functional>
#include <vector>

namespace pgas {

/// Opens a fence phase on the given containers; collective over all images, which must pass
/// the same containers in the same order. Inside, element writes (`a[i] = v`, `+=`) are only
/// started; `fence()` completes one step everywhere. Blocking reads of remote elements are
/// refused inside (use them after the phase). Destruction ends the phase collectively.
class fence_phase {
 public:
  template <class... Containers>
  explicit fence_phase(Containers&... containers) {
    (open(containers.window()), ...);
  }
  fence_phase(const fence_phase&) = delete;
  fence_phase& operator=(const fence_phase&) = delete;
  fence_phase(fence_phase&&) = delete;
  fence_phase& operator=(fence_phase&&) = delete;
  /// Collective: ends the phase; all of its writes are complete and visible.
  ~fence_phase() {
    for (runtime::window& w : windows_) {
      try {
        w.end_fence_phase();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "pgas: ending a fence phase failed: %s\n", e.what());
      }
    }
  }
  /// Collective: completes every write of this step on every image; the next step begins.
  void fence() {
    for (runtime::window& w : windows_) w.fence();
  }

 private:
  void open(runtime::window& w) {
    w.begin_fence_phase();
    windows_.emplace_back(w);
  }
  std::vector<std::reference_wrapper<runtime::window>> windows_;
};

}  // namespace pgas
