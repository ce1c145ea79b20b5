#pragma once
// pgas::event: Fortran 2018's event_type. A counter on every image that other images post to
// and that its own image waits on: point-to-point signalling without a barrier.

#include <pgas/coarray.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/signal.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pgas {

/// One event count per image, like `type(event_type) :: ev[*]`. Collective to construct and
/// destroy. post(img) adds one to image img's count; wait(n) blocks this image until its count
/// is at least n and takes n off. Everything the poster wrote before post is visible to the
/// waiter after its wait (post completes the poster's writes first, as sync_memory does).
class event {
 public:
  /// Collective over the team in force: every image's count starts at 0.
  event() : event(current_team()) {}
  /// Collective over team t: post(img) names t's images.
  explicit event(const team& t)
      : length_{runtime::signal_row_length(t.num_images())},
        counts_(t, length_, 0),
        // Every image's row starts its copy of counts_, at the same displacement.
        row_{detail::signal_row_at(counts_(t.rank())[0].address(), length_)},
        posted_(runtime::each_signaller_counts_alone(length_, t.num_images()) ? length_ : 0),
        clocks_(t.native()) {
    counts_.window(detail::internal).reached_only_through_owner();
    runtime::find_own_row(counts_.window(detail::internal), row_);
  }

  /// Atomically adds one to image img's count; returns without waiting for img. Local.
  /// Throws out_of_range for an image that does not exist, before anything is written.
  void post(std::size_t img) {
    const pgas::team& t = counts_.team();  // a moved-from event throws usage_error here
    if (img >= t.size())
      runtime::throw_out_of_range("image", img, t.size());
    clocks_.send(static_cast<int>(img));  // completed with this image's writes, before the count
    // Each poster's own total where each has a counter in the row, else 1 added to the one.
    const std::int64_t total = posted_.empty() ? 1 : ++posted_[img];
    detail::signal_after_writes(counts_.window(detail::internal), img, row_, t.rank(), total,
                                [&] { return counts_(img)[0].address(); });
  }
  /// Blocks until this image's count is at least n, then subtracts n. Local. Throws
  /// usage_error for n < 1.
  void wait(
      std::int64_t n = 1,
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    const runtime::watchdog::waiting_in watched("pgas::event::wait", where);
    if (n < 1)
      throw usage_error("pgas::event::wait: the count waited for must be at least 1, got " +
                        std::to_string(n));
    // Enough posts handled already (a poster running ahead, whose messages an earlier wait
    // handled together) return with no call to MPI; otherwise each read runs the handlers.
    if (received(runtime::arrived_signals::as_added) < n)
      runtime::messages::progress_until([&] { return query() >= n; });
    taken_ += n;
    clocks_.receive(static_cast<int>(counts_.team().rank()));
    // The posters' writes completed before their posts; this orders this image's later loads.
    runtime::sync_all_window_memory();
  }
  /// This image's count now, without waiting. Local.
  [[nodiscard]] std::int64_t query() const {
    return received(runtime::arrived_signals::handled_first);
  }

 private:
  [[nodiscard]] std::int64_t received(runtime::arrived_signals arrived) const {
    return detail::signals_received(
               counts_.window(detail::internal), row_,
               [&] { return counts_(counts_.team().rank())[0].address(); }, arrived) -
           taken_;
  }
  // Every post ever made to this image, which only posters change: a wait takes its n off in
  // taken_, here, instead of a read-modify-write of the counts the posters update. On one node
  // each poster has a count of its own here (runtime/signal.hpp), elsewhere all share one.
  std::size_t length_;
  coarray<std::int64_t[]> counts_;
  // Where every image's row is in counts_' window, found once: a post builds no pointer, whose
  // lifetime tokens it would copy (on one node a post took 129-133 cycles so, 98-112 without,
  // in a scratch loop whose sweeps between posts leave the cache cold).
  runtime::signal_row row_;
  std::vector<std::int64_t> posted_;  // by image posted to, where each poster may have a count
  std::int64_t taken_ = 0;
  runtime::race_check::clock_boxes clocks_;  // what the posters did, for the race checker
};

}  // namespace pgas
