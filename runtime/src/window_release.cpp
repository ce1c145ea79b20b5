// A window handle's lifetime: moves, and the release that ends its epoch and frees it (or hands
// it to the pool).
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/runtime/window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <utility>

namespace pgas::runtime {

namespace {

// The barrier before a window goes, which also checks that every process of its communicator
// is releasing this same window: a container moved or swapped on some images only (or
// containers destroyed in different orders) would otherwise free different windows in one
// collective and hang or cross-talk. Nothing can be thrown from a destructor and nothing
// collective can follow, so every process says so and the job ends.
void require_same_window_everywhere(const window_state& s) {
  messages::quiesce();
  const long long name[1] = {std::bit_cast<long long>(s.name)};
  if (same_everywhere(name, s.comm))
    return;
  std::fprintf(stderr,
               "pgas: image %d: the images are destroying different containers here (this "
               "image's is not the others'): a container was moved or swapped on some images "
               "only, or containers are destroyed in different orders; ending the job\n",
               s.rank);
  std::fflush(stderr);
  // Every process found the same mismatch: once all have met in a barrier, all have written
  // their line (MPICH's Hydra once killed image 0 before it had).
  MPI_Request met = MPI_REQUEST_NULL;
  const bool meeting = MPI_Ibarrier(s.comm, &met) == MPI_SUCCESS;
  watchdog::end_job_when(
      [&] {
        int done = 0;
        return !meeting || MPI_Test(&met, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done != 0;
      },
      std::chrono::seconds(10));
}

// The window a message named last: a stream of messages for one window (an event's posts, a
// batch after another) finds it without a lookup, which costs a waiting image cache misses
// of its own at every message. Forgotten when its name leaves named_windows().
struct last_named {
  std::uint64_t name = 0;
  window_state* state = nullptr;
};
last_named last;
void forget_named(std::uint64_t name) noexcept {
  if (last.state != nullptr && last.name == name)
    last = {};
}
}  // namespace

window::window() noexcept = default;
std::unordered_map<std::uint64_t, window_state*>& named_windows() {
  static std::unordered_map<std::uint64_t, window_state*> windows;
  return windows;
}

window::window(std::unique_ptr<window_state> s) noexcept : s_{std::move(s)} {
  if (s_) {
    s_->handle = this;
    forget_named(s_->name);
    named_windows()[s_->name] = s_.get();
  }
}
window::window(window&& other) noexcept : s_{std::exchange(other.s_, nullptr)} {
  if (s_)
    s_->handle = this;
  held_write_moved(&other, this);
}
window& window::operator=(window&& other) noexcept {
  if (this != &other) {
    release();  // free what we hold before taking theirs, or it leaks
    s_ = std::exchange(other.s_, nullptr);
    if (s_)
      s_->handle = this;
    held_write_moved(&other, this);
  }
  return *this;
}

window* window::named(std::uint64_t name) noexcept {
  if (last.state != nullptr && last.name == name)
    return last.state->handle;
  const auto& named = named_windows();
  const auto it = named.find(name);
  if (it == named.end())
    return nullptr;
  last = {name, it->second};
  return it->second->handle;
}

std::uint64_t window::name() const {
  return state().name;
}
window::~window() {
  release();
}

void window::release() noexcept {
  if (!s_)
    return;
  window_state& s = *s_;
  // While the window is live and in its epoch.
  release_held_write_of(*this, s.win != MPI_WIN_NULL && mpi_running());
  window_leaves(s);
  // After MPI_Finalize nothing may be called; the program ended the environment too early.
  if (s.win != MPI_WIN_NULL && mpi_running()) {
    // A halo exchange still in flight (its handle outlived the array, or was never waited
    // for): its epochs end first, or MPI_Win_free would be erroneous (MPI-4.1 §12.2.5). The
    // neighbours are destroying their arrays too, so they complete it.
    // An exchange by messages likewise: its receives write into the window's memory.
    if (s.mode == epoch::neighbourhood || s.messages_in_flight) {
      try {
        end_neighbourhood_phase();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "pgas: image %d, releasing a window: %s\n", s.rank, e.what());
      }
    }
    if (s.mode == epoch::passive && messages::running()) {
      // Nobody's operation may land after the window is freed or reused: this process's writes
      // complete (stores into mapped peer memory ordered by MPI_Win_sync), and every update sent
      // for an owner to apply to it, from any process, is applied, before a barrier of all.
      report(MPI_Win_flush_all(s.win), "MPI_Win_flush_all", s.rank);
      report(MPI_Win_sync(s.win), "MPI_Win_sync", s.rank);
      s.completed();
      try {
        require_same_window_everywhere(s);
        race_check::at_release(*this);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "pgas: image %d, releasing a window: %s\n", s.rank, e.what());
      }
    }
  }
  // Only now: messages naming it were applied during that barrier.
  s.handle = nullptr;
  forget_named(s.name);
  named_windows().erase(s.name);
  if (s.win != MPI_WIN_NULL && mpi_running()) {
    if (s.mode == epoch::passive && window_pool::keep(s_))
      return;
    // MPI_Win_free may only follow the end of the process's epochs (MPI-4.1 §12.2.5).
    if (s.mode == epoch::passive)
      report(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all", s.rank);
    for (const auto& r : s.attached)
      report(MPI_Win_detach(s.win, r.base), "MPI_Win_detach", s.rank);
    report(MPI_Win_free(&s.win), "MPI_Win_free", s.rank);
    if (statistics::enabled)
      ++statistics::counters.windows_freed;
    if (s.owned_memory != nullptr)
      report(MPI_Free_mem(s.owned_memory), "MPI_Free_mem", s.rank);
  }
  s_.reset();
}

void window::throw_empty() {
  throw usage_error("this window is empty (default-constructed or moved from)");
}

bool window::valid() const noexcept {
  return s_ != nullptr;
}
MPI_Win window::native() const noexcept {
  return s_ ? s_->win : MPI_WIN_NULL;
}

}  // namespace pgas::runtime
