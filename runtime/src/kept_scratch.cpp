// The kept scratch (kept_scratch.hpp): large blocks given back, by size, under one lock. Each
// large block starts with a header holding its own size, since the caller gives it back by the
// size it asked for, which may be less.

#include <pgas/runtime/kept_scratch.hpp>

#include <cstddef>
#include <map>
#include <mutex>
#include <new>

namespace pgas::runtime {

namespace {

constexpr std::size_t header = 64;  // keeps the caller's part aligned for any type
constexpr std::align_val_t alignment{64};

struct keep {
  std::mutex lock;
  std::multimap<std::size_t, std::byte*> blocks;  // by size in bytes, header included
  std::size_t bytes = 0;
};

// Never destroyed: a container destroyed during the program's exit may still give a block back.
keep& the_keep() {
  static keep* const k = new keep;
  return *k;
}

std::size_t& size_of(std::byte* block) noexcept {
  return *std::launder(reinterpret_cast<std::size_t*>(block));
}

}  // namespace

void* take_scratch(std::size_t bytes) {
  if (bytes < kept_scratch_smallest)
    return ::operator new(bytes, alignment);
  const std::size_t whole = bytes + header;
  {
    keep& k = the_keep();
    const std::scoped_lock held(k.lock);
    const auto fit = k.blocks.lower_bound(whole);
    if (fit != k.blocks.end() && fit->first / 4 <= whole) {
      std::byte* const block = fit->second;
      k.bytes -= fit->first;
      k.blocks.erase(fit);
      return block + header;
    }
  }
  auto* const block = static_cast<std::byte*>(::operator new(whole, alignment));
  ::new (static_cast<void*>(block)) std::size_t(whole);
  return block + header;
}

void give_back_scratch(void* given, std::size_t bytes) noexcept {
  if (given == nullptr)
    return;
  if (bytes < kept_scratch_smallest) {
    ::operator delete(given, alignment);
    return;
  }
  std::byte* const block = static_cast<std::byte*>(given) - header;
  const std::size_t whole = size_of(block);
  keep& k = the_keep();
  {
    const std::scoped_lock held(k.lock);
    if (k.bytes + whole <= kept_scratch_most) {
      try {
        k.blocks.emplace(whole, block);
        k.bytes += whole;
        return;
      } catch (const std::bad_alloc&) {
        // no room to note it: freed below
      }
    }
  }
  ::operator delete(block, alignment);
}

std::size_t kept_scratch_bytes() noexcept {
  keep& k = the_keep();
  const std::scoped_lock held(k.lock);
  return k.bytes;
}

}  // namespace pgas::runtime
