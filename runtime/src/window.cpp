#include <pgas/runtime/window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"

#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>

#include <sys/sysinfo.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
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

window window::finish_creation(std::unique_ptr<window_state> s, std::size_t bytes,
                               int disp_unit, window_flavor flavor,
                               const std::vector<std::size_t>* every_rank_bytes) {
  s->flavor = flavor;
  // A new window starts with MPI_ERRORS_ARE_FATAL, not with the communicator's handler.
  check(MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  check(MPI_Comm_rank(s->comm, &s->rank), "MPI_Comm_rank");
  check(MPI_Comm_size(s->comm, &s->ranks), "MPI_Comm_size");
  s->pending.assign(static_cast<std::size_t>(s->ranks), 0);
  if (every_rank_bytes != nullptr) {
    // The caller computed everyone's exposure (from a distribution): no exchange needed.
    s->sizes = *every_rank_bytes;
    s->disp_units.assign(s->sizes.size(), disp_unit);
  } else if (flavor != window_flavor::dynamic) {
    // Every process learns what every other exposes, so a bad displacement is caught here
    // instead of corrupting a peer's memory (MPI does not check it).
    const long long mine[2] = {static_cast<long long>(bytes), disp_unit};
    std::vector<long long> all(2 * static_cast<std::size_t>(s->ranks));
    check(MPI_Allgather(mine, 2, MPI_LONG_LONG, all.data(), 2, MPI_LONG_LONG, s->comm),
          "MPI_Allgather");
    for (int r = 0; r < s->ranks; ++r) {
      s->sizes.push_back(static_cast<std::size_t>(all[2 * static_cast<std::size_t>(r)]));
      s->disp_units.push_back(static_cast<int>(all[2 * static_cast<std::size_t>(r) + 1]));
    }
  }
  window w{std::move(s)};  // owns the handle from here on, so a throw below still frees it
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.native()), "MPI_Win_lock_all");
  w.state().mode = epoch::passive;
  live_windows().push_back(&w.state());
  return w;
}

namespace {

void require_positive_disp_unit(int disp_unit) {
  if (disp_unit <= 0) {
    throw usage_error("disp_unit must be positive, got " + std::to_string(disp_unit));
  }
}

// RAM plus swap: no single process can be given more, so a larger request is a mistake (an
// overflowed size), not a shortage.
std::size_t machine_memory_bytes() noexcept {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return SIZE_MAX;
  return (static_cast<std::size_t>(info.totalram) + info.totalswap) * info.mem_unit;
}

std::string too_large(std::size_t bytes, std::size_t memory) {
  return "a window of " + std::to_string(bytes) + " bytes on one process is more than the " +
         std::to_string(memory) + " bytes of memory the machine has";
}

// Refuses, on every process alike, memory no process could get. Without this one process's
// allocation fails and returns while the others wait in the collective creation for ever.
void require_allocatable(std::size_t bytes, MPI_Comm comm) {
  const std::size_t memory = machine_memory_bytes();
  if (everyone(bytes <= memory, comm)) return;
  throw usage_error(bytes <= memory ? "another process asked for a window larger than its machine's memory"
                                    : too_large(bytes, memory));
}

// The same check when every process's size is known locally: no communication.
void require_allocatable(const std::vector<std::size_t>& every_rank_bytes) {
  const std::size_t memory = machine_memory_bytes();
  for (std::size_t bytes : every_rank_bytes) {
    if (bytes > memory) throw usage_error(too_large(bytes, memory));
  }
}

std::unique_ptr<window_state> new_state(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw usage_error("a window needs a communicator, got MPI_COMM_NULL");
  auto s = std::make_unique<window_state>();
  s->comm = comm;
  return s;
}

}  // namespace

window window::create(MPI_Comm comm, std::size_t bytes, int disp_unit, const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_allocatable(bytes, comm);
  void* memory = nullptr;
  if (bytes > 0) check(MPI_Alloc_mem(static_cast<MPI_Aint>(bytes), MPI_INFO_NULL, &memory), "MPI_Alloc_mem");
  std::unique_ptr<window_state> s;
  try {
    s = new_state(comm);
  } catch (...) {
    if (memory != nullptr) MPI_Free_mem(memory);
    throw;
  }
  s->owned_memory = memory;  // freed by release() from here on
  const int err = MPI_Win_create(memory, static_cast<MPI_Aint>(bytes), disp_unit,
                                 hints.to_info().native(), comm, &s->win);
  if (err != MPI_SUCCESS) {
    if (memory != nullptr) MPI_Free_mem(memory);
    check(err, "MPI_Win_create");
  }
  return finish_creation(std::move(s), bytes, disp_unit, window_flavor::create);
}

