// Window creation in the four flavors, and what every new window gets: its error handler, its
// peers' exposure, its passive epoch.
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/names.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/window.hpp>

#include "window_alignment.hpp"
#include "window_state.hpp"
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <utility>

namespace pgas::runtime {

window window::finish_creation(std::unique_ptr<window_state> s,
                               std::size_t bytes,
                               int disp_unit,
                               window_flavor flavor,
                               const std::vector<std::size_t>* every_rank_bytes) {
  s->flavor = flavor;
  // A new window starts with MPI_ERRORS_ARE_FATAL, not with the communicator's handler.
  check(MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  check(MPI_Comm_rank(s->comm, &s->rank), "MPI_Comm_rank");
  check(MPI_Comm_size(s->comm, &s->ranks), "MPI_Comm_size");
  s->pending.reset_for(s->ranks);
  if (every_rank_bytes != nullptr) {
    // The caller computed everyone's exposure (from a distribution): no exchange needed.
    s->sizes = *every_rank_bytes;
    s->disp_units.assign(s->sizes.size(), disp_unit);
  } else if (flavor != window_flavor::dynamic) {
    // Every process learns what every other exposes, so a bad displacement is caught here
    // instead of corrupting a peer's memory (MPI does not check it).
    const long long mine[2] = {static_cast<long long>(bytes), disp_unit};
    std::vector<long long> all(2 * static_cast<std::size_t>(s->ranks));
    messages::collective("MPI_Iallgather", MPI_Iallgather, mine, 2, MPI_LONG_LONG, all.data(), 2,
                         MPI_LONG_LONG, s->comm);
    for (int r = 0; r < s->ranks; ++r) {
      s->sizes.push_back(static_cast<std::size_t>(all[2 * static_cast<std::size_t>(r)]));
      s->disp_units.push_back(static_cast<int>(all[2 * static_cast<std::size_t>(r) + 1]));
    }
  }
  s->name = agree_on_new_name(s->comm);
  window w{std::move(s)};  // owns the handle from here on, so a throw below still frees it
  w.state().unified_model = w.model() == memory_model::unified;
  if (flavor == window_flavor::shared) {
    // Asked once: every load, store and in-place update of a peer's memory needs it.
    for (int r = 0; r < w.state().ranks; ++r) {
      w.state().mapped.push_back(static_cast<std::byte*>(w.shared_query(r).base));
    }
    w.state().exclusion = update_exclusions_of(w.state().win, w.state().ranks);
  }
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w.native()), "MPI_Win_lock_all");
  w.state().mode = epoch::passive;
  window_goes_live(w.state());
  if (statistics::enabled)
    ++statistics::counters.windows_created;
  return w;
}

namespace {

void require_positive_disp_unit(int disp_unit) {
  if (disp_unit <= 0) {
    throw usage_error("disp_unit must be positive, got " + std::to_string(disp_unit));
  }
}

std::string too_large(std::size_t bytes, std::size_t memory) {
  return "a window of " + std::to_string(bytes) + " bytes on one process is more than the " +
         std::to_string(memory) + " bytes of memory the machine has";
}

// Refuses, on every process alike, memory no process could get. Without this one process's
// allocation fails and returns while the others wait in the collective creation for ever.
void require_allocatable(std::size_t bytes, MPI_Comm comm) {
  const std::size_t memory = machine_memory_bytes();
  if (everyone(bytes <= memory, comm))
    return;
  throw usage_error(bytes <= memory
                        ? "another process asked for a window larger than its machine's memory"
                        : too_large(bytes, memory));
}

std::unique_ptr<window_state> new_state(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL)
    throw usage_error("a window needs a communicator, got MPI_COMM_NULL");
  auto s = std::make_unique<window_state>();
  s->comm = comm;
  return s;
}

// The checks of a creation where every process's size is known locally: the list fits comm
// and names `bytes` for this process, and no size passes the machine's memory. No
// communication, and every process decides alike.
void require_known_shape(MPI_Comm comm,
                         std::size_t bytes,
                         const std::vector<std::size_t>& every_rank_bytes) {
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (every_rank_bytes.size() != static_cast<std::size_t>(size) ||
      every_rank_bytes[static_cast<std::size_t>(rank)] != bytes) {
    throw usage_error(
        "window::allocate: every_rank_bytes must list each process's size, this "
        "process's being `bytes`");
  }
  const std::size_t memory = machine_memory_bytes();
  for (std::size_t b : every_rank_bytes) {
    if (b > memory)
      throw usage_error(too_large(b, memory));
  }
}

