// The kept scratch (kept_scratch.hpp): large blocks given back, by size, under one lock. Each
// large block starts with a header holding its own size and how it was made, since the caller
// gives it back by the size it asked for, which may be less.
//
// A block of at least a transparent huge page is mapped on its own, aligned to huge pages, and
// the kernel is asked to back it with them (madvise, where the kernel leaves huge pages to the
// program's choice): on an AMD EPYC VM a bale-size histogram's first call faulted 7325 pages
// of 4 KiB and took 0.18-0.20 s, on huge pages 16 and 0.07-0.14 s (bench/README, fifty-sixth
// session). Under AddressSanitizer blocks stay on the heap, where it checks them.

#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/machine.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <sys/mman.h>

namespace pgas::runtime {

namespace {

constexpr std::size_t header = 64;  // keeps the caller's part aligned for any type
constexpr std::align_val_t alignment{64};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool heap_checked = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool heap_checked = true;
#else
constexpr bool heap_checked = false;
#endif
#else
constexpr bool heap_checked = false;
#endif

// What a large block's header holds.
struct block_header {
  std::size_t bytes;  // the whole block, header included: what it may serve
  bool mapped;        // on huge pages of its own (else from the heap)
};
static_assert(sizeof(block_header) <= header);

block_header& header_of(std::byte* block) noexcept {
  return *std::launder(reinterpret_cast<block_header*>(block));
}

// `bytes` rounded up to whole huge pages, mapped at a huge page's boundary and marked for huge
// pages; null where no huge pages are offered or the block is smaller than one. The kernel may
// still back it with small pages (huge pages disabled, or none free): it works the same.
std::byte* map_on_huge_pages(std::size_t& bytes) {
  const std::size_t huge = transparent_huge_page_bytes();
  if (!kept_scratch_maps_huge_pages() || bytes < huge)
    return nullptr;
  const std::size_t length = (bytes + huge - 1) / huge * huge;
  // One huge page more than asked, so that a boundary falls inside; the rest is unmapped.
  void* const area =
      mmap(nullptr, length + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(area);
  const std::uintptr_t aligned = (start + huge - 1) / huge * huge;
  if (aligned > start)
    munmap(area, aligned - start);
  if (const std::size_t after = start + huge - aligned; after > 0)
    munmap(reinterpret_cast<void*>(aligned + length), after);
  // Refused (a kernel built without huge pages): small pages, as from the heap.
  (void)madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  bytes = length;
  return reinterpret_cast<std::byte*>(aligned);
}

std::byte* new_block(std::size_t bytes) {
  std::byte* block = map_on_huge_pages(bytes);
  const bool mapped = block != nullptr;
  if (!mapped)
    block = static_cast<std::byte*>(::operator new(bytes, alignment));
  ::new (static_cast<void*>(block)) block_header{bytes, mapped};
  return block;
}

void free_block(std::byte* block) noexcept {
  const block_header h = header_of(block);
  if (h.mapped) {
    munmap(block, h.bytes);
  } else {
    ::operator delete(block, alignment);
  }
}

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
  return new_block(whole) + header;
}

void give_back_scratch(void* given, std::size_t bytes) noexcept {
  if (given == nullptr)
    return;
  if (bytes < kept_scratch_smallest) {
    ::operator delete(given, alignment);
    return;
  }
  std::byte* const block = static_cast<std::byte*>(given) - header;
  const std::size_t whole = header_of(block).bytes;
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
  free_block(block);
}

bool kept_scratch_maps_huge_pages() noexcept {
  return !heap_checked && transparent_huge_page_bytes() != 0;
}

std::size_t kept_scratch_bytes() noexcept {
  keep& k = the_keep();
  const std::scoped_lock held(k.lock);
  return k.bytes;
}

}  // namespace pgas::runtime