window window::create(MPI_Comm comm, void* base, std::size_t bytes, int disp_unit,
                      const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  if (base == nullptr && bytes > 0) throw usage_error("window::create given a null base for a non-empty region");
  auto s = new_state(comm);
  check(MPI_Win_create(base, static_cast<MPI_Aint>(bytes), disp_unit, hints.to_info().native(), comm,
                       &s->win),
        "MPI_Win_create");
  return finish_creation(std::move(s), bytes, disp_unit, window_flavor::create);
}

window window::allocate(MPI_Comm comm, std::size_t bytes, int disp_unit, const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_allocatable(bytes, comm);
  auto s = new_state(comm);
  void* base = nullptr;
  check(MPI_Win_allocate(static_cast<MPI_Aint>(bytes), disp_unit, hints.to_info().native(), comm,
                         &base, &s->win),
        "MPI_Win_allocate");
  return finish_creation(std::move(s), bytes, disp_unit, window_flavor::allocate);
}

window window::allocate(MPI_Comm comm, std::size_t bytes, int disp_unit,
                        const std::vector<std::size_t>& every_rank_bytes, const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  auto s = new_state(comm);
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (every_rank_bytes.size() != static_cast<std::size_t>(size) ||
      every_rank_bytes[static_cast<std::size_t>(rank)] != bytes) {
    throw usage_error("window::allocate: every_rank_bytes must list each process's size, this "
                      "process's being `bytes`");
  }
  require_allocatable(every_rank_bytes);
  const bool in_world = environment::active() && comm == world_comm();
  const bool poolable = in_world && hints.none_set();
  // On one node, world windows map each other's memory: peers' elements become loads and stores.
  const bool shared = in_world && world_shares_memory();
  if (poolable) {
    if (auto kept = window_pool::take(comm, every_rank_bytes, disp_unit)) {
      live_windows().push_back(kept.get());
      return window{std::move(kept)};
    }
  }
  void* base = nullptr;
  info i = hints.to_info();
  if (shared) {
    // Each process's part on its own pages, first touched by its owner, not one block.
    i.set("alloc_shared_noncontig", "true");
    check(MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), disp_unit, i.native(), comm, &base,
                                  &s->win),
          "MPI_Win_allocate_shared");
  } else {
    check(MPI_Win_allocate(static_cast<MPI_Aint>(bytes), disp_unit, i.native(), comm, &base, &s->win),
          "MPI_Win_allocate");
  }
  s->poolable = poolable;
  return finish_creation(std::move(s), bytes, disp_unit,
                         shared ? window_flavor::shared : window_flavor::allocate, &every_rank_bytes);
}

window window::allocate_shared(MPI_Comm comm, std::size_t bytes, int disp_unit,
                               const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_allocatable(bytes, comm);
  auto s = new_state(comm);
  void* base = nullptr;
  check(MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), disp_unit, hints.to_info().native(),
                                comm, &base, &s->win),
        "MPI_Win_allocate_shared");
  return finish_creation(std::move(s), bytes, disp_unit, window_flavor::shared);
}

window window::create_dynamic(MPI_Comm comm, const window_hints& hints) {
  auto s = new_state(comm);
  check(MPI_Win_create_dynamic(hints.to_info().native(), comm, &s->win), "MPI_Win_create_dynamic");
  return finish_creation(std::move(s), 0, 1, window_flavor::dynamic);
}

