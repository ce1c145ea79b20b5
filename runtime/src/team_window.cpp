#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/team_window.hpp>

#include "window_pool.hpp"
#include "window_state.hpp"
#include <utility>

namespace pgas::runtime {

window allocate_team_window(MPI_Comm comm,
                            std::size_t bytes,
                            int disp_unit,
                            const std::vector<std::size_t>& every_rank_bytes) {
  if (auto kept = window_pool::take(comm, every_rank_bytes, disp_unit)) {
    window_goes_live(*kept);
    if (statistics::enabled)
      ++statistics::counters.windows_from_pool;
    return window{std::move(kept)};
  }
  window w;
  if (world_shares_memory()) {
    window_hints hints;
    hints.shared_noncontig = true;  // each part first touched by its owner, not one block
    w = window::allocate_shared(comm, bytes, disp_unit, every_rank_bytes, hints);
  } else {
    w = window::allocate(comm, bytes, disp_unit, every_rank_bytes);
  }
  w.state().poolable = true;
  w.state().owner_applies = w.flavor() != window_flavor::shared && messages::running();
  return w;
}

window create_team_dynamic_window(MPI_Comm comm) {
  window w = window::create_dynamic(comm);
  w.state().owner_applies = messages::running();
  return w;
}

}  // namespace pgas::runtime
