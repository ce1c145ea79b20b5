#pragma once
// What makes `r | pgas::views::take(3)` work: a view with its arguments bound, waiting for the
// range, as range-v3's and std's view closures do.

#include <pgas/distributed_range.hpp>

#include <utility>

namespace pgas::views::detail {

/// Holds a callable that makes a view from a distributed range. `r | c` is `c(r)`.
template <class MakeView>
class view_closure {
 public:
  explicit view_closure(MakeView make) : make_{std::move(make)} {}
  template <distributed_range R>
  [[nodiscard]] auto operator()(R&& r) const {
    return make_(std::forward<R>(r));
  }
  template <distributed_range R>
  [[nodiscard]] friend auto operator|(R&& r, const view_closure& c) {
    return c(std::forward<R>(r));
  }

 private:
  MakeView make_;
};

/// A view that takes nothing but the range: `f(r)` and `r | f` alike.
template <class Derived>
struct pipeable_view {
  template <distributed_range R>
  [[nodiscard]] friend auto operator|(R&& r, const Derived& f) {
    return f(std::forward<R>(r));
  }
};

}  // namespace pgas::views::detail
