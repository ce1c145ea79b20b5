#pragma once
// Collectives on values that are not trivially copyable (std::string, containers of them, a
// user's struct with a `serialize` member), through Boost.Serialization: each value travels as
// the bytes of a binary archive. Trivially copyable values keep the byte-copy collectives of
// pgas/collectives.hpp; these overloads take the others.
//
//   std::vector<std::string> names = ...;
//   names = pgas::co_broadcast(names, 0);
//   std::string all = pgas::co_reduce(word, [](std::string a, const std::string& b) { return a + b;
//   }); std::vector<std::string> at_zero = pgas::co_gather(word, 0);
//
// The same types travel as arguments and results of pgas::rpc and pgas::rpc_ff once this
// header is included (they are archived when the call is sent, and read back at the target).
//
// A type without serialization support does not compile (Boost names the missing
// `serialize`). std::string, std::vector and std::pair work once this header is included;
// include Boost's header for other standard types (<boost/serialization/map.hpp>, ...).
// Link with pgas::serialization.

#include <pgas/collectives.hpp>
#include <pgas/detail/wire.hpp>
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas {

namespace detail {

/// The types these collectives take: the others travel as plain bytes.
template <class T>
concept serialized_value = !std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>;

template <class T>
runtime::byte_buffer to_bytes(const T& value) {
  std::ostringstream out(std::ios::binary);
  {
    boost::archive::binary_oarchive archive(out, boost::archive::no_header);
    archive << value;
  }
  const std::string text = std::move(out).str();
  const auto* first = reinterpret_cast<const std::byte*>(text.data());
  return runtime::byte_buffer(first, first + text.size());
}

template <class T>
T from_bytes(const runtime::byte_buffer& bytes) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                        std::ios::binary);
  boost::archive::binary_iarchive archive(in, boost::archive::no_header);
  T value;
  archive >> value;
  return value;
}

template <class T, class Op>
T co_reduce_serialized(const char* what,
                       const T& value,
                       Op op,
                       std::optional<std::size_t> result_image) {
  const int root = agreed_image<T>(what, 0, result_image);
  const auto combine = [&op](const runtime::byte_buffer& left, const runtime::byte_buffer& right) {
    return to_bytes<T>(op(from_bytes<T>(left), from_bytes<T>(right)));
  };
  const runtime::byte_buffer out =
      runtime::reduce_buffers(to_bytes(value), combine, root, runtime::current_comm());
  return root < 0 || static_cast<std::size_t>(root) == this_image() ? from_bytes<T>(out) : value;
}

}  // namespace detail

/// source_image's value, on every image. Collective; throws usage_error on every image if the
/// images name different sources or the source does not exist.
template <detail::serialized_value T>
[[nodiscard]] T co_broadcast(
    const T& value,
    std::size_t source_image,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_broadcast", where);
  const int root = detail::agreed_image<T>("pgas::co_broadcast", 0, source_image);
  runtime::byte_buffer bytes;
  if (this_image() == source_image)
    bytes = detail::to_bytes(value);
  runtime::broadcast_buffer(bytes, root, runtime::current_comm());
  return this_image() == source_image ? value : detail::from_bytes<T>(bytes);
}

/// op over every image's value, folded so that the left operand always holds lower images
/// (op must be associative, need not be commutative), on every image. Collective: O(log p)
/// steps of a binomial tree.
template <detail::serialized_value T, class Op>
[[nodiscard]] T co_reduce(
    const T& value,
    Op op,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_reduce", where);
  return detail::co_reduce_serialized("pgas::co_reduce", value, op, std::nullopt);
}

/// As co_reduce(value, op), with the result on `result_image` only; the other images get their
/// own value back (Fortran leaves theirs undefined).
template <detail::serialized_value T, class Op>
[[nodiscard]] T co_reduce(
    const T& value,
    Op op,
    std::size_t result_image,
    runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
  const runtime::watchdog::waiting_in watched("pgas::co_reduce", where);
  return detail::co_reduce_serialized("pgas::co_reduce", value, op, result_image);
}

/// Every image's value, in image order, on `result_image`; an empty vector elsewhere.
/// Collective; throws usage_error on every image if the images name different images or the
/// image does not exist.
template <detail::serialized_value T>
[[nodiscard]] std::vector<T> co_gather(const T& value, std::size_t result_image) {
  const int root = detail::agreed_image<T>("pgas::co_gather", 0, result_image);
  const auto all = runtime::gather_buffers(detail::to_bytes(value), root, runtime::current_comm());
  std::vector<T> out;
  out.reserve(all.size());
  for (const auto& bytes : all) out.push_back(detail::from_bytes<T>(bytes));
  return out;
}

}  // namespace pgas

namespace pgas::detail::wire {

template <class T, template <class...> class Of>
inline constexpr bool specialization_of = false;
template <template <class...> class Of, class... A>
inline constexpr bool specialization_of<Of<A...>, Of> = true;

/// Remote-call arguments and results that travel as a Boost.Serialization archive: the values
/// serialized collectives take, except those wire.hpp carries itself.
template <class T>
concept archived = serialized_value<T> && !std::is_same_v<T, std::string> &&
                   !specialization_of<T, std::vector> && !specialization_of<T, std::optional>;

/// An archived value travels as its archive's length and bytes (it is archived twice when sent:
/// once to size the message, once into it).
template <archived T>
struct codec<T> {
  static std::size_t size(const T& v) {
    const std::size_t n = to_bytes(v).size();
    return length_bytes(n) + n;
  }
  static void write(std::byte*& out, const T& v) {
    const runtime::byte_buffer bytes = to_bytes(v);
    write_length(out, bytes.size());
    if (!bytes.empty())
      std::memcpy(out, bytes.data(), bytes.size());
    out += bytes.size();
  }
  static void skip(const std::byte*& in) {
    const std::size_t n = read_length(in);
    in += n;
  }
  static T read(const std::byte*& in) {
    const std::size_t n = read_length(in);
    const runtime::byte_buffer bytes(in, in + n);
    in += n;
    return from_bytes<T>(bytes);
  }
};

}  // namespace pgas::detail::wire
