#pragma once
// How a distributed view keeps what it views: a container by reference, a view by value.

#include <pgas/detail/internal_only.hpp>
#include <pgas/distributed_range.hpp>
#include <pgas/runtime/lifetime.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace pgas::views::detail {

/// A container whose handles can tell it is gone (runtime/lifetime.hpp).
template <class C>
concept with_lifetime = requires(const C& c) {
  { c.lifetime(pgas::detail::internal) } -> std::same_as<runtime::lifetime_token>;
};

/// Holds a container it was given as an lvalue by pointer (containers are move-only and must
/// outlive the view: a view used after its container was destroyed or moved from throws
/// usage_error), and a temporary view by value.
template <class R>
class holder {
 public:
  explicit holder(R&& r) : r_{store(std::forward<R>(r))} {
    if constexpr (std::is_lvalue_reference_v<R> && with_lifetime<std::remove_cvref_t<R>>)
      life_ = r.lifetime(pgas::detail::internal);
  }
  [[nodiscard]] auto& get() const {
    if constexpr (std::is_lvalue_reference_v<R>) {
      runtime::require_alive(life_, "a view");
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
  runtime::lifetime_token life_;  // of the container held by pointer, if it has one
};

}  // namespace pgas::views::detail