void window::release() noexcept {
  if (!s_) return;
  window_state& s = *s_;
  auto& live = live_windows();
  live.erase(std::remove(live.begin(), live.end(), &s), live.end());
  // After MPI_Finalize nothing may be called; the program ended the environment too early.
  if (s.win != MPI_WIN_NULL && mpi_running()) {
    if (s.mode == epoch::fence) report(MPI_Win_fence(MPI_MODE_NOSUCCEED, s.win), "MPI_Win_fence", s.rank);
    if (s.mode == epoch::neighbourhood) {
      report(MPI_Win_complete(s.win), "MPI_Win_complete", s.rank);
      report(MPI_Win_wait(s.win), "MPI_Win_wait", s.rank);
    }
    if (s.mode == epoch::passive && window_pool::keep(s_)) return;
    // MPI_Win_free may only follow the end of the process's epochs (reference page 002).
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
MPI_Comm window::comm() const { return state().comm; }
int window::rank() const { return state().rank; }
int window::ranks() const { return state().ranks; }

namespace {

template <class T>
T attribute(MPI_Win win, int key, const char* name) {
  void* value = nullptr;
  int found = 0;
  check(MPI_Win_get_attr(win, key, &value, &found), "MPI_Win_get_attr");
  if (found == 0) throw usage_error(std::string("window attribute ") + name + " is not set");
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<T>(value);  // MPI_WIN_BASE is the base address itself
  } else {
    return static_cast<T>(*static_cast<T*>(value));  // the others point to the value
  }
}

}  // namespace

void* window::base() const { return attribute<void*>(state().win, MPI_WIN_BASE, "MPI_WIN_BASE"); }
std::size_t window::size() const {
  return static_cast<std::size_t>(attribute<MPI_Aint>(state().win, MPI_WIN_SIZE, "MPI_WIN_SIZE"));
}
int window::disp_unit() const { return attribute<int>(state().win, MPI_WIN_DISP_UNIT, "MPI_WIN_DISP_UNIT"); }
window_flavor window::flavor() const {
  switch (attribute<int>(state().win, MPI_WIN_CREATE_FLAVOR, "MPI_WIN_CREATE_FLAVOR")) {
    case MPI_WIN_FLAVOR_CREATE: return window_flavor::create;
    case MPI_WIN_FLAVOR_ALLOCATE: return window_flavor::allocate;
    case MPI_WIN_FLAVOR_SHARED: return window_flavor::shared;
    default: return window_flavor::dynamic;
  }
}
memory_model window::model() const {
  return attribute<int>(state().win, MPI_WIN_MODEL, "MPI_WIN_MODEL") == MPI_WIN_UNIFIED
             ? memory_model::unified
             : memory_model::separate;
}
group window::get_group() const {
  MPI_Group g = MPI_GROUP_NULL;
  check(MPI_Win_get_group(state().win, &g), "MPI_Win_get_group");
  return group{g};
}

namespace {
void require_rank(const window_state& s, int target) {
  if (target < 0 || target >= s.ranks) {
    throw usage_error("target image " + std::to_string(target) + " does not exist; the window has " +
                      std::to_string(s.ranks) + " images");
  }
}
void require_static_exposure(const window_state& s, const char* what) {
  if (s.flavor == window_flavor::dynamic) {
    throw usage_error(std::string(what) + " is not known for a dynamic window");
  }
}
}  // namespace

std::size_t window::size_of(int target) const {
  const window_state& s = state();
  require_static_exposure(s, "the exposed size");
  require_rank(s, target);
  return s.sizes[static_cast<std::size_t>(target)];
}

int window::disp_unit_of(int target) const {
  const window_state& s = state();
  require_static_exposure(s, "the disp_unit of a peer");
  require_rank(s, target);
  return s.disp_units[static_cast<std::size_t>(target)];
}

window::shared_segment window::shared_query(int target) const {
  const window_state& s = state();
  if (s.flavor != window_flavor::shared) throw usage_error("shared_query needs an allocate_shared window");
  require_rank(s, target);
  MPI_Aint bytes = 0;
  int unit = 0;
  void* base = nullptr;
  check(MPI_Win_shared_query(s.win, target, &bytes, &unit, &base), "MPI_Win_shared_query");
  return {base, static_cast<std::size_t>(bytes), unit};
}

std::vector<void*> window::mapped_bases() const {
  const window_state& s = state();
  if (s.flavor != window_flavor::shared) return {};
  std::vector<void*> out;
  for (int r = 0; r < s.ranks; ++r) out.push_back(shared_query(r).base);
  return out;
}

void window::attach(void* base, std::size_t bytes) {
  window_state& s = state();
  if (s.flavor != window_flavor::dynamic) throw usage_error("attach needs a dynamic window");
  if (base == nullptr || bytes == 0) throw usage_error("attach needs a non-empty region");
  if (s.attached.size() >= max_attachments) {
    throw usage_error("a dynamic window holds at most " + std::to_string(max_attachments) +
                      " attached regions per image; detach one first or attach one larger region");
  }
  check(MPI_Win_attach(s.win, base, static_cast<MPI_Aint>(bytes)), "MPI_Win_attach");
  s.attached.push_back({base, bytes});
}

void window::detach(void* base) {
  window_state& s = state();
  const auto it = std::find_if(s.attached.begin(), s.attached.end(),
                               [base](const auto& r) { return r.base == base; });
  if (it == s.attached.end()) {
    throw usage_error("detach of a region that is not attached to this window");
  }
  // Our own operations may still read staged values or target the region: complete them first.
  if (s.mode == epoch::passive) flush_all();
  check(MPI_Win_detach(s.win, base), "MPI_Win_detach");
  s.attached.erase(it);
}

std::size_t window::attachments() const { return state().attached.size(); }

std::vector<MPI_Aint> window::publish(const void* local) const {
  const window_state& s = state();
  MPI_Aint mine = 0;
  check(MPI_Get_address(local, &mine), "MPI_Get_address");
  std::vector<MPI_Aint> all(static_cast<std::size_t>(s.ranks));
  check(MPI_Allgather(&mine, 1, MPI_AINT, all.data(), 1, MPI_AINT, s.comm), "MPI_Allgather");
  return all;
}

void window::flush(int target) {
  window_state& s = state();
  require_passive("flush");
  require_rank(s, target);
  check(MPI_Win_flush(target, s.win), "MPI_Win_flush");
  clear_pending(s, target);
}

void window::flush_all() {
  window_state& s = state();
  require_passive("flush_all");
  check(MPI_Win_flush_all(s.win), "MPI_Win_flush_all");
  clear_pending(s);
  reset_staging(s);
}

void window::flush_local(int target) {
  window_state& s = state();
  require_passive("flush_local");
  require_rank(s, target);
  check(MPI_Win_flush_local(target, s.win), "MPI_Win_flush_local");
}

void window::flush_local_all() {
  window_state& s = state();
  require_passive("flush_local_all");
  check(MPI_Win_flush_local_all(s.win), "MPI_Win_flush_local_all");
  reset_staging(s);
}

void window::sync_memory() {
  window_state& s = state();
  // MPI_Win_sync is only valid inside a passive-target epoch.
  if (s.mode == epoch::passive) check(MPI_Win_sync(s.win), "MPI_Win_sync");
}

void window::begin_fence_phase() {
  window_state& s = state();
  require_passive("begin_fence_phase");
  check(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all");
  s.mode = epoch::none;
  clear_pending(s);
  reset_staging(s);
  check(MPI_Win_fence(MPI_MODE_NOPRECEDE, s.win), "MPI_Win_fence");
  s.mode = epoch::fence;
}

void window::fence() {
  window_state& s = state();
  if (s.mode != epoch::fence) throw usage_error("fence() outside a fence phase");
  check(MPI_Win_fence(0, s.win), "MPI_Win_fence");
  reset_staging(s);
}

void window::end_fence_phase() {
  window_state& s = state();
  if (s.mode != epoch::fence) throw usage_error("end_fence_phase() outside a fence phase");
  check(MPI_Win_fence(MPI_MODE_NOSUCCEED, s.win), "MPI_Win_fence");
  s.mode = epoch::none;
  reset_staging(s);
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win), "MPI_Win_lock_all");
  s.mode = epoch::passive;
}

