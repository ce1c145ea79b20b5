#pragma once
// How a distributed view keeps what it views: a container by reference, a view by value.

#include <pgas/distributed_range.hpp>

#include <type_traits>
#include <utility>

namespace pgas::views::detail {

/// Holds a container it was given as an lvalue by pointer (containers are move-only and must
/// outlive the view), and a temporary view by value.
template <class R>
class holder {
 public:
  explicit holder(R&& r) : r_{store(std::forward<R>(r))} {}
  [[nodiscard]] auto& get() const noexcept {
    if constexpr (std::is_lvalue_reference_v<R>) {
      return *r_;
    } else {
      return r_;
    }
  }

 private:
  using stored = std::conditional_t<std::is_lvalue_reference_v<R>,
                                    std::remove_reference_t<R>*,
                                    std::remove_cvref_t<R>>;
  static stored store(R&& r) {
    if constexpr (std::is_lvalue_reference_v<R>) {
      return &r;
    } else {
      return std::move(r);
    }
  }
  mutable stored r_;
};

}  // namespace pgas::views::detail
