#pragma once
// Memory for values a put or accumulate reads after the caller's own copy is gone (an element
// write returns at once). Slots stay unchanged until the window's operations are completed at
// the origin; then the whole area is reused. Private to runtime/src.

#include <cstddef>
#include <memory>
#include <vector>

namespace pgas::runtime {

class staging_area {
 public:
  /// Past this many bytes staged since the last completion, the window completes its
  /// operations before staging more, which bounds the memory held.
  static constexpr std::size_t completion_threshold = 4 * 1024 * 1024;
  /// True when staging `bytes` more would pass completion_threshold.
  [[nodiscard]] bool full_for(std::size_t bytes) const noexcept {
    return since_completion_ + bytes > completion_threshold;
  }
  /// Room for `bytes`, aligned for any scalar type, valid until reset(). The common case, room
  /// left in the current chunk, is inline: every element put through MPI stages its value here.
  [[nodiscard]] void* take(std::size_t bytes) {
    constexpr std::size_t align = alignof(std::max_align_t);
    const std::size_t start = (chunk_used_ + align - 1) & ~(align - 1);
    if (bytes <= chunk_bytes && !chunks_.empty() && start + bytes <= chunk_bytes) {
      since_completion_ += bytes;
      chunk_used_ = start + bytes;
      return chunks_[chunk_index_].get() + start;
    }
    return take_elsewhere(bytes);
  }
  /// Every slot may be reused: the operations reading them have completed at the origin.
  void reset() noexcept {
    chunk_index_ = 0;
    chunk_used_ = 0;
    oversized_.clear();
    since_completion_ = 0;
  }

 private:
  // Values go into chunks reused after each completion; larger ones get their own block.
  static constexpr std::size_t chunk_bytes = 64 * 1024;
  // take() past the current chunk: the next chunk, made if needed, or a block of its own.
  void* take_elsewhere(std::size_t bytes);
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::vector<std::unique_ptr<std::byte[]>> oversized_;
  std::size_t chunk_index_ = 0;
  std::size_t chunk_used_ = 0;
  std::size_t since_completion_ = 0;
};

}  // namespace pgas::runtime