// Every process can map what the window will map in it — its part, or with shared memory the
// node's whole segment — or none creates the window: an MPI_Win_allocate that fails in one
// process leaves the others waiting in it. A mapping of that size is made and dropped again
// (no page is touched), which fails as the window would under an address-space limit
// (ulimit -v) or a commit limit. Agreed, so every process throws resource_error together.
void require_mappable(MPI_Comm comm, std::size_t bytes, bool shared) {
  std::uint64_t mapped = bytes;
  if (shared) {
    const std::uint64_t mine = bytes;
    check(MPI_Allreduce(&mine, &mapped, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  }
  std::optional<std::string> problem;
  if (mapped > 0) {
    void* probe = ::mmap(nullptr, static_cast<std::size_t>(mapped), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED) {
      int rank = 0;
      check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
      problem = "image " + std::to_string(rank) + " cannot map the " + std::to_string(mapped) +
                " bytes a container's window needs in it (" + std::strerror(errno) +
                "): its address space (ulimit -v) or the machine's memory is exhausted; "
                "nothing was allocated on any image";
    } else {
      ::munmap(probe, static_cast<std::size_t>(mapped));
    }
  }
  if (const auto failed = first_failure(problem, comm))
    throw resource_error("pgas: " + *failed);
}

// MPI_Win_allocate or MPI_Win_allocate_shared into a new state whose exposure starts at a
// cache line on every process that can shift there (window_alignment.hpp).
std::unique_ptr<window_state> allocated(
    MPI_Comm comm, std::size_t bytes, int disp_unit, const window_hints& hints, bool shared) {
  auto s = new_state(comm);
  void* base = nullptr;
  info i = hints.to_info();
  // MPI-4.1 §12.2.2: where MPI honours it, the memory comes aligned and no shift is needed.
  i.set("mpi_minimum_memory_alignment", std::to_string(window_alignment));
  const auto total = static_cast<MPI_Aint>(allocation_bytes(bytes, disp_unit) +
                                           (shared ? update_exclusion_room : 0));
  require_mappable(comm, static_cast<std::size_t>(total), shared);
  if (shared) {
    check(MPI_Win_allocate_shared(total, disp_unit, i.native(), comm, &base, &s->win),
          "MPI_Win_allocate_shared");
    // Cleared before alignment_shift's reduction, which no process leaves before all entered.
    clear_update_exclusion(base, static_cast<std::size_t>(total));
  } else {
    check(MPI_Win_allocate(total, disp_unit, i.native(), comm, &base, &s->win), "MPI_Win_allocate");
  }
  try {
    s->shift = alignment_shift(comm, base, disp_unit);
  } catch (...) {
    MPI_Win_free(&s->win);  // as a window handle's release would, had it been made yet
    throw;
  }
  return s;
}

}  // namespace

window window::create(MPI_Comm comm, std::size_t bytes, int disp_unit, const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_allocatable(bytes, comm);
  void* memory = nullptr;
  // A little more, so the exposure can start at a cache line (window_alignment.hpp).
  if (bytes > 0) {
    check(
        MPI_Alloc_mem(static_cast<MPI_Aint>(bytes + window_alignment - 1), MPI_INFO_NULL, &memory),
        "MPI_Alloc_mem");
  }
  void* exposed = memory;
  std::size_t room = bytes + window_alignment - 1;
  if (memory != nullptr)
    (void)std::align(window_alignment, bytes, exposed, room);
  std::unique_ptr<window_state> s;
  try {
    s = new_state(comm);
  } catch (...) {
    if (memory != nullptr)
      MPI_Free_mem(memory);
    throw;
  }
  s->owned_memory = memory;  // freed by release() from here on
  const int err = MPI_Win_create(exposed, static_cast<MPI_Aint>(bytes), disp_unit,
                                 hints.to_info().native(), comm, &s->win);
  if (err != MPI_SUCCESS) {
    if (memory != nullptr)
      MPI_Free_mem(memory);
    check(err, "MPI_Win_create");
  }
  return finish_creation(std::move(s), bytes, disp_unit, window_flavor::create);
}

window window::create(
    MPI_Comm comm, void* base, std::size_t bytes, int disp_unit, const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  if (base == nullptr && bytes > 0)
    throw usage_error("window::create given a null base for a non-empty region");
  auto s = new_state(comm);
  check(MPI_Win_create(base, static_cast<MPI_Aint>(bytes), disp_unit, hints.to_info().native(),
                       comm, &s->win),
        "MPI_Win_create");
  return finish_creation(std::move(s), bytes, disp_unit, window_flavor::create);
}

window window::allocate(MPI_Comm comm,
                        std::size_t bytes,
                        int disp_unit,
                        const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_allocatable(bytes, comm);
  return finish_creation(allocated(comm, bytes, disp_unit, hints, false), bytes, disp_unit,
                         window_flavor::allocate);
}

window window::allocate(MPI_Comm comm,
                        std::size_t bytes,
                        int disp_unit,
                        const std::vector<std::size_t>& every_rank_bytes,
                        const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_known_shape(comm, bytes, every_rank_bytes);
  return finish_creation(allocated(comm, bytes, disp_unit, hints, false), bytes, disp_unit,
                         window_flavor::allocate, &every_rank_bytes);
}

window window::allocate_shared(MPI_Comm comm,
                               std::size_t bytes,
                               int disp_unit,
                               const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_allocatable(bytes, comm);
  return finish_creation(allocated(comm, bytes, disp_unit, hints, true), bytes, disp_unit,
                         window_flavor::shared);
}

window window::allocate_shared(MPI_Comm comm,
                               std::size_t bytes,
                               int disp_unit,
                               const std::vector<std::size_t>& every_rank_bytes,
                               const window_hints& hints) {
  require_positive_disp_unit(disp_unit);
  require_known_shape(comm, bytes, every_rank_bytes);
  return finish_creation(allocated(comm, bytes, disp_unit, hints, true), bytes, disp_unit,
                         window_flavor::shared, &every_rank_bytes);
}

window window::create_dynamic(MPI_Comm comm, const window_hints& hints) {
  auto s = new_state(comm);
  check(MPI_Win_create_dynamic(hints.to_info().native(), comm, &s->win), "MPI_Win_create_dynamic");
  return finish_creation(std::move(s), 0, 1, window_flavor::dynamic);
}

}  // namespace pgas::runtime
