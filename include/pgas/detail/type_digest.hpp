#pragma once
// A number that names a type alike in every image of one program, so a collective can check
// that the images pass the same type before MPI reinterprets one image's bytes as another's.

#include <cstddef>
#include <cstdint>
#include <typeinfo>

namespace pgas::detail {

/// T's digest: FNV-1a over its mangled name, and its size. The same in every process running
/// one binary; different for int and float, long and double. Local.
template <class T>
[[nodiscard]] long long type_digest() {
  static const long long digest = [] {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char* c = typeid(T).name(); *c != '\0'; ++c) {
      h ^= static_cast<unsigned char>(*c);
      h *= 1099511628211ULL;
    }
    h ^= sizeof(T);
    h *= 1099511628211ULL;
    return static_cast<long long>(h >> 1);  // non-negative: fits a long long
  }();
  return digest;
}

}  // namespace pgas::detail
