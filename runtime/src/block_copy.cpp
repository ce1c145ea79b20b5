#include <pgas/runtime/block_copy.hpp>
#include <pgas/runtime/machine.hpp>

#include <algorithm>
#include <functional>

namespace pgas::runtime {

void copy_bytes_in_blocks(void* to, const void* from, std::size_t bytes) noexcept {
  auto* out = static_cast<std::byte*>(to);
  const auto* in = static_cast<const std::byte*>(from);
  const std::less<const std::byte*> before;
  if (before(in, out + bytes) && before(out, in + bytes)) {  // overlapping: memmove's order
    std::memmove(out, in, bytes);
    return;
  }
  // The environment has read the caches at start (a bad PGAS_CORE_CACHE_BYTES stops it there).
  static const std::size_t block = std::max(one_piece_copy_bytes, core_cache_block_bytes());
  for (std::size_t at = 0; at < bytes; at += block)
    std::memcpy(out + at, in + at, std::min(block, bytes - at));
}

}  // namespace pgas::runtime
