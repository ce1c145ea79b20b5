#pragma once
// A bulk-synchronous phase: writes go out without per-operation completion, and fence() ends
// each step for all images at once (MPI_Win_fence).

#include <pgas/detail/internal_only.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace pgas {

/// Opens a fence phase on the given containers; collective over all images, which must pass
/// the same containers in the same order. Inside, element writes (`a[i] = v`, `+=`) are only
/// started; `fence()` completes one step everywhere. Blocking reads of remote elements are
/// refused inside (use them after the phase). Destruction ends the phase collectively.
/// A container named twice is a usage_error before any window leaves its passive epoch; if
/// opening a later window fails, the ones already opened are closed again before the error
/// leaves the constructor, so every container is back in its normal state.
class fence_phase {
 public:
  template <class... Containers>
  explicit fence_phase(Containers&... containers) {
    std::vector<std::reference_wrapper<runtime::window>> wanted{
        containers.window(pgas::detail::internal)...};
    for (std::size_t k = 0; k < wanted.size(); ++k) {
      for (std::size_t j = 0; j < k; ++j) {
        if (&wanted[j].get() == &wanted[k].get()) {
          throw usage_error("pgas::fence_phase: the same container is named twice (arguments " +
                            std::to_string(j + 1) + " and " + std::to_string(k + 1) + ")");
        }
      }
    }
    try {
      for (runtime::window& w : wanted) {
        w.begin_fence_phase();
        windows_.emplace_back(w);
      }
    } catch (...) {
      end_all();
      throw;
    }
  }
  fence_phase(const fence_phase&) = delete;
  fence_phase& operator=(const fence_phase&) = delete;
  fence_phase(fence_phase&&) = delete;
  fence_phase& operator=(fence_phase&&) = delete;
  /// Collective: ends the phase; all of its writes are complete and visible.
  ~fence_phase() { end_all(); }
  /// Collective: completes every write of this step on every image; the next step begins.
  void fence() {
    for (runtime::window& w : windows_) w.fence();
  }

 private:
  // Ends the phase on every window opened so far. Reports, never throws: it runs in a
  // destructor and while an exception is already on its way.
  void end_all() noexcept {
    for (runtime::window& w : windows_) {
      try {
        w.end_fence_phase();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "pgas: ending a fence phase failed: %s\n", e.what());
      }
    }
    windows_.clear();
  }
  std::vector<std::reference_wrapper<runtime::window>> windows_;
};

}  // namespace pgas
