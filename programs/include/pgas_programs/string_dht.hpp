#pragma once
// A distributed hash table of strings on remote procedure calls: each image keeps its share of
// the keys in an ordinary std::unordered_map inside a pgas::dist_object, and inserts and finds
// run at the key's owner. Shared by examples/dht and bench_dht, which also share the keys and
// values they insert.

#include <pgas/pgas.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace string_dht {

using shard = std::unordered_map<std::string, std::string>;

inline std::string key_of(std::size_t image, std::size_t k) {
  return "key-" + std::to_string(image) + "-" + std::to_string(k);
}
inline std::string value_of(std::size_t image, std::size_t k) {
  return "value-" + std::to_string(k * 7919 + image);
}

// The owner of a key: the same on every image (std::hash of a string is, within one program).
inline std::size_t owner_of(const std::string& key) {
  return std::hash<std::string>{}(key) % pgas::num_images();
}

inline void insert(pgas::dist_object<shard>& table,
                   const std::string& key,
                   const std::string& value) {
  pgas::rpc_ff(
      owner_of(key),
      // By value: the strings the call decoded are moved into the table, not copied.
      [](pgas::dist_object<shard>& t, std::string k, std::string v) {
        t->insert_or_assign(std::move(k), std::move(v));
      },
      table, key, value);
}

inline pgas::future<std::optional<std::string>> find(pgas::dist_object<shard>& table,
                                                     const std::string& key) {
  return pgas::rpc(
      owner_of(key),
      [](pgas::dist_object<shard>& t, const std::string& k) -> std::optional<std::string> {
        const auto it = t->find(k);
        if (it == t->end())
          return std::nullopt;
        return it->second;
      },
      table, key);
}

}  // namespace string_dht
