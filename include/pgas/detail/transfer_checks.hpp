#pragma once
// What a transfer asks of a container, and the checks of its arguments, made before anything
// moves so a bad call changes nothing.

#include <pgas/runtime/error.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace pgas::detail {

/// What the transfers need of a container: its size, where element i lives, and where the run
/// of elements one image stores consecutively from i ends.
template <class C>
concept transfer_container = requires(C& c, std::size_t i) {
  { c.size() } -> std::convertible_to<std::size_t>;
  c.element(i);
  { c.run_end(i) } -> std::convertible_to<std::size_t>;
};

template <class C>
using element_of =
    typename std::remove_reference_t<decltype(std::declval<C&>().element(0))>::value_type;

inline void require_range(const char* what,
                          std::size_t first,
                          std::size_t count,
                          std::size_t size) {
  if (first > size || count > size - first) {
    throw out_of_range(std::string(what) + ": elements [" + std::to_string(first) + ", " +
                       std::to_string(first) + " + " + std::to_string(count) +
                       ") reach past the end of a container of " + std::to_string(size));
  }
}

inline void require_same_length(const char* what, std::size_t indices, std::size_t values) {
  if (indices != values) {
    throw usage_error(std::string(what) + ": " + std::to_string(indices) + " indices but " +
                      std::to_string(values) + " values");
  }
}

// Throws out_of_range for a strided pattern reaching past the end, before anything moves.
inline void require_strided(
    const char* what, std::size_t first, std::size_t stride, std::size_t count, std::size_t size) {
  if (count == 0)
    return;
  if (stride == 0)
    throw usage_error(std::string(what) + ": stride 0 names one element many times");
  const std::size_t steps = count - 1;
  if (first >= size || steps > (size - 1 - first) / stride) {
    throw out_of_range(std::string(what) + ": " + std::to_string(count) + " elements from " +
                       std::to_string(first) + " every " + std::to_string(stride) +
                       " reach past the end of a container of " + std::to_string(size));
  }
}

inline void require_indices(const char* what,
                            std::span<const std::size_t> indices,
                            std::size_t size) {
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] >= size) {
      throw out_of_range(std::string(what) + ": index " + std::to_string(indices[k]) + " (entry " +
                         std::to_string(k) + " of the list) is past the end of a container of " +
                         std::to_string(size));
    }
  }
}

}  // namespace pgas::detail
