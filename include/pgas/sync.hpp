#pragma once
// Sync points: the only synchronisation users see. After each, every remote write issued before
// it (by the images it synchronises) is complete and visible.

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace pgas {

/// Collective over the team in force: completes every image's outstanding writes and makes
/// them visible everywhere (Fortran's SYNC ALL).
inline void sync_all(
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::sync_all", where);
  runtime::sync_all(runtime::current_comm());
}
/// Collective over team t: as sync_all(), over t's images.
inline void sync_all(
    const team& t,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::sync_all", where);
  runtime::sync_all(t.native());
}

/// Completes this image's writes and waits for each listed image (numbered in the team in
/// force) to name this one in its own sync_images (Fortran's SYNC IMAGES). Throws usage_error
/// for an image that does not exist or is listed twice, before any communication.
inline void sync_images(
    std::span<const std::size_t> images,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::sync_images", where);
  const team in_force = current_team();
  std::vector<int> ranks;
  ranks.reserve(images.size());
  for (std::size_t img : images) {
    if (img >= in_force.size()) {
      throw usage_error("sync_images: image " + std::to_string(img) +
                        " does not exist; there are " + std::to_string(in_force.size()) +
                        " images");
    }
    ranks.push_back(in_force.world_rank(img));
  }
  // Named twice: said here in the team's numbers (the runtime would say it in the world's).
  std::vector<std::size_t> sorted(images.begin(), images.end());
  std::sort(sorted.begin(), sorted.end());
  if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end()) {
    throw usage_error("sync_images: image " + std::to_string(*twice) + " is named twice");
  }
  runtime::sync_images(ranks);
}
inline void sync_images(
    std::initializer_list<std::size_t> images,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  sync_images(std::span<const std::size_t>(images.begin(), images.size()), where);
}
inline void sync_images(
    const std::vector<std::size_t>& images,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  sync_images(std::span<const std::size_t>(images), where);
}

/// What `sync_images(pgas::all_images)` names: every other image (Fortran's SYNC IMAGES(*)).
struct all_images_t {
  explicit constexpr all_images_t() = default;
};
inline constexpr all_images_t all_images{};
/// Completes this image's writes and waits for every other image to name this one (or all
/// images) in its own sync_images.
inline void sync_images(
    all_images_t,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::sync_images", where);
  const team in_force = current_team();
  std::vector<int> others;
  for (std::size_t img = 0; img < in_force.size(); ++img) {
    if (img != in_force.rank())
      others.push_back(in_force.world_rank(img));
  }
  runtime::sync_images(others);
}

/// Local: completes this image's outstanding writes (Fortran's SYNC MEMORY), and waits until
/// every remote call it sent (rpc_ff) has run, which needs their targets to make progress.
/// Other images see the writes once they synchronise with this one.
inline void sync_memory(
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::sync_memory", where);
  runtime::sync_memory();
}

}  // namespace pgas
