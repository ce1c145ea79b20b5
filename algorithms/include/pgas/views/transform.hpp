#pragma once
// pgas::views::transform: f applied to every element, lazily, keeping the layout.

#include <pgas/views/holder.hpp>
#include <pgas/views/pipe.hpp>

#include <range/v3/view/transform.hpp>

#include <cstddef>
#include <utility>

namespace pgas::views {

/// A distributed range whose element i is f(r[i]); aligned with r. Local, lazy.
template <class R, class F>
class transform_view {
 public:
  transform_view(R&& r, F f) : base_{std::forward<R>(r)}, f_{std::move(f)} {}
  [[nodiscard]] std::size_t size() const { return base_.get().size(); }
  [[nodiscard]] auto local() const { return ranges::views::transform(base_.get().local(), f_); }
  [[nodiscard]] std::size_t global_index(std::size_t k) const {
    return base_.get().global_index(k);
  }
  [[nodiscard]] pgas::layout layout() const { return base_.get().layout(); }

 private:
  detail::holder<R> base_;
  F f_;
};

/// transform(r, f) or r | transform(f): f applied to every element of r. Local, lazy.
struct transform_fn {
  template <distributed_range R, class F>
  [[nodiscard]] auto operator()(R&& r, F f) const {
    return transform_view<R, F>(std::forward<R>(r), std::move(f));
  }
  template <class F>
  requires(!distributed_range<F>) [[nodiscard]] auto operator()(F f) const {
    return detail::view_closure(
        [f = std::move(f)](auto&& r) { return transform_fn{}(std::forward<decltype(r)>(r), f); });
  }
};
inline constexpr transform_fn transform{};

}  // namespace pgas::views
