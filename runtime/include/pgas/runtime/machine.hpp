#pragma once
// What the processor this process runs on offers, read from the machine once, so tuning
// thresholds follow the machine a program runs on instead of the one it was tuned on.

#include <cstddef>

namespace pgas::runtime {

/// Cache sizes in bytes. Local.
struct cache_sizes {
  std::size_t per_core;  // the largest cache one core has to itself (usually L2)
  std::size_t shared;    // the last-level cache, which cores share (usually L3)
};

/// The caches of the processor this process runs on (hwloc's topology; the C library's figures
/// if hwloc finds none; 1 MiB and 32 MiB if neither does), or PGAS_CORE_CACHE_BYTES and
/// PGAS_SHARED_CACHE_BYTES where set (usage_error unless a positive number). Read once. Local;
/// thread-safe.
[[nodiscard]] const cache_sizes& machine_caches();

/// A quarter of one core's own cache: a block that a pass over a larger range works on at a
/// time, with room left for the other data streaming through the core (the in-place combiner's
/// table blocks, block_copy's copies). Local.
[[nodiscard]] inline std::size_t core_cache_block_bytes() {
  return machine_caches().per_core / 4;
}

/// The machine's memory: RAM plus swap. No single process can be given more, so a larger
/// request is a mistake (an overflowed or mistyped size), not a shortage. SIZE_MAX if unknown.
/// Local.
[[nodiscard]] std::size_t machine_memory_bytes() noexcept;

/// Throws usage_error naming `what` if `count` things of `bytes_each` bytes need more than
/// machine_memory_bytes(), before anything is allocated. Local; every image decides alike when
/// the arguments are the same on every image.
void require_memory(const char* what, std::size_t count, std::size_t bytes_each);

/// The size of the kernel's transparent huge pages (Linux's hpage_pmd_size, 2 MiB on x86-64),
/// or 0 where the kernel offers none. Read once. Local; thread-safe.
[[nodiscard]] std::size_t transparent_huge_page_bytes() noexcept;

/// Throws usage_error if PGAS_CORE_CACHE_BYTES or PGAS_SHARED_CACHE_BYTES is set but not a
/// positive number of bytes: what the environment checks at start, on every image. Local.
void check_cache_settings();

}  // namespace pgas::runtime
