#pragma once
// Fortran-style collectives over all images: co_sum, co_min, co_max, co_broadcast, co_reduce.

#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas {

/// op over every image's value, folded in image order 0, 1, ..., so op need not be commutative
/// (it must be associative). Collective; every image gets the result.
template <class T, class Op>
[[nodiscard]] T co_reduce(const T& value, Op op) {
  static_assert(std::is_trivially_copyable_v<T>, "co_reduce values travel as bytes");
  const auto bytes = runtime::allgather_bytes(&value, sizeof(T), runtime::world_comm());
  T result;
  std::memcpy(&result, bytes.data(), sizeof(T));
  for (std::size_t img = 1; img < num_images(); ++img) {
    T next;
    std::memcpy(&next, bytes.data() + img * sizeof(T), sizeof(T));
    result = op(result, next);
  }
  return result;
}

namespace detail {
template <class T, class Fallback>
T co_builtin(const T& value, runtime::reduce_op op, Fallback fallback) {
  if constexpr (runtime::accumulable<T>) {
    runtime::require_environment("a pgas collective");
    return runtime::allreduce(value, op, runtime::world_comm());
  } else {
    return co_reduce(value, fallback);
  }
}
}  // namespace detail

/// The sum of every image's value. Collective.
template <class T>
[[nodiscard]] T co_sum(const T& value) {
  return detail::co_builtin(value, runtime::reduce_op::sum, [](const T& a, const T& b) { return a + b; });
}
/// The least of every image's value. Collective.
template <class T>
[[nodiscard]] T co_min(const T& value) {
  return detail::co_builtin(value, runtime::reduce_op::min,
                            [](const T& a, const T& b) { return b < a ? b : a; });
}
/// The greatest of every image's value. Collective.
template <class T>
[[nodiscard]] T co_max(const T& value) {
  return detail::co_builtin(value, runtime::reduce_op::max,
                            [](const T& a, const T& b) { return a < b ? b : a; });
}

/// Image `root`'s value, on every image. Collective. Throws usage_error on every image if root
/// does not exist or the images name different roots.
template <class T>
[[nodiscard]] T co_broadcast(const T& value, std::size_t root) {
  static_assert(std::is_trivially_copyable_v<T>, "co_broadcast values travel as bytes");
  runtime::require_environment("pgas::co_broadcast");
  const long long mine[1] = {static_cast<long long>(root)};
  if (!runtime::same_everywhere(mine, runtime::world_comm())) {
    throw usage_error("co_broadcast: the images name different roots");
  }
  if (root >= num_images()) {
    throw usage_error("co_broadcast: root image " + std::to_string(root) +
                      " does not exist; there are " + std::to_string(num_images()) + " images");
  }
  T out = value;
  runtime::broadcast_bytes(&out, sizeof(T), static_cast<int>(root), runtime::world_comm());
  return out;
}

}  // namespace pgas
