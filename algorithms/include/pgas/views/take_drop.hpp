#pragma once
// pgas::views::take and pgas::views::drop: a window [from, to) of a distributed range's global
// indices. Local indices grow with global ones, so each image's part is a subrange of its own.

#include <pgas/global_ptr.hpp>
#include <pgas/views/holder.hpp>
#include <pgas/views/pipe.hpp>

#include <range/v3/view/slice.hpp>
#include <range/v3/view/subrange.hpp>
#include <ranges>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace pgas::views {

/// Global indices [from, to) of r, renumbered from 0. Local, lazy.
template <class R>
class slice_view {
 public:
  slice_view(R&& r, std::size_t from, std::size_t to) : base_{std::forward<R>(r)} {
    auto& base = base_.get();
    to_ = std::min(to, base.size());
    from_ = std::min(from, to_);
    // The first local position at or past each end, by binary search over global indices.
    const auto n = static_cast<std::size_t>(ranges::size(base.local()));
    lo_ = first_local_at_or_past(base, n, from_);
    hi_ = first_local_at_or_past(base, n, to_);
  }
  [[nodiscard]] std::size_t size() const { return to_ - from_; }
  [[nodiscard]] auto local() const {
    auto&& part = base_.get().local();
    if constexpr (std::ranges::borrowed_range<decltype(part)>) {
      auto b = std::ranges::begin(part);  // iterators outlive the part: a plain subrange will do
      return ranges::subrange(b + static_cast<std::ptrdiff_t>(lo_),
                              b + static_cast<std::ptrdiff_t>(hi_));
    } else {
      return ranges::views::slice(
          std::move(part), static_cast<std::ptrdiff_t>(lo_),
          static_cast<std::ptrdiff_t>(hi_));  // the slice keeps the view alive
    }
  }
  [[nodiscard]] std::size_t global_index(std::size_t k) const {
    return base_.get().global_index(lo_ + k) - from_;
  }
  [[nodiscard]] pgas::layout layout() const {
    pgas::layout l = base_.get().layout();
    l.start += from_;
    l.size = size();
    return l;
  }
  /// Where element i lives, when the viewed range can say. Local.
  [[nodiscard]] auto element(std::size_t i) const requires requires(std::remove_cvref_t<R>& b) {
    b.element(i);
  }
  { return base_.get().element(i + from_); }
  using value_type =
      ranges::range_value_t<decltype(std::declval<std::remove_cvref_t<R>&>().local())>;

 private:
  template <class B>
  static std::size_t first_local_at_or_past(B& base, std::size_t n, std::size_t g) {
    std::size_t lo = 0;
    std::size_t hi = n;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (base.global_index(mid) < g) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  detail::holder<R> base_;
  std::size_t from_ = 0;
  std::size_t to_ = 0;
  std::size_t lo_ = 0;
  std::size_t hi_ = 0;
};

/// take(r, n) or r | take(n): the first n elements of r (all of them if r is shorter).
/// Local, lazy.
struct take_fn {
  template <distributed_range R>
  [[nodiscard]] auto operator()(R&& r, std::size_t n) const {
    return slice_view<R>(std::forward<R>(r), 0, n);
  }
  [[nodiscard]] auto operator()(std::size_t n) const {
    return detail::view_closure(
        [n](auto&& r) { return take_fn{}(std::forward<decltype(r)>(r), n); });
  }
};
inline constexpr take_fn take{};

/// drop(r, n) or r | drop(n): r without its first n elements. Local, lazy.
struct drop_fn {
  template <distributed_range R>
  [[nodiscard]] auto operator()(R&& r, std::size_t n) const {
    const std::size_t size = r.size();
    return slice_view<R>(std::forward<R>(r), n, size);
  }
  [[nodiscard]] auto operator()(std::size_t n) const {
    return detail::view_closure(
        [n](auto&& r) { return drop_fn{}(std::forward<decltype(r)>(r), n); });
  }
};
inline constexpr drop_fn drop{};

}  // namespace pgas::views