void window::begin_neighbourhood_phase(const std::vector<int>& targets,
                                       const std::vector<int>& origins) {
  window_state& s = state();
  require_passive("begin_neighbourhood_phase");
  for (int r : targets) require_rank(s, r);
  for (int r : origins) require_rank(s, r);
  const group all = get_group();
  const group exposure = group::include(all.native(), origins);
  const group accessed = group::include(all.native(), targets);
  check(MPI_Win_unlock_all(s.win), "MPI_Win_unlock_all");
  s.mode = epoch::none;
  clear_pending(s);
  reset_staging(s);
  // Post before start: a process waiting in start for its targets' posts must already have
  // posted its own exposure, or two neighbours could wait for each other.
  check(MPI_Win_post(exposure.native(), 0, s.win), "MPI_Win_post");
  check(MPI_Win_start(accessed.native(), 0, s.win), "MPI_Win_start");
  s.mode = epoch::neighbourhood;
}

void window::end_neighbourhood_phase() {
  window_state& s = state();
  if (s.mode != epoch::neighbourhood) throw usage_error("end_neighbourhood_phase() outside a neighbourhood phase");
  check(MPI_Win_complete(s.win), "MPI_Win_complete");
  check(MPI_Win_wait(s.win), "MPI_Win_wait");
  s.mode = epoch::none;
  reset_staging(s);
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win), "MPI_Win_lock_all");
  s.mode = epoch::passive;
}

