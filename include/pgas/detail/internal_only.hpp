#pragma once
// The key to the library's own members. A container's window and a global pointer's parts are
// plumbing: only the library may reach them (as UPC++ keeps such members behind its
// internal_only tag), so a program cannot name memory no image exposes or step around an epoch.

#include <type_traits>

namespace pgas::detail {

struct internal_only {
  explicit internal_only() = default;
};
/// The tag the library passes; programs have no business naming it.
inline constexpr internal_only internal{};

/// The window behind a container or a global pointer (a reference for containers, a pointer
/// for pointers, as each holds it). Local.
template <class Holder>
[[nodiscard]] decltype(auto) window_of(const Holder& h) {
  return h.window(internal);
}

/// True when a and b (containers or global pointers) are parts of one container: one window
/// holds them. Local.
template <class A, class B>
[[nodiscard]] bool same_container(const A& a, const B& b) {
  const auto address = [](const auto& h) {
    if constexpr (std::is_pointer_v<decltype(window_of(h))>) {
      return static_cast<const void*>(window_of(h));
    } else {
      return static_cast<const void*>(&window_of(h));
    }
  };
  return address(a) == address(b);
}

}  // namespace pgas::detail
