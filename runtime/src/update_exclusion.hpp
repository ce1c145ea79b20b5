#pragma once
// Who may update a shared window's memory how: the owner applying a batch with plain loads and
// stores, or any image with processor atomics in place. Private to runtime/src.
//
// Why: on one node an owner that applies the batches handed to it with plain stores keeps its
// table in its own cache (gups on a table that fits: a fifth faster than atomics from both
// images, whose lines travel between the cores). That is sound only while no image updates the
// same memory in place with atomics meanwhile (MPI-4.1 §12.7.1 makes accumulates atomic with
// each other, and an element atomic is one). So each rank's memory ends with a line of two
// words: `in_place_seen`, set by an image before its first in-place atomic on the window, and
// `applying_plain`, set by the owner around a plain batch. Each side stores its word, then
// reads the other's, both sequentially consistent (Dekker's handshake): either the owner sees
// the announcement and applies atomically, or the announcing image sees the owner at work and
// waits for its batch to end. Atomics pay this once per window and image; a container once
// updated in place has every later batch applied atomically too — by the updating images
// themselves, who read the announcement before they send (window::owners_can_apply_batches),
// or by the owner, for a batch sent before it. What an image announces is the
// window's generation, not a flag: the window pool hands a window to a new container (every
// process counts one more generation), whose owners then ignore what was announced for the old
// one — a reset instead could not be ordered with the next container's first announcement.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pgas::runtime {

struct alignas(64) update_exclusion {
  std::uint32_t in_place_seen;
  std::uint32_t applying_plain;
};

/// Bytes an allocate_shared window allocates past each exposure for its line.
inline constexpr std::size_t update_exclusion_room = 2 * sizeof(update_exclusion);

/// The line of the rank whose shared segment MPI allocated at `base`, `bytes` long (with
/// update_exclusion_room in it): the last whole line of the segment, past the exposure.
[[nodiscard]] update_exclusion* update_exclusion_in(void* base, std::size_t bytes) noexcept;

/// Clears this process's line in its freshly allocated segment; before the collective that
/// ends the window's creation, so that no image announces before it is cleared.
void clear_update_exclusion(void* base, std::size_t bytes) noexcept;

/// Every rank's line of a shared window, by rank.
[[nodiscard]] std::vector<update_exclusion*> update_exclusions_of(MPI_Win win, int ranks);

/// Tells every rank's owner that this process updates the window, in its `generation`, in
/// place from now on; waits for an owner's plain batch in progress to end.
void announce_in_place_updates(const std::vector<update_exclusion*>& lines,
                               std::uint32_t generation) noexcept;

/// Whether some image has announced in-place updates of the window in its `generation` (every
/// announcement marks every rank's line, so any one line tells).
/// (Not const: C++20's atomic_ref loads through a mutable object.)
[[nodiscard]] bool in_place_updates_announced(update_exclusion& line,
                                              std::uint32_t generation) noexcept;

/// The owner, before a batch: true when it may apply it with plain loads and stores (no image
/// has announced in-place updates in the window's `generation`); then end_plain_updates must
/// follow the batch.
[[nodiscard]] bool begin_plain_updates(update_exclusion& mine, std::uint32_t generation) noexcept;
void end_plain_updates(update_exclusion& mine) noexcept;

}  // namespace pgas::runtime
