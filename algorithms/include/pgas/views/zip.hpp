#pragma once
// pgas::views::zip: aligned ranges walked together, element i being the tuple of their i-th.

#include <pgas/runtime/error.hpp>
#include <pgas/views/holder.hpp>

#include <range/v3/view/zip.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

namespace pgas::views {

/// The ranges side by side; they must be aligned (same size and layout). Local, lazy.
template <class... R>
class zip_view {
 public:
  explicit zip_view(R&&... r) : bases_{detail::holder<R>(std::forward<R>(r))...} {
    const pgas::layout first = std::get<0>(bases_).get().layout();
    const bool same = std::apply(
        [&first](const auto&... b) { return ((b.get().layout() == first) && ...); }, bases_);
    // Layouts are the same on every image, so every image throws together.
    if (!same) {
      throw usage_error(
          "pgas::views::zip: the ranges are not aligned (different sizes or "
          "distributions); copy them into one distribution first");
    }
  }
  [[nodiscard]] std::size_t size() const { return std::get<0>(bases_).get().size(); }
  [[nodiscard]] auto local() const {
    return std::apply([](const auto&... b) { return ranges::views::zip(b.get().local()...); },
                      bases_);
  }
  [[nodiscard]] std::size_t global_index(std::size_t k) const {
    return std::get<0>(bases_).get().global_index(k);
  }
  [[nodiscard]] pgas::layout layout() const { return std::get<0>(bases_).get().layout(); }

 private:
  std::tuple<detail::holder<R>...> bases_;
};

/// zip(r1, r2, ...): aligned ranges walked together. Throws usage_error (on every image) if
/// they are not aligned. Local, lazy.
struct zip_fn {
  template <distributed_range... R>
  [[nodiscard]] auto operator()(R&&... r) const {
    return zip_view<R...>(std::forward<R>(r)...);
  }
};
inline constexpr zip_fn zip{};

}  // namespace pgas::views
