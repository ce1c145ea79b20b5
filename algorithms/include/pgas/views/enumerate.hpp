#pragma once
// pgas::views::enumerate: each element paired with its global index.

#include <pgas/views/holder.hpp>
#include <pgas/views/pipe.hpp>

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>
#include <range/v3/view/zip.hpp>

#include <cstddef>
#include <utility>

namespace pgas::views {

/// Element i is the pair (i, r[i]); aligned with r. Local, lazy.
template <class R>
class enumerate_view {
 public:
  explicit enumerate_view(R&& r) : base_{std::forward<R>(r)} {}
  [[nodiscard]] std::size_t size() const { return base_.get().size(); }
  [[nodiscard]] auto local() const {
    auto& base = base_.get();
    auto&& part = base.local();
    const std::size_t n = static_cast<std::size_t>(ranges::size(part));
    auto indices =
        ranges::views::transform(ranges::views::iota(std::size_t{0}, n),
                                 [b = &base](std::size_t k) { return b->global_index(k); });
    return ranges::views::zip(indices, part);
  }
  [[nodiscard]] std::size_t global_index(std::size_t k) const {
    return base_.get().global_index(k);
  }
  [[nodiscard]] pgas::layout layout() const { return base_.get().layout(); }

 private:
  detail::holder<R> base_;
};

/// enumerate(r) or r | enumerate: pairs every element with its global index. Local, lazy.
struct enumerate_fn : detail::pipeable_view<enumerate_fn> {
  template <distributed_range R>
  [[nodiscard]] auto operator()(R&& r) const {
    return enumerate_view<R>(std::forward<R>(r));
  }
};
inline constexpr enumerate_fn enumerate{};

}  // namespace pgas::views
