#pragma once
// This image and the number of images as MPI ranks, and a barrier of every image: the runtime's
// tests speak MPI's terms (int ranks), and several units of one test binary name them.
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/sync.hpp>

namespace pgas::test {

inline int me() {
  return static_cast<int>(pgas::this_image());
}
inline int images() {
  return static_cast<int>(pgas::num_images());
}
inline void sync() {
  pgas::runtime::sync_all(pgas::runtime::world_comm());
}

}  // namespace pgas::test
