#pragma once
// A segment: a run of consecutive global indices that one image stores consecutively.

#include <cstddef>

namespace pgas {

/// Global indices [global_begin, global_begin + size) live on `image` at local offsets
/// [local_begin, local_begin + size). A container's segments() lists them in global order.
struct segment {
  std::size_t image;
  std::size_t global_begin;
  std::size_t local_begin;
  std::size_t size;
  friend bool operator==(const segment&, const segment&) = default;
};

}  // namespace pgas
