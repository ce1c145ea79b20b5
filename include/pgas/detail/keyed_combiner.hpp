#pragma once
// Per-destination buffers of keyed updates in which repeated keys are combined where they are
// made: a stream of inserts and accumulates to a hash map's owners sends each key at most once
// per batch, however often the caller names it.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pgas::detail {

/// The updates one caller made to one key since its last batch went: an insert that came
/// before any accumulate (a later insert finds the key present and does nothing), and the sum of
/// the accumulates. Applied in that order at the owner.
template <class K, class V>
struct keyed_update {
  K key;
  V inserted;  // meaningful if has_insert
  V sum;       // meaningful if has_sum
  bool has_insert;
  bool has_sum;
};

/// Holds, for each destination, at most `batch` distinct keys; the caller sends a destination's
/// batch when it is full and at every sync point. Memory: destinations × batch updates and an
/// index twice that size, whatever the stream. Local.
template <class K, class V>
class keyed_combiner {
 public:
  using update = keyed_update<K, V>;

  keyed_combiner(std::size_t destinations, std::size_t batch)
      : batch_(batch < 1 ? 1 : batch),
        index_size_(std::bit_ceil(2 * batch_)),
        lanes_(destinations) {}

  /// Adds an insert of (k, v); `hash` is k's hash, `same` compares two keys. Returns true when
  /// the destination's batch is full and must be sent before the next call.
  template <class Same>
  bool insert(std::size_t destination, const K& k, std::uint64_t hash, const V& v, Same same) {
    bool fresh = false;
    update& u = entry(destination, k, hash, same, fresh);
    if (fresh) {
      u.inserted = v;
      u.has_insert = true;
    }
    return lanes_[destination].held.size() >= batch_;
  }
  /// Adds an accumulate of v into k. Returns true when the destination's batch is full.
  template <class Same>
  bool accumulate(std::size_t destination, const K& k, std::uint64_t hash, const V& v, Same same) {
    bool fresh = false;
    update& u = entry(destination, k, hash, same, fresh);
    if (u.has_sum) {
      u.sum += v;
    } else {
      u.sum = v;
      u.has_sum = true;
    }
    return lanes_[destination].held.size() >= batch_;
  }

  /// The updates held for a destination, oldest key first.
  [[nodiscard]] std::span<const update> held(std::size_t destination) const {
    return lanes_[destination].held;
  }
  /// Forgets a destination's updates (once sent).
  void clear(std::size_t destination) {
    lane& l = lanes_[destination];
    l.held.clear();
    std::fill(l.index.begin(), l.index.end(), 0u);
  }
  [[nodiscard]] std::size_t destinations() const noexcept { return lanes_.size(); }
  [[nodiscard]] std::size_t batch() const noexcept { return batch_; }

 private:
  struct lane {
    std::vector<update> held;
    std::vector<std::uint32_t> index;  // open addressing: 1 + position in held, 0 for none
  };

  template <class Same>
  update& entry(std::size_t destination, const K& k, std::uint64_t hash, Same same, bool& fresh) {
    lane& l = lanes_[destination];
    if (l.index.empty()) {
      l.index.assign(index_size_, 0u);
      l.held.reserve(batch_);
    }
    // held.size() < batch_ <= index_size_ / 2: an empty slot is always found.
    for (std::size_t at = hash & (index_size_ - 1);; at = (at + 1) & (index_size_ - 1)) {
      const std::uint32_t found = l.index[at];
      if (found == 0) {
        l.index[at] = static_cast<std::uint32_t>(l.held.size() + 1);
        l.held.push_back(update{k, V{}, V{}, false, false});
        fresh = true;
        return l.held.back();
      }
      if (same(l.held[found - 1].key, k))
        return l.held[found - 1];
    }
  }

  std::size_t batch_;
  std::size_t index_size_;
  std::vector<lane> lanes_;
};

}  // namespace pgas::detail
