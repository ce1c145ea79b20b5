#pragma once
// How a remote call's function, arguments and result travel: as bytes, each value packed
// without padding and copied out again at the other end (the message engine aligns only the
// start of a payload).

#include <pgas/runtime/code_address.hpp>
#include <pgas/runtime/error.hpp>

#include <ranges>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgas {
template <class T>
class global_ptr;
}  // namespace pgas

namespace pgas::detail::wire {

/// The codec of T; a specialisation makes T travel. The general one carries trivially copyable
/// values that are not pointers (an address means nothing on another image).
template <class T>
struct codec;

/// True for a trivially copyable value that only refers to memory of the image holding it — a
/// view (std::string_view, std::span, a tile's ndarray_view: any std::ranges::view), a
/// std::reference_wrapper, a pgas::global_ptr (whose window and mapped address are this
/// image's) — so that its bytes would arrive as an address meaningless where they land. A
/// header whose type is such adds a specialisation.
template <class T>
inline constexpr bool refers_to_memory_here = std::ranges::view<T>;
template <class T>
inline constexpr bool refers_to_memory_here<std::reference_wrapper<T>> = true;
template <class T>
inline constexpr bool refers_to_memory_here<global_ptr<T>> = true;

template <class T>
concept plain =
    std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> && !std::is_member_pointer_v<T> &&
    !std::is_reference_v<T> && !refers_to_memory_here<T>;

/// True for the types a remote call carries: trivially copyable values, std::string,
/// std::vector and std::optional of carried types, and what a codec specialisation adds
/// (pgas::dist_object&). `skip` moves past one encoded value without making it: how a call
/// finds where each argument starts before it decodes any.
template <class T>
concept carried = requires(const T& v, std::byte*& out, const std::byte*& in) {
  { codec<T>::size(v) } -> std::same_as<std::size_t>;
  codec<T>::write(out, v);
  codec<T>::skip(in);
  codec<T>::read(in);
};

template <plain T>
struct codec<T> {
  static std::size_t size(const T&) { return sizeof(T); }
  static void write(std::byte*& out, const T& v) {
    std::memcpy(out, &v, sizeof(T));
    out += sizeof(T);
  }
  static void skip(const std::byte*& in) { in += sizeof(T); }
  // A trivially copyable type may lack a default constructor (a lambda with captures): its
  // bytes are copied into storage of its own, which begins its lifetime (implicit-lifetime
  // type, [intro.object]/10), then moved out.
  static T read(const std::byte*& in) {
    alignas(T) std::byte storage[sizeof(T)];
    std::memcpy(storage, in, sizeof(T));
    in += sizeof(T);
    return *std::launder(reinterpret_cast<T*>(storage));
  }
};

/// A length (of a string, a vector, an archive) travels in one byte when it is below
/// long_length_mark, else as that mark and four bytes: a stream of small calls (a string
/// table's inserts, two short strings each) moves that much less, which between nodes is the
/// network's time. Every value is sized before its message is reserved, and the engine refuses
/// a message larger than its buffers (at most 256 KiB), so no length that fits a message needs
/// more than four bytes; one that would is refused here.
inline constexpr std::size_t long_length_mark = 255;
inline std::size_t length_bytes(std::size_t n) {
  if (n > UINT32_MAX) {
    throw usage_error("a remote call's argument of " + std::to_string(n) +
                      " elements is longer than a message can carry");
  }
  return n < long_length_mark ? 1 : 1 + sizeof(std::uint32_t);
}
inline void write_length(std::byte*& out, std::size_t n) {
  if (n < long_length_mark) {
    codec<std::uint8_t>::write(out, static_cast<std::uint8_t>(n));
    return;
  }
  codec<std::uint8_t>::write(out, static_cast<std::uint8_t>(long_length_mark));
  codec<std::uint32_t>::write(out, static_cast<std::uint32_t>(n));
}
inline std::size_t read_length(const std::byte*& in) {
  const std::size_t first = codec<std::uint8_t>::read(in);
  return first < long_length_mark ? first : codec<std::uint32_t>::read(in);
}

template <>
struct codec<std::string> {
  static std::size_t size(const std::string& s) { return length_bytes(s.size()) + s.size(); }
  static void write(std::byte*& out, const std::string& s) {
    write_length(out, s.size());
    if (!s.empty())
      std::memcpy(out, s.data(), s.size());
    out += s.size();
  }
  static void skip(const std::byte*& in) {
    const std::size_t n = read_length(in);
    in += n;
  }
  static std::string read(const std::byte*& in) {
    const std::size_t n = read_length(in);
    std::string s(reinterpret_cast<const char*>(in), n);
    in += n;
    return s;
  }
};

template <carried T>
struct codec<std::vector<T>> {
  static std::size_t size(const std::vector<T>& v) {
    if constexpr (plain<T>) {
      return length_bytes(v.size()) + v.size() * sizeof(T);
    } else {
      std::size_t n = length_bytes(v.size());
      for (const T& x : v) n += codec<T>::size(x);
      return n;
    }
  }
  static void write(std::byte*& out, const std::vector<T>& v) {
    write_length(out, v.size());
    if constexpr (plain<T>) {
      if (!v.empty())
        std::memcpy(out, v.data(), v.size() * sizeof(T));
      out += v.size() * sizeof(T);
    } else {
      for (const T& x : v) codec<T>::write(out, x);
    }
  }
  static void skip(const std::byte*& in) {
    const std::size_t n = read_length(in);
    if constexpr (plain<T>) {
      in += n * sizeof(T);
    } else {
      for (std::size_t k = 0; k < n; ++k) codec<T>::skip(in);
    }
  }
  static std::vector<T> read(const std::byte*& in) {
    const std::size_t n = read_length(in);
    std::vector<T> v;
    v.reserve(n);
    if constexpr (plain<T>) {
      v.resize(n);
      if (n != 0)
        std::memcpy(v.data(), in, n * sizeof(T));
      in += n * sizeof(T);
    } else {
      for (std::size_t k = 0; k < n; ++k) v.push_back(codec<T>::read(in));
    }
    return v;
  }
};

template <carried T>
struct codec<std::optional<T>> {
  static std::size_t size(const std::optional<T>& v) { return 1 + (v ? codec<T>::size(*v) : 0); }
  static void write(std::byte*& out, const std::optional<T>& v) {
    codec<bool>::write(out, v.has_value());
    if (v)
      codec<T>::write(out, *v);
  }
  static void skip(const std::byte*& in) {
    if (codec<bool>::read(in))
      codec<T>::skip(in);
  }
  static std::optional<T> read(const std::byte*& in) {
    if (!codec<bool>::read(in))
      return std::nullopt;
    return codec<T>::read(in);
  }
};

/// What the function receives for an argument of type A: the decoded value itself (a prvalue,
/// which initialises a by-value parameter in place), or what the codec says (a reference to
/// this image's dist_object).
template <class A>
using passed_t = decltype(codec<A>::read(std::declval<const std::byte*&>()));

/// The function a remote call runs: a function pointer travels as the portable address of the
/// function, a function object as its bytes (it must be trivially copyable).
template <class Fn>
concept callable_remotely = (std::is_pointer_v<Fn> &&
                             std::is_function_v<std::remove_pointer_t<Fn>>) ||
                            (std::is_class_v<Fn> && std::is_trivially_copyable_v<Fn>);

template <class Fn>
constexpr std::size_t function_size() {
  if constexpr (std::is_pointer_v<Fn>) {
    return sizeof(std::uint64_t);
  } else if constexpr (std::is_empty_v<Fn>) {
    return 0;
  } else {
    return sizeof(Fn);
  }
}

template <class Fn>
void write_function(std::byte*& out, const Fn& f) {
  if constexpr (std::is_pointer_v<Fn>) {
    codec<std::uint64_t>::write(out,
                                runtime::portable_code_address(reinterpret_cast<const void*>(f)));
  } else if constexpr (!std::is_empty_v<Fn>) {
    codec<Fn>::write(out, f);
  }
}

template <class Fn>
Fn read_function(const std::byte*& in) {
  if constexpr (std::is_pointer_v<Fn>) {
    const auto portable = codec<std::uint64_t>::read(in);
    return reinterpret_cast<Fn>(const_cast<void*>(runtime::local_code_address(portable)));
  } else if constexpr (std::is_empty_v<Fn>) {
    // An empty class carries no bytes; its value is its type.
    alignas(Fn) std::byte storage[sizeof(Fn)]{};
    return *std::launder(reinterpret_cast<Fn*>(storage));
  } else {
    return codec<Fn>::read(in);
  }
}

}  // namespace pgas::detail::wire
