// What a window says about itself: MPI's attributes, and what each peer exposes.
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/group.hpp>
#include <pgas/runtime/window.hpp>

#include "window_state.hpp"
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas::runtime {

namespace {

template <class T>
T attribute(MPI_Win win, int key, const char* name) {
  void* value = nullptr;
  int found = 0;
  check(MPI_Win_get_attr(win, key, &value, &found), "MPI_Win_get_attr");
  if (found == 0)
    throw usage_error(std::string("window attribute ") + name + " is not set");
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<T>(value);  // MPI_WIN_BASE is the base address itself
  } else {
    return static_cast<T>(*static_cast<T*>(value));  // the others point to the value
  }
}

void require_static_exposure(const window_state& s, const char* what) {
  if (s.flavor == window_flavor::dynamic) {
    throw usage_error(std::string(what) + " is not known for a dynamic window");
  }
}

}  // namespace

void throw_no_such_rank(const window_state& s, int target) {
  throw usage_error("target image " + std::to_string(target) + " does not exist; the window has " +
                    std::to_string(s.ranks) + " images");
}

MPI_Comm window::comm() const {
  return state().comm;
}
int window::rank() const {
  return state().rank;
}
int window::ranks() const {
  return state().ranks;
}

// For allocate and allocate_shared windows MPI's memory is allocation_bytes() long and the
// exposure starts this process's shift into it (window_alignment.hpp).
void* window::base() const {
  const window_state& s = state();
  if (s.exposure_base == nullptr) {
    const MPI_Aint shift = s.shift.of(s.rank) * disp_unit();
    s.exposure_base =
        static_cast<std::byte*>(attribute<void*>(s.win, MPI_WIN_BASE, "MPI_WIN_BASE")) + shift;
  }
  return s.exposure_base;
}
std::size_t window::size() const {
  const window_state& s = state();
  // What it asked for, not the room MPI gave it for the shift.
  if (s.flavor == window_flavor::allocate || s.flavor == window_flavor::shared)
    return s.sizes[static_cast<std::size_t>(s.rank)];
  return static_cast<std::size_t>(attribute<MPI_Aint>(s.win, MPI_WIN_SIZE, "MPI_WIN_SIZE"));
}
int window::disp_unit() const {
  return attribute<int>(state().win, MPI_WIN_DISP_UNIT, "MPI_WIN_DISP_UNIT");
}
window_flavor window::flavor() const {
  switch (attribute<int>(state().win, MPI_WIN_CREATE_FLAVOR, "MPI_WIN_CREATE_FLAVOR")) {
    case MPI_WIN_FLAVOR_CREATE:
      return window_flavor::create;
    case MPI_WIN_FLAVOR_ALLOCATE:
      return window_flavor::allocate;
    case MPI_WIN_FLAVOR_SHARED:
      return window_flavor::shared;
    default:
      return window_flavor::dynamic;
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
  if (s.flavor != window_flavor::shared)
    throw usage_error("shared_query needs an allocate_shared window");
  require_rank(s, target);
  MPI_Aint bytes = 0;
  int unit = 0;
  void* base = nullptr;
  check(MPI_Win_shared_query(s.win, target, &bytes, &unit, &base), "MPI_Win_shared_query");
  // Each process shifted by whole units of its own (window_alignment.hpp) and exposes what it
  // asked for, which is less than MPI allocated.
  return {static_cast<std::byte*>(base) + s.shift.of(target) * unit,
          s.sizes[static_cast<std::size_t>(target)], unit};
}

std::vector<void*> window::mapped_bases() const {
  const window_state& s = state();
  return {s.mapped.begin(), s.mapped.end()};
}

int window::world_rank_of(int target) const {
  window_state& s = state();
  require_rank(s, target);
  if (s.world_ranks.empty()) {
    MPI_Group mine = MPI_GROUP_NULL;
    MPI_Group world = MPI_GROUP_NULL;
    check(MPI_Comm_group(s.comm, &mine), "MPI_Comm_group");
    const group owned_mine{mine};
    check(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
    const group owned_world{world};
    std::vector<int> ranks(static_cast<std::size_t>(s.ranks));
    for (int r = 0; r < s.ranks; ++r) ranks[static_cast<std::size_t>(r)] = r;
    s.world_ranks.resize(ranks.size());
    check(MPI_Group_translate_ranks(mine, s.ranks, ranks.data(), world, s.world_ranks.data()),
          "MPI_Group_translate_ranks");
  }
  return s.world_ranks[static_cast<std::size_t>(target)];
}

}  // namespace pgas::runtime
