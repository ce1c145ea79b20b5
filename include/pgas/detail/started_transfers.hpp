#pragma once
// Transfers an asynchronous call has started, and the future that completes them.

#include <pgas/future.hpp>
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
  void add(runtime::window& w, int target) { started_.push_back({&w, target}); }
  /// Completes them (MPI_Win_flush per target, and the owners' answers). Local; the wait is
  /// only for operations already in flight.
  void complete() {
    // Answers first: while it waits in an MPI flush this image answers no one.
    reads.wait();
    for (const started& s : started_) s.w->flush(s.target);
    started_.clear();
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
  };
  std::vector<started> started_;
};

// A future's source for started transfers: ready once the owners have answered and the MPI
// operations are completed, which ready() itself does (a flush only waits for operations
// already in flight).
struct started_source final : future_source<std::monostate> {
  bool ready() override {
    if (!transfers.answers_in())
      return false;
    transfers.complete();
    return true;
  }
  std::monostate take() override {
    transfers.complete();
    return {};
  }
  started_transfers transfers;
};

template <class F>
future<void> future_of(F start) {
  auto source = std::make_unique<started_source>();
  start(&source->transfers);
  return future<void>{std::move(source)};
}

}  // namespace pgas::detail
