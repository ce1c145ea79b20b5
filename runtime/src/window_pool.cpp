#include "window_pool.hpp"

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/stats.hpp>

#include "window_state.hpp"
#include <algorithm>
#include <deque>
#include <numeric>

namespace pgas::runtime::window_pool {

namespace {

// Bounds on what the pool holds for one communicator: a few windows, and bytes (summed over
// its processes, so every process decides alike) up to its share of the budget.
constexpr std::size_t most_windows = 8;
// What a process may keep, as a part of its share of the node's memory: large enough for the
// arrays a time-stepping program makes and drops every step (fresh memory runs slowly until the
// system has settled it; on a VM that hands freed pages back to its host, for tens of
// milliseconds of sweeps), small enough to matter little to what the program can allocate.
constexpr std::size_t memory_share_divisor = 16;
// What the pool keeps of a job that spans nodes, summed over the images: there MPI takes a
// window's memory from its own heap, which reuses what was freed, and a larger pool measured
// slower (bench_stencil between two hosts 0.98-1.02 against 0.91-0.96, reason not found).
constexpr std::size_t across_nodes_bytes = std::size_t{16} << 20;
std::size_t process_budget = across_nodes_bytes;  // until start()

std::deque<std::unique_ptr<window_state>>& kept() {
  static std::deque<std::unique_ptr<window_state>> windows;
  return windows;
}

std::size_t summed(const std::vector<std::size_t>& every_rank_bytes) {
  return std::accumulate(every_rank_bytes.begin(), every_rank_bytes.end(), std::size_t{0});
}

// What a communicator of `processes` may keep: the budget of each of them.
std::size_t budget_for(std::size_t processes) {
  return process_budget * processes;
}

std::size_t kept_bytes(MPI_Comm comm) {
  std::size_t bytes = 0;
  for (const auto& k : kept()) {
    if (k->comm == comm)
      bytes += summed(k->sizes);
  }
  return bytes;
}

void free_kept(window_state& s) noexcept {
  report(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all", s.rank);
  report(MPI_Win_free(&s.win), "MPI_Win_free", s.rank);
  if (statistics::enabled)
    ++statistics::counters.windows_freed;
}

// Frees the oldest kept windows of `comm` while `too_much(count, bytes)` says its kept windows
// are too many or too large. In step on every process of comm, which hold the same windows.
template <class TooMuch>
void evict_oldest(MPI_Comm comm, TooMuch too_much) {
  auto& pool = kept();
  const auto same_comm = [&](const std::unique_ptr<window_state>& k) { return k->comm == comm; };
  for (;;) {
    const auto count = static_cast<std::size_t>(std::count_if(pool.begin(), pool.end(), same_comm));
    if (count == 0 || !too_much(count, kept_bytes(comm)))
      return;
    const auto oldest = std::find_if(pool.begin(), pool.end(), same_comm);
    free_kept(**oldest);
    pool.erase(oldest);
  }
}

}  // namespace

void start(MPI_Comm world, int node_images, int world_images) {
  // Every image sees the same answer: all of them on its node, or not.
  if (node_images != world_images) {
    const auto images = static_cast<std::size_t>(std::max(1, world_images));
    process_budget = (across_nodes_bytes + images - 1) / images;
    return;
  }
  const std::size_t memory = machine_memory_bytes();
  unsigned long long mine =
      memory == SIZE_MAX
          ? across_nodes_bytes
          : memory / static_cast<std::size_t>(std::max(1, node_images)) / memory_share_divisor;
  mine = std::max<unsigned long long>(mine, across_nodes_bytes);
  unsigned long long agreed = 0;
  check(MPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, world), "MPI_Allreduce");
  process_budget = static_cast<std::size_t>(agreed);
}

std::size_t budget_per_process() noexcept {
  return process_budget;
}

void set_budget_per_process(std::size_t bytes) noexcept {
  process_budget = bytes;
}

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
      // What images announced for the old container's updates (update_exclusion.hpp) is not
      // the new one's.
      ++out->exclusion_generation;
      out->announced_in_place = false;
      // Peers' last writes completed before the barrier in keep(); order them before the new
      // owner's initialising stores.
      check(MPI_Win_sync(out->win), "MPI_Win_sync");
      return out;
    }
  }
  // A window is made instead: kept ones go first where they and it would pass the budget (the
  // pool gives way to the program's windows rather than hold memory beside them).
  const std::size_t wanted = summed(every_rank_bytes);
  const std::size_t budget = budget_for(every_rank_bytes.size());
  evict_oldest(comm, [&](std::size_t, std::size_t bytes) { return bytes + wanted > budget; });
  return nullptr;
}

bool keep(std::unique_ptr<window_state>& s) noexcept {
  // After the environment ended nobody would drain the pool: free as usual then.
  if (!s->poolable || !environment::active() || !messages::running())
    return false;
  const std::size_t bytes = summed(s->sizes);
  const std::size_t budget = budget_for(s->sizes.size());
  if (bytes > budget)
    return false;
  // window::release has completed this process's writes and passed a barrier of every
  // process since (quiescent, so updates sent for owners to apply are applied too).
  // Full: the oldest windows of this communicator go. Processes of one team share its
  // windows' history, but not other teams' (they belong to different teams of a split).
  evict_oldest(s->comm, [&](std::size_t count, std::size_t held) {
    return count == most_windows || held + bytes > budget;
  });
  kept().push_back(std::move(s));
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
