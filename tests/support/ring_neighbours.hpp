#pragma once
// This image, the number of images, and its neighbours on the ring of images (in the team in
// force): what tests that pass values around the images name.
#include <pgas/pgas.hpp>

#include <cstddef>

namespace pgas_test {

inline std::size_t me() {
  return pgas::this_image();
}
inline std::size_t images() {
  return pgas::num_images();
}
inline std::size_t right() {
  return (me() + 1) % images();
}
inline std::size_t left() {
  return (me() + images() - 1) % images();
}

}  // namespace pgas_test
