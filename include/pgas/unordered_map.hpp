#pragma once
// pgas::unordered_map: a distributed hash map. Keys are hashed to an owner image; each owner
// keeps an open-addressing table in a pgas::vector (memory on a dynamic window), which any
// image reads with one-sided gets.

#include <pgas/detail/live_handle.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/sync.hpp>
#include <pgas/vector.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

namespace pgas {

/// A hash map spread over all images.
///
/// Updates are batched at their owner, not applied by remote atomics: `insert`,
/// `insert_or_assign`, `accumulate` and `erase` only queue the operation on the calling image
/// (no MPI call); the collective `commit()` sends each owner its queue (one all-to-all) and the
/// owner applies the operations in image order, then in call order. So concurrent, overlapping
/// updates from all images give one well-defined result: for `insert` of a key several images
/// insert, the lowest image's first value wins; `insert_or_assign` keeps the last; `accumulate`
/// sums. Owners grow their tables at commit, as far as needed.
///
/// `find`, `contains` and `size` read the committed state, from any image, with one-sided gets
/// on the owner's table; an image's own queued operations are not visible before commit().
/// Collective to construct, commit and destroy; move-only. K and V must be trivially copyable,
/// and Hash must give the same value for a key on every image.
template <class K, class V, class Hash = std::hash<K>>
class unordered_map {
  static_assert(
      std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
      "pgas::unordered_map keys and values travel as bytes: make them trivially copyable");

 public:
  /// Collective over the team in force: an empty map with room for about `initial_capacity`
  /// keys per image.
  explicit unordered_map(std::size_t initial_capacity = 16)
      : unordered_map(current_team(), initial_capacity) {}
  /// Collective over team t: the map's keys are spread over t's images.
  explicit unordered_map(const pgas::team& t, std::size_t initial_capacity = 16)
      : table_(t, 0), outbox_(t.size()) {
    std::size_t cap = 8;
    while (cap < 2 * initial_capacity) cap *= 2;
    grow_local_table(cap);
    table_.commit();
  }

  /// Queues: add (k, v) unless k is present. Local, no MPI call; applied at commit().
  void insert(const K& k, const V& v) { queue(op_kind::insert, k, v); }
  /// Queues: set k to v, present or not. Local; applied at commit().
  void insert_or_assign(const K& k, const V& v) { queue(op_kind::assign, k, v); }
  /// Queues: k's value += v, or k = v if absent (for counting). Local; applied at commit().
  void accumulate(const K& k, const V& v) requires requires(V a, V b) { a += b; }
  { queue(op_kind::accumulate, k, v); }
  /// Queues: remove k if present. Local; applied at commit().
  void erase(const K& k) { queue(op_kind::erase, k, V{}); }
  /// Operations this image queued since the last commit. Local.
  [[nodiscard]] std::size_t pending() const {
    live_.require(name);
    std::size_t n = 0;
    for (const auto& q : outbox_) n += q.size();
    return n;
  }

  /// Collective: delivers every image's queued operations to their owners, which apply them
  /// and grow their tables as needed. Afterwards every image sees the result.
  void commit() {
    live_.require(name);
    // One all-to-all: each image's queue for owner t goes to t, arriving in image order.
    std::vector<std::size_t> counts(table_.team().size());
    std::vector<op> sends;
    for (std::size_t t = 0; t < counts.size(); ++t) {
      counts[t] = outbox_[t].size();
      sends.insert(sends.end(), outbox_[t].begin(), outbox_[t].end());
      outbox_[t].clear();
    }
    const auto inbox =
        runtime::exchange(std::span<const op>(sends), counts, table_.team().native());
    // Rehash when keys, tombstones and arrivals could pass half the room, growing (collectively:
    // the table is a pgas::vector) until the keys and arrivals fill at most half.
    std::size_t cap = table_.local().size();
    const bool rehash = 2 * (count_ + erased_ + inbox.size()) > cap;
    while (2 * (count_ + inbox.size()) > cap) cap *= 2;
    std::vector<slot> old;
    if (rehash)
      old.assign(table_.local().begin(), table_.local().end());
    grow_local_table(cap);
    table_.commit();
    if (rehash) {
      std::fill(table_.local().begin(), table_.local().end(), slot{});
      count_ = 0;
      erased_ = 0;
      for (const slot& s : old) {
        if (s.state == full)
          apply({op_kind::assign, s.key, s.value});
      }
    }
    for (const op& o : inbox) apply(o);
    total_ = runtime::allreduce(count_, runtime::reduce_op::sum, table_.team().native());
    table_.sync();
  }

