#pragma once
// pgas::views::transform: f applied to every element, lazily, keeping the layout.

#include <pgas/views/holder.hpp>

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
  [[nodiscard]] std::size_t global_index(std::size_t k) const { return base_.get().global_index(k); }
  [[nodiscard]] pgas::layout layout() const { return base_.get().layout(); }

 private:
  detail::holder<R> base_;
  F f_;
};

/// f applied to every element of r. Local, lazy.
template <distributed_range R, class F>
[[nodiscard]] auto transform(R&& r, F f) {
  return transform_view<R, F>(std::forward<R>(r), std::move(f));
}

}  // namespace pgas::views
