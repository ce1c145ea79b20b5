#pragma once
// Transfers an asynchronous call has started, and the future that completes them.

#include <pgas/detail/internal_only.hpp>
#include <pgas/future.hpp>
#include <pgas/runtime/lifetime.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/owner_reads.hpp>
#include <pgas/runtime/window.hpp>

#include <memory>
#include <variant>
#include <vector>

namespace pgas::detail {

// Transfers started on some windows' targets, complete after a flush of each: what an
// asynchronous transfer's future waits for. MPI_Win_flush, not flush_local: the two mean the
// same for a get, and Open MPI's osc/pt2pt (its component for dynamic windows) can wait for
// ever in MPI_Win_flush_local with gets of several targets outstanding.
class started_transfers {
 public:
  /// Notes a transfer started on `w`, the window of the container whose lifetime `life` names.
  void add(runtime::window& w, int target, runtime::lifetime_token life) {
    started_.push_back({&w, target, life});
  }
  /// Completes them (MPI_Win_flush per target, and the owners' answers). Local; the wait is
  /// only for operations already in flight. usage_error if a container is gone (destroyed or
  /// moved from; its end completed the transfers, and its window may be another's now).
  void complete() {
    // Answers first: while it waits in an MPI flush this image answers no one.
    reads.wait();
    bool gone = false;
    for (const started& s : started_) {
      if (runtime::alive(s.life)) {
        s.w->flush(s.target);
      } else {
        gone = true;
      }
    }
    started_.clear();
    if (gone)
      runtime::detail::throw_lifetime_ended("a future");
  }
  /// True once the owners have answered every read (making progress once, never waiting).
  bool answers_in() {
    if (!reads.done())
      (void)runtime::messages::progress();
    return reads.done();
  }
  /// Reads that owners answer (runtime/owner_reads.hpp).
  runtime::owner_reads::pending reads;

 private:
  struct started {
    runtime::window* w;
    int target;
    runtime::lifetime_token life;
  };
  std::vector<started> started_;
};

// A future's source for started transfers: ready once the owners have answered and the MPI
// operations are completed, which ready() itself does (a flush only waits for operations
// already in flight).
// Of a container that must still live when the future is used (`life`).
struct started_source final : future_source<std::monostate> {
  bool ready() override {
    runtime::require_alive(life, "a future");
    if (!transfers.answers_in())
      return false;
    transfers.complete();
    return true;
  }
  std::monostate take() override {
    runtime::require_alive(life, "a future");
    transfers.complete();
    return {};
  }
  started_transfers transfers;
  runtime::lifetime_token life;
};

/// What c's handles hold to know it still lives (runtime/lifetime.hpp), or a token that never
/// ends for what cannot tell (a coarray image's part).
template <class C>
[[nodiscard]] runtime::lifetime_token lifetime_of(const C& c) {
  if constexpr (requires { c.lifetime(internal); }) {
    return c.lifetime(internal);
  } else {
    return {};
  }
}

/// A future of the transfers `start` starts on container c; it throws once c is gone.
template <class C, class F>
future<void> future_of(const C& c, F start) {
  auto source = std::make_unique<started_source>();
  source->life = lifetime_of(c);
  start(&source->transfers);
  return future<void>{std::move(source)};
}

}  // namespace pgas::detail
