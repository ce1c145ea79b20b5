#pragma once
// The size check every container makes before it allocates: a negative number converted to
// size_t, or a shape whose element count overflows, must be refused, not wrapped into a small
// window that is then indexed out of bounds.

#include <pgas/runtime/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pgas::detail {

/// Throws usage_error if `count` × `per` elements of T could not be addressed in one process.
/// The arguments are the same on every image, so every image throws alike.
template <class T>
void require_addressable(const char* container, std::size_t count, std::size_t per = 1) {
  constexpr std::size_t limit = static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T);
  if (count > limit || per > limit || (per != 0 && count > limit / per)) {
    throw usage_error(std::string(container) + ": " + std::to_string(count) +
                      (per == 1 ? "" : " x " + std::to_string(per)) +
                      " elements is too large (a negative number converted to size_t?)");
  }
}

}  // namespace pgas::detail