  /// k's committed value, if present. Local: reads the owner's table with one-sided gets (one
  /// slot per probe), or directly when this image owns k.
  [[nodiscard]] std::optional<V> find(const K& k) const {
    live_.require(name);
    const std::uint64_t h = hash_of(k);
    const std::size_t owner = h % table_.team().size();
    const std::size_t cap = table_.local_size_of(owner);
    const std::size_t first = table_.distribution().first_of(owner);
    for (std::size_t probe = 0; probe < cap; ++probe) {
      const std::size_t at = first + ((h / table_.team().size() + probe) & (cap - 1));
      const slot s = table_[at];
      if (s.state == empty)
        return std::nullopt;
      if (s.state == full && same_key(s.key, k))
        return s.value;
    }
    return std::nullopt;
  }
  /// True if k is present (committed). Local.
  [[nodiscard]] bool contains(const K& k) const { return find(k).has_value(); }
  /// Number of keys over all images, as of the last commit. Local.
  [[nodiscard]] std::size_t size() const {
    live_.require(name);
    return total_;
  }
  /// Number of keys this image owns. Local.
  [[nodiscard]] std::size_t local_size() const {
    live_.require(name);
    return count_;
  }
  /// Calls f(key, value) for every key this image owns. Local.
  template <class F>
  void for_each_local(F f) const {
    live_.require(name);
    for (const slot& s : table_.local()) {
      if (s.state == full)
        f(s.key, s.value);
    }
  }

 private:
  enum : std::uint8_t { empty = 0, full = 1, erased = 2 };
  struct slot {
    std::uint8_t state = empty;
    K key{};
    V value{};
  };
  enum class op_kind : std::uint8_t { insert, assign, accumulate, erase };
  struct op {
    op_kind kind;
    K key;
    V value;
  };

  static bool same_key(const K& a, const K& b) {
    if constexpr (std::equality_comparable<K>) {
      return a == b;
    } else {
      return std::memcmp(&a, &b, sizeof(K)) == 0;
    }
  }
  // The user's hash, mixed (splitmix64 finaliser) so owner and slot bits are both well spread.
  static std::uint64_t hash_of(const K& k) {
    auto z = static_cast<std::uint64_t>(Hash{}(k)) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  void queue(op_kind kind, const K& k, const V& v) {
    live_.require(name);
    outbox_[hash_of(k) % table_.team().size()].push_back({kind, k, v});
  }
  void grow_local_table(std::size_t cap) {
    for (std::size_t k = table_.local().size() + table_.uncommitted(); k < cap; ++k)
      table_.push_back(slot{});
  }
  // Applies one operation to this image's table (which has room: at most half full).
  void apply(const op& o) {
    const std::uint64_t h = hash_of(o.key);
    auto slots = table_.local();
    const std::size_t cap = slots.size();
    std::optional<std::size_t> reusable;
    for (std::size_t probe = 0; probe < cap; ++probe) {
      slot& s = slots[(h / table_.team().size() + probe) & (cap - 1)];
      if (s.state == erased) {
        if (!reusable)
          reusable = static_cast<std::size_t>(&s - slots.data());
        continue;
      }
      if (s.state == empty) {
        if (o.kind == op_kind::erase)
          return;
        if (reusable) {
          slots[*reusable] = slot{full, o.key, o.value};
          --erased_;
        } else {
          s = slot{full, o.key, o.value};
        }
        ++count_;
        return;
      }
      if (same_key(s.key, o.key)) {
        switch (o.kind) {
          case op_kind::insert:
            return;
          case op_kind::assign:
            s.value = o.value;
            return;
          case op_kind::accumulate:
            if constexpr (requires(V a, V b) { a += b; })
              s.value += o.value;
            return;
          case op_kind::erase:
            s.state = erased;
            --count_;
            ++erased_;
            return;
        }
      }
    }
    // No empty slot left behind the tombstones: take the first tombstone.
    if (reusable && o.kind != op_kind::erase) {
      slots[*reusable] = slot{full, o.key, o.value};
      ++count_;
      --erased_;
    }
  }

  pgas::vector<slot> table_;
  std::vector<std::vector<op>> outbox_;
  std::size_t count_ = 0;   // keys in this image's table
  std::size_t erased_ = 0;  // tombstones in this image's table
  std::size_t total_ = 0;
  detail::live_handle live_;  // use after a move throws instead of indexing an empty outbox
  static constexpr const char* name = "pgas::unordered_map";
};

}  // namespace pgas
