// What each one-sided operation asks of its window before it is issued: the target and the
// bytes checked against what the target exposes, the write noted, earlier writes completed
// before a read, and room for staged values.
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/window.hpp>

#include "window_state.hpp"
#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace pgas::runtime {

namespace {

// The out_of_range check_exposure throws, apart from the check: the message's strings are
// built only when it fails.
[[gnu::cold, gnu::noinline, noreturn]] void throw_outside_exposure(const window_state& s,
                                                                   int target,
                                                                   MPI_Aint disp,
                                                                   std::size_t bytes) {
  const auto t = static_cast<std::size_t>(target);
  throw out_of_range("displacement " + std::to_string(disp) + " (disp_unit " +
                     std::to_string(s.disp_units[t]) + ") plus " + std::to_string(bytes) +
                     " bytes is outside the " + std::to_string(s.sizes[t]) + " bytes image " +
                     std::to_string(target) + " exposes");
}

// Throws usage_error for a rank outside the window, out_of_range for bytes past what `target`
// exposes at `disp`. Called for every operation, so inline and with no division on the way.
[[gnu::always_inline]] inline void check_exposure(const window_state& s,
                                                  int target,
                                                  MPI_Aint disp,
                                                  std::size_t bytes) {
  require_rank(s, target);
  if (s.flavor == window_flavor::dynamic)
    return;  // addresses: only the target knows its regions
  const auto t = static_cast<std::size_t>(target);
  // The target address is base + disp x the *target's* disp_unit (MPI-4.1 §12.3.1).
  const auto unit = static_cast<std::size_t>(s.disp_units[t]);
  std::size_t offset = 0;
  if (disp < 0 || __builtin_mul_overflow(static_cast<std::size_t>(disp), unit, &offset) ||
      bytes > s.sizes[t] || offset > s.sizes[t] - bytes) {
    throw_outside_exposure(s, target, disp, bytes);
  }
}

// Before this process's first in-place atomic on a shared window (update_exclusion.hpp).
[[gnu::cold, gnu::noinline]] void announce_updates_in_place(window_state& s) {
  announce_in_place_updates(s.exclusion, s.exclusion_generation);
  s.announced_in_place = true;
}

}  // namespace

window::access window::writing_to(int target, MPI_Aint disp, std::size_t bytes, write_kind kind) {
  release_held_write();
  window_state& s = state();
  check_exposure(s, target, disp, bytes);
  const bool passive = s.mode == epoch::passive;
  if (passive) {
    // Byte addresses at the target: a dynamic window's displacements are addresses already.
    const MPI_Aint begin =
        s.flavor == window_flavor::dynamic
            ? disp
            : disp * static_cast<MPI_Aint>(s.disp_units[static_cast<std::size_t>(target)]);
    const MPI_Aint end = begin + static_cast<MPI_Aint>(bytes);
    // A batch applied by its owner is ordered with nothing MPI carries: wait for it.
    if (s.pending.written(target).must_wait(begin, end, kind) || s.awaited_at_owner(target)) {
      flush(target);
    }
    s.pending.written(target).record(begin, end, kind);
  }
  s.pending.mark(target);
  note_work(s);
  return {s.win, passive, target == s.rank, disp + s.shift.of(target)};
}

void window::loading_from(const char* what, int target) {
  release_held_write();
  window_state& s = state();
  if (s.mode != epoch::passive)
    require_passive(what);
  require_rank(s, target);
  if (s.pending.at(target) || s.awaited_at_owner(target)) {
    flush(target);
  }
}

window::access window::reading_from(const char* what,
                                    int target,
                                    MPI_Aint disp,
                                    std::size_t bytes) {
  loading_from(what, target);
  const window_state& s = state();
  check_exposure(s, target, disp, bytes);
  return {s.win, true, target == s.rank, disp + s.shift.of(target)};
}

bool window::updates_in_place() const {
  const window_state& s = state();
  return s.flavor == window_flavor::shared && s.mode == epoch::passive;
}

void* window::mapped_for_update(int target, MPI_Aint disp, std::size_t bytes) {
  release_held_write();
  window_state& s = state();
  if (s.flavor != window_flavor::shared || s.mode != epoch::passive)
    return nullptr;
  check_exposure(s, target, disp, bytes);
  if (!s.announced_in_place)
    announce_updates_in_place(s);
  if (s.pending.at(target))
    flush(target);
  const auto t = static_cast<std::size_t>(target);
  return s.mapped[t] + disp * static_cast<MPI_Aint>(s.disp_units[t]);
}

bool window::begin_in_place_updates() {
  release_held_write();
  if (!updates_in_place())
    return false;
  window_state& s = state();
  if (!s.announced_in_place)
    announce_updates_in_place(s);
  if (!s.pending.targets().empty())
    flush_all();
  return true;
}

void window::note_write(int target) {
  release_held_write();
  window_state& s = state();
  s.pending.mark(target);
  note_work(s);
}

void window::ordering_for_owner(int target, MPI_Aint disp, std::size_t bytes) {
  release_held_write();
  window_state& s = state();
  require_passive("an update applied by its owner");
  check_exposure(s, target, disp, bytes);
  // Earlier batches to this owner need no wait: the engine delivers one image's messages to
  // another in the order sent.
  if (s.pending.at(target))
    flush(target);
}

