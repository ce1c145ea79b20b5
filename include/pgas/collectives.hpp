#pragma once
// Fortran-style collectives over the team in force (or a team named last): co_sum, co_min, co_max,
// co_broadcast, co_reduce, on one value or, in place, on arrays (with a result image, and started
// forms).

#include <pgas/detail/type_digest.hpp>
#include <pgas/future.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace pgas {

namespace detail {
// An image number as the agreement's records carry it: past any image, however large.
inline long long image_number(std::size_t image) {
  return static_cast<long long>(std::min<std::size_t>(image, LLONG_MAX));
}

// The rank an MPI collective takes for an image the images agreed on (none: -1).
inline int root_of(std::optional<std::size_t> image) {
  return image ? static_cast<int>(*image) : -1;
}

// Checks, on every image together, that the images pass `length` elements of type T and the
// same `op` (a reduce_op, or runtime::broadcast_op) and name the same image (none: -1), which
// exists; throws usage_error on every image otherwise. When `values` (of that length) fit the
// check's record, they are combined in it (runtime::agree_on_span: element by element with
// `element`, or taken from the source image for a broadcast) and true is returned; otherwise
// the caller still has them to combine. Collective.
template <class T, class V>
bool agree_and_combine(const char* what,
                       std::size_t length,
                       std::optional<std::size_t> image,
                       int op,
                       std::span<V> values,
                       runtime::record_combiner element) {
  runtime::require_environment(what);
  const runtime::span_arguments arguments{type_digest<T>(), static_cast<long long>(length),
                                          image ? image_number(*image) : -1, op};
  switch (runtime::agree_on_span(arguments, values, element, runtime::current_comm())) {
    case runtime::agreement::mismatch:
      throw usage_error(std::string(what) +
                        ": the images pass values of different types or arrays of different "
                        "lengths, or name different images");
    case runtime::agreement::no_such_image:
      throw usage_error(std::string(what) + ": image " + std::to_string(*image) +
                        " does not exist; there are " + std::to_string(num_images()) + " images");
    case runtime::agreement::combined:
      return true;
    case runtime::agreement::checked_only:
      break;
  }
  return false;
}

// Checks, on every image together, that the images pass values of one type; usage_error naming
// `what` on every image otherwise, before MPI reads one image's bytes as another's. Collective.
template <class T>
void require_same_type(const char* what) {
  runtime::require_environment(what);
  const long long mine[1] = {type_digest<T>()};
  if (!runtime::same_everywhere(mine, runtime::current_comm()))
    throw usage_error(std::string(what) + ": the images pass values of different types");
}
}  // namespace detail

/// op over every image's value, folded in image order 0, 1, ..., so op need not be commutative
/// (it must be associative). Collective; every image gets the result. Throws usage_error on
/// every image if the images pass values of different types.
template <class T, class Op>
[[nodiscard]] T co_reduce(
    const T& value,
    Op op,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_reduce", where);
  static_assert(
      std::is_trivially_copyable_v<T>,
      "co_reduce values travel as bytes; include <pgas/serialization.hpp> for other types");
  detail::require_same_type<T>("pgas::co_reduce");
  const auto bytes = runtime::allgather_bytes(&value, sizeof(T), runtime::current_comm());
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
T co_builtin(const char* what, const T& value, runtime::reduce_op op, Fallback fallback) {
  if constexpr (runtime::accumulable<T>) {
    runtime::require_environment(what);
    const auto result =
        runtime::allreduce_agreed(value, op, type_digest<T>(), runtime::current_comm());
    if (!result)
      throw usage_error(std::string(what) +
                        ": the images pass values of different types, or "
                        "call different collectives");
    return *result;
  } else {
    return co_reduce(value, fallback);
  }
}
}  // namespace detail

/// The sum of every image's value. Collective; usage_error on every image if the images pass
/// values of different types (so for co_min and co_max).
template <class T>
[[nodiscard]] T co_sum(
    const T& value,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_sum", where);
  return detail::co_builtin("pgas::co_sum", value, runtime::reduce_op::sum,
                            [](const T& a, const T& b) { return a + b; });
}
/// The least of every image's value. Collective.
template <class T>
[[nodiscard]] T co_min(
    const T& value,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_min", where);
  return detail::co_builtin("pgas::co_min", value, runtime::reduce_op::min,
                            [](const T& a, const T& b) { return b < a ? b : a; });
}
/// The greatest of every image's value. Collective.
template <class T>
[[nodiscard]] T co_max(
    const T& value,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_max", where);
  return detail::co_builtin("pgas::co_max", value, runtime::reduce_op::max,
                            [](const T& a, const T& b) { return a < b ? b : a; });
}

