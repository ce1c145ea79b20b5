// Dynamic windows: attaching and detaching regions, and publishing their addresses.
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/window.hpp>

#include "window_state.hpp"
#include <algorithm>
#include <string>

namespace pgas::runtime {

void window::attach(void* base, std::size_t bytes) {
  window_state& s = state();
  if (s.flavor != window_flavor::dynamic)
    throw usage_error("attach needs a dynamic window");
  if (base == nullptr || bytes == 0)
    throw usage_error("attach needs a non-empty region");
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
  if (s.mode == epoch::passive)
    flush_all();
  check(MPI_Win_detach(s.win, base), "MPI_Win_detach");
  s.attached.erase(it);
}

std::size_t window::attachments() const {
  return state().attached.size();
}

std::vector<MPI_Aint> window::publish(const void* local) const {
  const window_state& s = state();
  MPI_Aint mine = 0;
  check(MPI_Get_address(local, &mine), "MPI_Get_address");
  std::vector<MPI_Aint> all(static_cast<std::size_t>(s.ranks));
  messages::collective("MPI_Iallgather", MPI_Iallgather, &mine, 1, MPI_AINT, all.data(), 1,
                       MPI_AINT, s.comm);
  return all;
}

}  // namespace pgas::runtime
