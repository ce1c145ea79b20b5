#include "update_exclusion.hpp"

#include <pgas/runtime/error.hpp>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace pgas::runtime {

update_exclusion* update_exclusion_in(void* base, std::size_t bytes) noexcept {
  const auto end = reinterpret_cast<std::uintptr_t>(base) + bytes;
  // The room holds two lines, so the last aligned one lies wholly past the exposure.
  return reinterpret_cast<update_exclusion*>((end - sizeof(update_exclusion)) &
                                             ~std::uintptr_t{alignof(update_exclusion) - 1});
}

void clear_update_exclusion(void* base, std::size_t bytes) noexcept {
  update_exclusion& line = *update_exclusion_in(base, bytes);
  std::atomic_ref<std::uint32_t>(line.in_place_seen).store(0);
  std::atomic_ref<std::uint32_t>(line.applying_plain).store(0);
}

std::vector<update_exclusion*> update_exclusions_of(MPI_Win win, int ranks) {
  std::vector<update_exclusion*> lines;
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint bytes = 0;
    int unit = 0;
    void* base = nullptr;
    check(MPI_Win_shared_query(win, r, &bytes, &unit, &base), "MPI_Win_shared_query");
    lines.push_back(update_exclusion_in(base, static_cast<std::size_t>(bytes)));
  }
  return lines;
}

void announce_in_place_updates(const std::vector<update_exclusion*>& lines,
                               std::uint32_t generation) noexcept {
  for (update_exclusion* line : lines)
    std::atomic_ref<std::uint32_t>(line->in_place_seen).store(generation);
  // An owner that read no announcement is inside one batch, which ends without waiting for
  // anything — unless its process is not running (more images than cores): then give way.
  for (update_exclusion* line : lines) {
    for (unsigned spins = 1; std::atomic_ref<std::uint32_t>(line->applying_plain).load() != 0;
         ++spins) {
      if (spins % 1024 == 0)
        std::this_thread::yield();
    }
  }
}

bool in_place_updates_announced(update_exclusion& line, std::uint32_t generation) noexcept {
  return std::atomic_ref<std::uint32_t>(line.in_place_seen).load(std::memory_order_acquire) ==
         generation;
}

bool begin_plain_updates(update_exclusion& mine, std::uint32_t generation) noexcept {
  std::atomic_ref<std::uint32_t> applying(mine.applying_plain);
  applying.store(1);
  if (std::atomic_ref<std::uint32_t>(mine.in_place_seen).load() != generation)
    return true;
  applying.store(0, std::memory_order_release);
  return false;
}

void end_plain_updates(update_exclusion& mine) noexcept {
  std::atomic_ref<std::uint32_t>(mine.applying_plain).store(0, std::memory_order_release);
}

}  // namespace pgas::runtime
