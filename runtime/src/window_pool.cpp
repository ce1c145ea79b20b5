#include "window_pool.hpp"

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/stats.hpp>

#include "window_state.hpp"
#include <algorithm>
#include <deque>
#include <numeric>

namespace pgas::runtime::window_pool {

namespace {

// Bounds on what the pool holds: a few windows of moderate size. The bytes are summed over
// every process, so every process decides alike.
constexpr std::size_t most_windows = 8;
constexpr std::size_t largest_window_bytes = std::size_t{16} << 20;

std::deque<std::unique_ptr<window_state>>& kept() {
  static std::deque<std::unique_ptr<window_state>> windows;
  return windows;
}

void free_kept(window_state& s) noexcept {
  report(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all", s.rank);
  report(MPI_Win_free(&s.win), "MPI_Win_free", s.rank);
  if (statistics::enabled)
    ++statistics::counters.windows_freed;
}

}  // namespace

std::unique_ptr<window_state> take(MPI_Comm comm,
                                   const std::vector<std::size_t>& every_rank_bytes,
                                   int disp_unit) {
  auto& pool = kept();
  // The most recently kept match: the same choice on every process.
  for (auto it = pool.rbegin(); it != pool.rend(); ++it) {
    window_state& s = **it;
    if (s.comm == comm && s.sizes == every_rank_bytes && s.disp_units.front() == disp_unit) {
      std::unique_ptr<window_state> out = std::move(*it);
      pool.erase(std::next(it).base());
      out->only_through_owner = false;  // the new container says so again if it is
      // Peers' last writes completed before the barrier in keep(); order them before the new
      // owner's initialising stores.
      check(MPI_Win_sync(out->win), "MPI_Win_sync");
      return out;
    }
  }
  return nullptr;
}

bool keep(std::unique_ptr<window_state>& s) noexcept {
  // After the environment ended nobody would drain the pool: free as usual then.
  if (!s->poolable || !environment::active() || !messages::running())
    return false;
  if (std::accumulate(s->sizes.begin(), s->sizes.end(), std::size_t{0}) > largest_window_bytes) {
    return false;
  }
  // window::release has completed this process's writes and passed a barrier of every
  // process since (quiescent, so updates sent for owners to apply are applied too).
  // Full: the oldest window of this communicator goes. Processes of one team share its
  // windows' history, but not other teams' (they belong to different teams of a split).
  auto& pool = kept();
  const auto same_comm = [&](const std::unique_ptr<window_state>& k) { return k->comm == s->comm; };
  if (static_cast<std::size_t>(std::count_if(pool.begin(), pool.end(), same_comm)) ==
      most_windows) {
    const auto oldest = std::find_if(pool.begin(), pool.end(), same_comm);
    free_kept(**oldest);
    pool.erase(oldest);
  }
  pool.push_back(std::move(s));
  return true;
}

std::size_t kept_count() noexcept {
  return kept().size();
}

void drain() noexcept {
  auto& pool = kept();
  for (auto& s : pool) free_kept(*s);
  pool.clear();
}

void drain(MPI_Comm comm) noexcept {
  auto& pool = kept();
  for (auto it = pool.begin(); it != pool.end();) {
    if ((*it)->comm == comm) {
      free_kept(**it);
      it = pool.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace pgas::runtime::window_pool