namespace {

// Throws usage_error for a rank outside the window, out_of_range for bytes past what `target`
// exposes at `disp`. Called for every operation: no division on the way.
void check_exposure(const window_state& s, int target, MPI_Aint disp, std::size_t bytes) {
  require_rank(s, target);
  if (s.flavor == window_flavor::dynamic) return;  // addresses: only the target knows its regions
  const auto t = static_cast<std::size_t>(target);
  // The target address is base + disp x the *target's* disp_unit (reference page 004).
  const auto unit = static_cast<std::size_t>(s.disp_units[t]);
  std::size_t offset = 0;
  if (disp < 0 || __builtin_mul_overflow(static_cast<std::size_t>(disp), unit, &offset) ||
      bytes > s.sizes[t] || offset > s.sizes[t] - bytes) {
    throw out_of_range("displacement " + std::to_string(disp) + " (disp_unit " +
                       std::to_string(unit) + ") plus " + std::to_string(bytes) +
                       " bytes is outside the " + std::to_string(s.sizes[t]) +
                       " bytes image " + std::to_string(target) + " exposes");
  }
}

void mark_pending(window_state& s, int target) {
  if (s.pending[static_cast<std::size_t>(target)] == 0) {
    s.pending[static_cast<std::size_t>(target)] = 1;
    s.pending_targets.push_back(target);
  }
}

}  // namespace

window::access window::writing_to(int target, MPI_Aint disp, std::size_t bytes) {
  window_state& s = state();
  check_exposure(s, target, disp, bytes);
  mark_pending(s, target);
  return {s.win, s.mode == epoch::passive};
}

void window::loading_from(const char* what, int target) {
  window_state& s = state();
  if (s.mode != epoch::passive) require_passive(what);
  require_rank(s, target);
  if (s.pending[static_cast<std::size_t>(target)] != 0) flush(target);
}

MPI_Win window::reading_from(const char* what, int target, MPI_Aint disp, std::size_t bytes) {
  loading_from(what, target);
  const window_state& s = state();
  check_exposure(s, target, disp, bytes);
  return s.win;
}

void* window::staging_slot(std::size_t bytes) {
  window_state& s = state();
  // Bound the memory held for values not yet completed: complete them all now and then.
  constexpr std::size_t limit = 4 * 1024 * 1024;
  if (s.staged_since_completion + bytes > limit && s.mode == epoch::passive) flush_local_all();
  s.staged_since_completion += bytes;
  std::byte* out = nullptr;
  if (bytes > window_state::chunk_bytes) {
    s.oversized.push_back(std::make_unique<std::byte[]>(bytes));
    out = s.oversized.back().get();
  } else {
    // Keep every staged value aligned for any scalar type.
    const std::size_t start = (s.chunk_used + alignof(std::max_align_t) - 1) &
                              ~(alignof(std::max_align_t) - 1);
    if (s.chunks.empty() || start + bytes > window_state::chunk_bytes) {
      if (!s.chunks.empty()) ++s.chunk_index;
      if (s.chunk_index == s.chunks.size()) {
        s.chunks.push_back(std::make_unique<std::byte[]>(window_state::chunk_bytes));
      }
      s.chunk_used = 0;
      out = s.chunks[s.chunk_index].get();
      s.chunk_used = bytes;
    } else {
      out = s.chunks[s.chunk_index].get() + start;
      s.chunk_used = start + bytes;
    }
  }
  return out;
}

void window::note_write(int target) { mark_pending(state(), target); }

bool window::in_passive_epoch() const { return state().mode == epoch::passive; }

void window::require_passive(const char* what) const {
  if (state().mode != epoch::passive) {
    throw usage_error(std::string(what) +
                      " needs the window's passive epoch; it is not available inside a fence or "
                      "neighbourhood phase");
  }
}

void complete_all_windows() {
  for (window_state* s : live_windows()) {
    if (s->mode != epoch::passive) continue;
    // Only writes need completing here (reads completed when they returned); one target is
    // cheaper to flush alone than all of them.
    if (s->pending_targets.size() == 1) {
      check(MPI_Win_flush(s->pending_targets.front(), s->win), "MPI_Win_flush");
    } else if (!s->pending_targets.empty()) {
      check(MPI_Win_flush_all(s->win), "MPI_Win_flush_all");
    }
    clear_pending(*s);
    reset_staging(*s);
    check(MPI_Win_sync(s->win), "MPI_Win_sync");
  }
}

void sync_all_window_memory() {
  for (window_state* s : live_windows()) {
    if (s->mode == epoch::passive) check(MPI_Win_sync(s->win), "MPI_Win_sync");
  }
}

}  // namespace pgas::runtime
