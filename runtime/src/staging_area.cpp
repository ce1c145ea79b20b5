#include "staging_area.hpp"

namespace pgas::runtime {

void* staging_area::take_elsewhere(std::size_t bytes) {
  since_completion_ += bytes;
  if (bytes > chunk_bytes) {
    oversized_.push_back(std::make_unique<std::byte[]>(bytes));
    return oversized_.back().get();
  }
  // The current chunk is full (or there is none yet): move to the next, making it if needed.
  if (!chunks_.empty())
    ++chunk_index_;
  if (chunk_index_ == chunks_.size())
    chunks_.push_back(std::make_unique<std::byte[]>(chunk_bytes));
  chunk_used_ = bytes;
  return chunks_[chunk_index_].get();
}

}  // namespace pgas::runtime
