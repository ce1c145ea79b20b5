#pragma once
// pgas::views::local: this image's part of a distributed range, as a plain local range.

#include <pgas/distributed_range.hpp>
#include <pgas/views/pipe.hpp>

#include <utility>

namespace pgas::views {

/// local(r) or r | local: r.local(), this image's part in local order, for std:: and ranges::
/// algorithms. Local, no communication.
struct local_fn : detail::pipeable_view<local_fn> {
  template <distributed_range R>
  [[nodiscard]] auto operator()(R&& r) const {
    return r.local();
  }
};
inline constexpr local_fn local{};

}  // namespace pgas::views