/// Image `root`'s value, on every image. Collective. Throws usage_error on every image if root
/// does not exist, or the images name different roots or pass values of different types.
template <class T>
[[nodiscard]] T co_broadcast(
    const T& value,
    std::size_t root,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_broadcast", where);
  static_assert(
      std::is_trivially_copyable_v<T>,
      "co_broadcast values travel as bytes; include <pgas/serialization.hpp> for other types");
  T out = value;
  if (detail::agree_and_combine<T>("pgas::co_broadcast", 1, root, runtime::broadcast_op,
                                   std::span<T>(&out, 1), nullptr))
    return out;
  runtime::broadcast_bytes(&out, sizeof(T), static_cast<int>(root), runtime::current_comm());
  return out;
}

// Arrays: Fortran's co_sum(a, result_image) and friends, in place, element by element.

namespace detail {
// Checks, on every image together, that the images pass spans of one length and element type T
// and name the same image (none: -1), which exists; throws usage_error on every image otherwise.
// Returns that image. Collective.
template <class T>
int agreed_image(const char* what, std::size_t length, std::optional<std::size_t> image) {
  (void)agree_and_combine<T>(what, length, image, runtime::broadcast_op, std::span<std::byte>{},
                             nullptr);
  return root_of(image);
}

template <class T>
void co_reduce_span(const char* what,
                    std::span<T> values,
                    runtime::reduce_op op,
                    std::optional<std::size_t> result_image) {
  static_assert(runtime::accumulable<T>, "array collectives need an MPI arithmetic element type");
  runtime::require_op_defined<T>(op);
  if (!agree_and_combine<T>(what, values.size(), result_image, static_cast<int>(op), values,
                            runtime::detail::combine_values<T>))
    runtime::reduce_in_place(values, op, root_of(result_image), runtime::current_comm());
}

template <class T>
future<void> async_co_reduce_span(const char* what, std::span<T> values, runtime::reduce_op op) {
  static_assert(runtime::accumulable<T>, "array collectives need an MPI arithmetic element type");
  (void)agreed_image<T>(what, values.size(), std::nullopt);
  runtime::require_op_defined<T>(op);
  auto source = std::make_unique<request_source<std::monostate>>();
  source->request = runtime::start_reduce_in_place(values, op, runtime::current_comm());
  return future<void>{std::move(source)};
}
}  // namespace detail

/// values[k] becomes the sum over every image of its values[k], on every image or only on
/// `result_image` (the others' values stay as they were). Collective; throws usage_error on
/// every image if the lengths or the named images differ, or the image does not exist.
template <class T>
void co_sum(
    std::span<T> values,
    std::optional<std::size_t> result_image = {},
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_sum", where);
  detail::co_reduce_span("pgas::co_sum", values, runtime::reduce_op::sum, result_image);
}
/// As co_sum, with the least value.
template <class T>
void co_min(
    std::span<T> values,
    std::optional<std::size_t> result_image = {},
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_min", where);
  detail::co_reduce_span("pgas::co_min", values, runtime::reduce_op::min, result_image);
}
/// As co_sum, with the greatest value.
template <class T>
void co_max(
    std::span<T> values,
    std::optional<std::size_t> result_image = {},
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_max", where);
  detail::co_reduce_span("pgas::co_max", values, runtime::reduce_op::max, result_image);
}
/// As co_sum, with any of MPI's ops (pgas::reduce_op).
template <class T>
void co_reduce(
    std::span<T> values,
    reduce_op op,
    std::optional<std::size_t> result_image = {},
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_reduce", where);
  detail::co_reduce_span("pgas::co_reduce", values, op, result_image);
}
/// source_image's values, copied into every image's. Collective; throws as co_sum does.
template <class T>
void co_broadcast(
    std::span<T> values,
    std::size_t source_image,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_broadcast", where);
  static_assert(runtime::transferable<T>, "co_broadcast values travel as bytes");
  if (!detail::agree_and_combine<T>("pgas::co_broadcast", values.size(), source_image,
                                    runtime::broadcast_op, values, nullptr))
    runtime::broadcast(values, static_cast<int>(source_image), runtime::current_comm());
}

/// Every image's value, in image order, on `result_image`; an empty vector elsewhere.
/// Collective; throws usage_error on every image if the images name different images or the
/// image does not exist. (<pgas/serialization.hpp> adds values that are not trivially copyable.)
template <class T>
requires std::is_trivially_copyable_v<T>
[[nodiscard]] std::vector<T> co_gather(const T& value, std::size_t result_image) {
  const int root = detail::agreed_image<T>("pgas::co_gather", 0, result_image);
  const runtime::byte_buffer mine(reinterpret_cast<const std::byte*>(&value),
                                  reinterpret_cast<const std::byte*>(&value) + sizeof(T));
  const auto all = runtime::gather_buffers(mine, root, runtime::current_comm());
  std::vector<T> out(all.size());
  for (std::size_t img = 0; img < all.size(); ++img)
    std::memcpy(&out[img], all[img].data(), sizeof(T));
  return out;
}

