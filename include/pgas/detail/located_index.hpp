#pragma once
// An element index that remembers where in the user's program it was written: `a[i]` converts
// i into one, and the conversion's default argument is evaluated at `a[i]` itself, so an
// operator (which takes no extra arguments) still learns its caller's line. The race checker
// names it in its reports; nothing else reads it, and when it is unused the compiler drops it.

#include <pgas/runtime/watchdog.hpp>

#include <cstddef>

namespace pgas::detail {

struct located_index {
  // Implicit on purpose: every integer index converts, as it converted to std::size_t before.
  located_index(  // NOLINT(google-explicit-constructor)
      std::size_t i,
      runtime::watchdog::source_location at =
          runtime::watchdog::source_location::current()) noexcept
      : index{i}, where{at} {}
  std::size_t index;
  runtime::watchdog::source_location where;
};

}  // namespace pgas::detail
