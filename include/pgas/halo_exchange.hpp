#pragma once
// pgas::halo_exchange: a halo exchange in flight, as exchange_halo_begin() returns it. Between
// begin and wait() the image may compute with every cell it owns (the puts only read them) but
// must not read its ghost cells nor write the cells its neighbours mirror.

#include <pgas/runtime/lifetime.hpp>
#include <pgas/runtime/window.hpp>

#include <utility>

namespace pgas {

class halo_exchange {
 public:
  /// Nothing in flight: wait() returns at once.
  halo_exchange() noexcept = default;
  /// An exchange whose puts were issued in a neighbourhood phase of `w`, the window of the
  /// array whose lifetime `life` names; `finish(arrived)`, when given, runs once the phase is
  /// complete (it moves ghosts that arrived packed to their places).
  halo_exchange(runtime::window& w,
                runtime::lifetime_token life,
                void (*finish)(void*) = nullptr,
                void* arrived = nullptr) noexcept
      : w_{&w}, life_{life}, finish_{finish}, arrived_{arrived} {}
  halo_exchange(halo_exchange&& other) noexcept
      : w_{std::exchange(other.w_, nullptr)},
        life_{other.life_},
        finish_{other.finish_},
        arrived_{other.arrived_} {}
  halo_exchange& operator=(halo_exchange&& other) {
    if (this != &other) {
      wait();
      w_ = std::exchange(other.w_, nullptr);
      life_ = other.life_;
      finish_ = other.finish_;
      arrived_ = other.arrived_;
    }
    return *this;
  }
  halo_exchange(const halo_exchange&) = delete;
  halo_exchange& operator=(const halo_exchange&) = delete;
  /// Waits, if wait() was not called: the ghost cells must not be left half filled. An error
  /// then cannot be reported, so call wait(). Of an array already gone, nothing is left to do.
  ~halo_exchange() {
    if (!runtime::alive(life_))
      return;
    try {
      wait();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor may not throw
    }
  }

  /// Blocks until this image's ghost cells hold the neighbours' values and its own cells may
  /// change again (the neighbours have what they need of them). Idempotent. usage_error once
  /// the array is gone (destroyed or moved from): wait before that.
  void wait() {
    if (w_ == nullptr)
      return;
    runtime::require_alive(life_, "a halo_exchange");
    runtime::window* w = std::exchange(w_, nullptr);
    w->end_neighbourhood_phase();
    finished();
  }
  /// Without blocking for the neighbours: true once the ghost cells hold their values and this
  /// image's cells may change again (as after wait()); false while puts into this image are
  /// still in flight. This image's own puts are completed on the first call.
  [[nodiscard]] bool test() {
    if (w_ == nullptr)
      return true;
    runtime::require_alive(life_, "a halo_exchange");
    if (!w_->test_neighbourhood_phase())
      return false;
    w_ = nullptr;
    finished();
    return true;
  }
  /// True until wait() or test() has completed the exchange.
  [[nodiscard]] bool in_flight() const noexcept { return w_ != nullptr; }

 private:
  void finished() {
    if (finish_ != nullptr)
      finish_(arrived_);
  }
  runtime::window* w_ = nullptr;
  runtime::lifetime_token life_;
  void (*finish_)(void*) = nullptr;
  void* arrived_ = nullptr;
};

}  // namespace pgas