/// Started forms (MPI_Iallreduce / MPI_Ibcast): collective to start, every image gets the
/// result; `values` must stay alive and untouched until the future is ready.
template <class T>
[[nodiscard]] future<void> async_co_sum(std::span<T> values) {
  return detail::async_co_reduce_span("pgas::async_co_sum", values, runtime::reduce_op::sum);
}
template <class T>
[[nodiscard]] future<void> async_co_min(std::span<T> values) {
  return detail::async_co_reduce_span("pgas::async_co_min", values, runtime::reduce_op::min);
}
template <class T>
[[nodiscard]] future<void> async_co_max(std::span<T> values) {
  return detail::async_co_reduce_span("pgas::async_co_max", values, runtime::reduce_op::max);
}
template <class T>
[[nodiscard]] future<void> async_co_reduce(std::span<T> values, reduce_op op) {
  return detail::async_co_reduce_span("pgas::async_co_reduce", values, op);
}
template <class T>
[[nodiscard]] future<void> async_co_broadcast(std::span<T> values, std::size_t source_image) {
  static_assert(runtime::transferable<T>, "co_broadcast values travel as bytes");
  const int root = detail::agreed_image<T>("pgas::async_co_broadcast", values.size(), source_image);
  auto source = std::make_unique<detail::request_source<std::monostate>>();
  source->request = runtime::start_broadcast(values, root, runtime::current_comm());
  return future<void>{std::move(source)};
}

// Over a named team: the same collectives, over t's images (image numbers are t's), whatever
// team is in force. Collective over t.

template <class T>
[[nodiscard]] T co_sum(const T& value, const team& t) {
  const runtime::acting_team on(t);
  return co_sum(value);
}
template <class T>
[[nodiscard]] T co_min(const T& value, const team& t) {
  const runtime::acting_team on(t);
  return co_min(value);
}
template <class T>
[[nodiscard]] T co_max(const T& value, const team& t) {
  const runtime::acting_team on(t);
  return co_max(value);
}
template <class T, class Op>
[[nodiscard]] T co_reduce(const T& value, Op op, const team& t) {
  const runtime::acting_team on(t);
  return co_reduce(value, op);
}
template <class T>
[[nodiscard]] T co_broadcast(const T& value, std::size_t root, const team& t) {
  const runtime::acting_team on(t);
  return co_broadcast(value, root);
}
template <class T>
void co_sum(std::span<T> values, std::optional<std::size_t> result_image, const team& t) {
  const runtime::acting_team on(t);
  co_sum(values, result_image);
}
template <class T>
void co_min(std::span<T> values, std::optional<std::size_t> result_image, const team& t) {
  const runtime::acting_team on(t);
  co_min(values, result_image);
}
template <class T>
void co_max(std::span<T> values, std::optional<std::size_t> result_image, const team& t) {
  const runtime::acting_team on(t);
  co_max(values, result_image);
}
template <class T>
void co_reduce(std::span<T> values,
               reduce_op op,
               std::optional<std::size_t> result_image,
               const team& t) {
  const runtime::acting_team on(t);
  co_reduce(values, op, result_image);
}
template <class T>
void co_broadcast(std::span<T> values, std::size_t source_image, const team& t) {
  const runtime::acting_team on(t);
  co_broadcast(values, source_image);
}
template <class T>
[[nodiscard]] future<void> async_co_sum(std::span<T> values, const team& t) {
  const runtime::acting_team on(t);
  return async_co_sum(values);
}
template <class T>
[[nodiscard]] future<void> async_co_min(std::span<T> values, const team& t) {
  const runtime::acting_team on(t);
  return async_co_min(values);
}
template <class T>
[[nodiscard]] future<void> async_co_max(std::span<T> values, const team& t) {
  const runtime::acting_team on(t);
  return async_co_max(values);
}
template <class T>
[[nodiscard]] future<void> async_co_reduce(std::span<T> values, reduce_op op, const team& t) {
  const runtime::acting_team on(t);
  return async_co_reduce(values, op);
}
template <class T>
[[nodiscard]] future<void> async_co_broadcast(std::span<T> values,
                                              std::size_t source_image,
                                              const team& t) {
  const runtime::acting_team on(t);
  return async_co_broadcast(values, source_image);
}

}  // namespace pgas
