#pragma once
// What every distributed container holds, whatever its shape (array, array_view, vector and the
// map's table through storage.hpp; ndarray and matrix): the team it was made on, this image's
// number there, the window with every image's part, those parts as mapped here, a sync point of
// its own team, the check that every image asked for the same container, and the guards that
// make a moved-from container, and a handle that outlived its container, say so.

#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/lifetime.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pgas::detail {

template <class T>
struct container_core {
  std::optional<pgas::team> home;  // the team it was made on
  std::size_t me = 0;              // this image's number in it
  mutable runtime::window win;     // every image's part
  std::vector<T*> mapped;          // every part as mapped here, or empty (mapped_parts.hpp)
  // What its handles check: ends with the state, and is renewed when the container is moved
  // from, so a handle never outlives the container object it came from (runtime/lifetime.hpp).
  runtime::lifetime life;

  /// Binds the core to team t (the window and parts come later). Local.
  void make_on(const pgas::team& t) {
    home = t;
    me = t.this_image();
  }
  /// A sync point of the container's own team, never the team in force, so a container of a
  /// sub-team never waits for images that do not hold it. Collective over that team.
  void sync() const { runtime::sync_all(home->native()); }
};

/// A container's state through its owning pointer; usage_error naming `container` when it is
/// null (the container was moved from). Local.
template <class Pointer>
[[nodiscard]] auto& live_state(const Pointer& s, const char* container) {
  if (!s)
    throw usage_error(std::string("use of a moved-from ") + container);
  return *s;
}

/// Checks, collectively over team t, that every image describes the same container (`shape`:
/// its sizes, layout and element type as numbers); usage_error naming `container` and `what`
/// may differ on every image if not. Call before any window exists, so no image throws alone.
inline void require_same_container(const char* container,
                                   const pgas::team& t,
                                   std::span<const long long> shape,
                                   const char* what) {
  if (!runtime::same_everywhere(shape, t.native())) {
    throw usage_error(std::string(container) + ": images disagree on " + what +
                      "; construct it with the same arguments on every image");
  }
}

}  // namespace pgas::detail
