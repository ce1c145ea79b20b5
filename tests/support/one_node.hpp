#pragma once
// Whether the whole job runs on this node: what a shared-memory window over world needs
// (MPI-4.1 §12.2.3), which tests of that flavor skip without (scripts/two-hosts' jobs).
#include <pgas/runtime/environment.hpp>

#include <cstddef>

namespace pgas_test {

/// True when every image runs on this node. The same on every image. Local.
inline bool world_on_one_node() {
  for (std::size_t r = 0; r < pgas::runtime::world_size(); ++r) {
    if (!pgas::runtime::on_this_node(r))
      return false;
  }
  return true;
}

}  // namespace pgas_test