void window::sending_to_owner(int target, MPI_Aint disp, std::size_t bytes) {
  ordering_for_owner(target, disp, bytes);
  window_state& s = state();
  if (s.at_owner.empty())
    s.at_owner.assign(static_cast<std::size_t>(s.ranks), 0);
  ++s.at_owner[static_cast<std::size_t>(target)];
  ++s.at_owner_total;
  note_work(s);
}

bool window::owners_can_apply_batches() const {
  const window_state& s = state();
  if (s.mode != epoch::passive)
    return false;
  if (s.owner_applies)
    return true;
  // A shared window, until some image updates it in place: from then on its owners would apply
  // the batches with processor atomics too, after a sort and a copy that the updater's own
  // atomics in place do without.
  return s.flavor == window_flavor::shared && messages::running() &&
         !in_place_updates_announced(*s.exclusion[static_cast<std::size_t>(s.rank)],
                                     s.exclusion_generation);
}

bool window::begin_plain_updates() {
  window_state& s = state();
  if (s.flavor != window_flavor::shared)
    return true;  // owner_applies_updates(): every update of it is the owner's
  // Every announcement, this process's own too, marks this line.
  return runtime::begin_plain_updates(*s.exclusion[static_cast<std::size_t>(s.rank)],
                                      s.exclusion_generation);
}

void window::end_plain_updates() {
  window_state& s = state();
  if (s.flavor == window_flavor::shared)
    runtime::end_plain_updates(*s.exclusion[static_cast<std::size_t>(s.rank)]);
}

bool window::owner_applies_updates() const {
  const window_state& s = state();
  return s.owner_applies && s.mode == epoch::passive;
}

window::write_route window::route_of_element_write(int target, MPI_Aint disp, std::size_t bytes) {
  window_state& s = state();
  if (!s.owner_applies || s.mode != epoch::passive)
    return write_route::through_mpi;
  require_rank(s, target);
  // Asked of every element written: where each rank runs is found once per window (the calls
  // to find it each time cost an element put through MPI 3 of its 41-44 ns).
  if (s.on_other_node.empty()) {
    s.on_other_node.resize(static_cast<std::size_t>(s.ranks));
    for (int r = 0; r < s.ranks; ++r) {
      s.on_other_node[static_cast<std::size_t>(r)] =
          on_this_node(static_cast<std::size_t>(world_rank_of(r))) ? 0 : 1;
    }
  }
  if (s.on_other_node[static_cast<std::size_t>(target)] != 0)
    return write_route::to_owner;
  if (target == s.rank)
    return write_route::through_mpi;
  // A store or batch sent to the target and not yet acknowledged: a put would first wait for it
  // (writing_to), a message goes behind it on the engine's ordered channel. So the writes of a
  // group of rows after the last one's post go as messages, not as a round trip each.
  if (s.awaited_at_owner(target))
    return write_route::to_owner;
  check_exposure(s, target, disp, bytes);  // a held write fails here, not where it is issued
  return write_route::held;
}

void window::reached_only_through_owner() {
  state().only_through_owner = true;
}

void* window::own_memory_for_update(MPI_Aint disp, std::size_t bytes) {
  window_state& s = state();
  if (bytes > 0)
    check_exposure(s, s.rank, disp, bytes);
  if (s.pending.at(s.rank))
    flush(s.rank);
  if (s.flavor == window_flavor::dynamic)
    return reinterpret_cast<void*>(disp);  // an address
  return static_cast<std::byte*>(base()) +
         disp * static_cast<MPI_Aint>(s.disp_units[static_cast<std::size_t>(s.rank)]);
}

// The batches may still sit in the engine's buffers: they go out first. The engine's
// acknowledgements say when the owners handled them (and whatever else was sent before).
void await_owners(window_state& s, int target) {
  if (!s.awaited_at_owner(target))
    return;
  const auto t = static_cast<std::size_t>(target);
  const auto destination = static_cast<std::size_t>(s.handle->world_rank_of(target));
  messages::await_handled(std::span<const std::size_t>(&destination, 1));
  s.at_owner_total -= s.at_owner[t];
  s.at_owner[t] = 0;
}

void await_owners(window_state& s) {
  if (s.at_owner_total == 0)
    return;
  std::vector<std::size_t> destinations;
  for (std::size_t t = 0; t < s.at_owner.size(); ++t) {
    if (s.at_owner[t] != 0)
      destinations.push_back(
          static_cast<std::size_t>(s.handle->world_rank_of(static_cast<int>(t))));
  }
  messages::await_handled(destinations);
  std::fill(s.at_owner.begin(), s.at_owner.end(), 0);
  s.at_owner_total = 0;
}

void* window::staging_slot(std::size_t bytes) {
  window_state& s = state();
  // Bound the memory held for values not yet completed: complete them all now and then.
  if (s.staging.full_for(bytes) && s.mode == epoch::passive)
    flush_local_all();
  return s.staging.take(bytes);
}

}  // namespace pgas::runtime
