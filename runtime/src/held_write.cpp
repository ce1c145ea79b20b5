#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/window.hpp>

#include <cstdio>
#include <exception>

namespace pgas::runtime {

namespace {
// Takes the held write off, so that what issues it (which asks release_held_write first) finds
// none.
detail::held_write& take_held() noexcept {
  detail::write_is_held = false;
  return detail::held;
}
}  // namespace

void detail::issue_held_write() {
  const held_write& h = take_held();
  detail::put_staged(*h.w, h.value, h.bytes, h.type, h.count, h.target, h.disp);
}

void send_held_write_ahead_of_message_to(std::size_t destination) {
  if (!detail::write_is_held ||
      static_cast<std::size_t>(detail::held.w->world_rank_of(detail::held.target)) != destination) {
    return;
  }
  // The window is still in its passive epoch, where its owner applies updates: a phase's
  // beginning would have issued the write.
  const detail::held_write& h = take_held();
  owner_updates::store(*h.w, h.value, h.bytes, h.target, h.disp);
}

void release_held_write_of(const window& w, bool mpi_callable) noexcept {
  if (!detail::write_is_held || detail::held.w != &w)
    return;
  if (!mpi_callable) {  // after MPI_Finalize: nothing can carry it, as no put could
    (void)take_held();
    return;
  }
  try {
    detail::issue_held_write();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pgas: releasing a window, its last element write: %s\n", e.what());
  }
}

}  // namespace pgas::runtime
