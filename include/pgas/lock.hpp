#pragma once
// pgas::lock_type and pgas::critical: Fortran 2018's lock_type and critical construct. A fair
// queue lock (Mellor-Crummey and Scott's, "MCS") built from one-sided atomics: each waiter
// spins on a flag in its own memory, so waiting sends nothing to the lock's image, and the
// lock passes in the order images asked for it.

#include <pgas/array.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pgas {

/// One lock per image, like `type(lock_type) :: lk[*]`. Collective to construct and destroy.
/// lock(img) and unlock(img) order memory as sync_memory does: what one holder wrote, the next
/// holder sees.
class lock_type {
 public:
  /// Collective over the team in force: every image's lock starts free.
  lock_type() : lock_type(current_team()) {}
  /// Collective over team t: lock(img) names t's images.
  explicit lock_type(const team& t)
      : cells_(t, t.size() * (1 + 2 * t.size())), held_(t.size(), false), clocks_(t.native()) {}

  /// Blocks until this image holds the lock on image img. Local. Throws usage_error if this
  /// image holds it already, out_of_range for an image that does not exist.
  void lock(
      std::size_t img,
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    const runtime::watchdog::waiting_in watched("pgas::lock_type::lock", where);
    const std::size_t me = cells_.team().rank();
    require_free_here(img, "lock");
    cells_[next(me, img)].atomic_store(0);
    cells_[waiting(me, img)].atomic_store(1);
    const std::int64_t before = cells_[tail(img)].exchange(tag(me));
    if (before != 0) {
      // Queue behind the image that asked last, then wait for it to hand the lock on.
      cells_[next(image_of(before), img)].atomic_store(tag(me));
      global_ref<std::int64_t> flag = cells_[waiting(me, img)];
      runtime::messages::progress_until([&] { return flag.atomic_load() == 0; });
    }
    held_[img] = true;
    runtime::sync_all_window_memory();  // the previous holder's writes are complete: see them
    clocks_.receive(static_cast<int>(img));
  }
  /// Takes the lock on image img if it is free and returns true, or returns false at once.
  /// Local; throws as lock() does.
  [[nodiscard]] bool try_lock(std::size_t img) {
    const std::size_t me = cells_.team().rank();
    require_free_here(img, "try_lock");
    cells_[next(me, img)].atomic_store(0);
    std::int64_t expected = 0;
    if (!cells_[tail(img)].compare_exchange(expected, tag(me)))
      return false;
    held_[img] = true;
    runtime::sync_all_window_memory();
    clocks_.receive(static_cast<int>(img));
    return true;
  }
  /// Releases the lock on image img, handing it to the next image waiting for it. Local.
  /// Throws usage_error if this image does not hold it.
  void unlock(std::size_t img) {
    const std::size_t me = cells_.team().rank();
    check_image(img);
    if (!held_[img]) {
      throw usage_error("pgas::lock_type::unlock: image " + std::to_string(me) +
                        " does not hold the lock on image " + std::to_string(img));
    }
    clocks_.send(static_cast<int>(img));  // for the race checker: what this holder did
    runtime::sync_memory();  // complete this holder's writes before the next holder goes on
    global_ref<std::int64_t> successor = cells_[next(me, img)];
    std::int64_t after = successor.atomic_load();
    if (after == 0) {
      std::int64_t expected = tag(me);
      if (cells_[tail(img)].compare_exchange(expected, 0)) {
        held_[img] = false;
        return;  // nobody was waiting
      }
      // Someone has swapped itself in but not yet linked itself behind us.
      runtime::messages::progress_until([&] { return (after = successor.atomic_load()) != 0; });
    }
    cells_[waiting(image_of(after), img)].atomic_store(0);
    held_[img] = false;
  }

 private:
  friend struct lock_queue_inspection;  // tests: which image asked last

  // Image i's cells: the queue's tail for the lock on i, then for each image t its queue node
  // for the lock on t (who follows it, and whether it still waits). Values name an image as
  // its number + 1; 0 is none.
  [[nodiscard]] std::size_t images() const { return cells_.team().size(); }
  [[nodiscard]] std::size_t per_image() const { return 1 + 2 * images(); }
  [[nodiscard]] std::size_t tail(std::size_t img) const { return img * per_image(); }
  [[nodiscard]] std::size_t next(std::size_t who, std::size_t img) const {
    return who * per_image() + 1 + img;
  }
  [[nodiscard]] std::size_t waiting(std::size_t who, std::size_t img) const {
    return who * per_image() + 1 + images() + img;
  }
  static std::int64_t tag(std::size_t img) { return static_cast<std::int64_t>(img) + 1; }
  static std::size_t image_of(std::int64_t t) { return static_cast<std::size_t>(t - 1); }

  void check_image(std::size_t img) const {
    if (img >= images())
      runtime::throw_out_of_range("lock image", img, images());
  }
  void require_free_here(std::size_t img, const char* what) const {
    check_image(img);
    if (held_[img]) {
      throw usage_error(std::string("pgas::lock_type::") + what + ": image " +
                        std::to_string(cells_.team().rank()) + " holds the lock on image " +
                        std::to_string(img) + " already");
    }
  }

  array<std::int64_t> cells_;
  std::vector<bool> held_;                   // by this image, per lock image
  runtime::race_check::clock_boxes clocks_;  // what each lock's holders did (race checker)
};

/// Fortran's critical construct: one image at a time, over the team it was made on. Collective
/// to construct and destroy. BasicLockable: `std::lock_guard guard(cs);`.
class critical {
 public:
  /// Collective over the team in force.
  critical() = default;
  /// Collective over team t.
  explicit critical(const team& t) : lock_(t) {}
  void lock(
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    lock_.lock(0, where);
  }
  void unlock() { lock_.unlock(0); }
  [[nodiscard]] bool try_lock() { return lock_.try_lock(0); }

 private:
  lock_type lock_;
};

}  // namespace pgas
