// A window handle's lifetime: moves, and the release that ends its epoch and frees it (or hands
// it to the pool).
#include <pgas/runtime/window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"

#include <pgas/runtime/error.hpp>

#include <algorithm>
#include <utility>

namespace pgas::runtime {

window::window() noexcept = default;
window::window(std::unique_ptr<window_state> s) noexcept : s_{std::move(s)} {}
window::window(window&& other) noexcept : s_{std::exchange(other.s_, nullptr)} {}
window& window::operator=(window&& other) noexcept {
  if (this != &other) {
    release();  // free what we hold before taking theirs, or it leaks
    s_ = std::exchange(other.s_, nullptr);
  }
  return *this;
}
window::~window() { release(); }

void window::release() noexcept {
  if (!s_) return;
  window_state& s = *s_;
  auto& live = live_windows();
  live.erase(std::remove(live.begin(), live.end(), &s), live.end());
  // After MPI_Finalize nothing may be called; the program ended the environment too early.
  if (s.win != MPI_WIN_NULL && mpi_running()) {
    if (s.mode == epoch::fence) report(MPI_Win_fence(MPI_MODE_NOSUCCEED, s.win), "MPI_Win_fence", s.rank);
    if (s.mode == epoch::neighbourhood) {
      if (!s.access_completed) report(MPI_Win_complete(s.win), "MPI_Win_complete", s.rank);
      report(MPI_Win_wait(s.win), "MPI_Win_wait", s.rank);
    }
    if (s.mode == epoch::passive && window_pool::keep(s_)) return;
    // MPI_Win_free may only follow the end of the process's epochs (MPI-4.1 §12.2.5).
    if (s.mode == epoch::passive) report(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all", s.rank);
    for (const auto& r : s.attached) report(MPI_Win_detach(s.win, r.base), "MPI_Win_detach", s.rank);
    report(MPI_Win_free(&s.win), "MPI_Win_free", s.rank);
    if (s.owned_memory != nullptr) report(MPI_Free_mem(s.owned_memory), "MPI_Free_mem", s.rank);
  }
  s_.reset();
}

window_state& window::state() const {
  if (!s_) throw usage_error("this window is empty (default-constructed or moved from)");
  return *s_;
}

bool window::valid() const noexcept { return s_ != nullptr; }
MPI_Win window::native() const noexcept { return s_ ? s_->win : MPI_WIN_NULL; }

}  // namespace pgas::runtime
