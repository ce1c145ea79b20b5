#pragma once
// Where images' parts of a container are in this process's memory: its own part always, every
// peer's too when their window maps them (all images on one node).

#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <vector>

namespace pgas::detail {

/// Every image's part as mapped into this process, indexed by image, when the window maps them
/// all; empty when peers are reached through RMA only. Local.
template <class T>
[[nodiscard]] std::vector<T*> mapped_parts(const runtime::window& w) {
  std::vector<T*> out;
  for (void* base : w.mapped_bases()) out.push_back(static_cast<T*>(base));
  return out;
}

/// The address in this process of element `offset` of image `img`'s part, or null when only
/// RMA reaches it. `mine` is this image's part, `mapped` what mapped_parts() gave. Local.
template <class T>
[[nodiscard]] T* address_here(std::size_t img,
                              std::size_t me,
                              T* mine,
                              const std::vector<T*>& mapped,
                              std::size_t offset) noexcept {
  if (!mapped.empty())
    return mapped[img] + offset;
  return img == me ? mine + offset : nullptr;
}

/// Whether peers are reached through MPI only (no peer's part mapped here: other nodes, or no
/// shared memory): then a halo exchange travels as messages, not puts in an epoch over the
/// neighbours (halo_plan.hpp). The same answer on every image of a window. Local.
template <class T>
[[nodiscard]] bool peers_through_mpi_only(const std::vector<T*>& mapped) noexcept {
  return mapped.empty();
}

}  // namespace pgas::detail
