#pragma once
// pgas::unordered_map: a distributed hash map. Keys are hashed to an owner image; each owner
// keeps an open-addressing table in a pgas::vector (memory on a dynamic window), which any
// image reads with one-sided gets. Updates reach their owner in batches: all images' queues at
// a collective commit(), or a bounded stream of async updates that the owner applies when it
// makes progress (the owner-side message engine).

#include <pgas/array.hpp>
#include <pgas/detail/divisor.hpp>
#include <pgas/detail/keyed_combiner.hpp>
#include <pgas/detail/live_handle.hpp>
#include <pgas/dist_object.hpp>
#include <pgas/future.hpp>
#include <pgas/rpc.hpp>
#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/prefetch.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/sync.hpp>
#include <pgas/vector.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <unordered_map>
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
/// `async_insert` and `async_accumulate` are the non-collective stream: the caller combines
/// repeated keys in a buffer per owner (at most a batch of distinct keys each, sized from the
/// message engine's buffers), sends a full batch as one message, and sends what it holds at
/// every sync point; the owner applies a batch when it makes progress (the progress rule of
/// pgas/rpc.hpp). The caller's own keys are batched alike and applied where their batch goes.
/// Every async update made before a sync point of the map's team has been applied
/// when it returns, and before any operation queued for the same commit(). Concurrent
/// `async_insert`s of one new key: one of them wins; `async_accumulate` sums. An owner whose
/// table would pass three quarters full keeps further new keys beside it until the next
/// commit(), which moves them in.
///
/// `find`, `contains` and `size` read the state as of the last sync point, from any image, with
/// one-sided gets on the owner's table (and a call to the owner for a key kept beside it);
/// `size` counts keys as of the last commit(). An image's own queued operations are not visible
/// before commit(). `async_find` asks the owner itself, after this image's earlier async updates.
/// Collective to construct, commit and destroy; move-only. K and V must be trivially copyable,
/// and Hash must give the same value for a key on every image.
template <class K, class V, class Hash = std::hash<K>>
class unordered_map {
  static_assert(
      std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
      "pgas::unordered_map keys and values travel as bytes: make them trivially copyable");
  static_assert(std::equality_comparable<K> || std::has_unique_object_representations_v<K>,
                "pgas::unordered_map keys need an operator== or no padding: without one keys are "
                "compared byte by byte, and padding bytes make equal keys differ");

 public:
  /// Collective over the team in force: an empty map with room for about `initial_capacity`
  /// keys per image.
  explicit unordered_map(std::size_t initial_capacity = 16)
      : unordered_map(current_team(), initial_capacity) {}
  /// Collective over team t: the map's keys are spread over t's images.
  explicit unordered_map(const pgas::team& t, std::size_t initial_capacity = 16)
      : table_(t, 0), outbox_(t.size()), spilled_(t, t.size()), images_(t.size()) {
    require_agreed_hash_and_room(t, initial_capacity);
    std::size_t cap = 8;
    while (cap < 2 * initial_capacity) cap *= 2;
    grow_local_table(cap);
    table_.commit();
    async_ = std::make_unique<async_part>(this, t);
  }
  unordered_map(unordered_map&& o) noexcept
      : table_(std::move(o.table_)),
        outbox_(std::move(o.outbox_)),
        spilled_(std::move(o.spilled_)),
        spill_(std::move(o.spill_)),
        arrived_(std::move(o.arrived_)),
        count_(o.count_),
        erased_(o.erased_),
        total_(o.total_),
        rebuilding_(o.rebuilding_),
        live_(std::move(o.live_)),
        images_(o.images_),
        async_(std::move(o.async_)) {
    rebind();
  }
  /// Collective, as destruction is: this map's async updates are applied before it goes.
  unordered_map& operator=(unordered_map&& o) {
    if (this != &o) {
      async_.reset();
      table_ = std::move(o.table_);
      outbox_ = std::move(o.outbox_);
      spilled_ = std::move(o.spilled_);
      spill_ = std::move(o.spill_);
      arrived_ = std::move(o.arrived_);
      count_ = o.count_;
      erased_ = o.erased_;
      total_ = o.total_;
      rebuilding_ = o.rebuilding_;
      live_ = std::move(o.live_);
      images_ = o.images_;
      async_ = std::move(o.async_);
      rebind();
    }
    return *this;
  }
  unordered_map(const unordered_map&) = delete;
  unordered_map& operator=(const unordered_map&) = delete;
  /// Collective: every async update sent to this map, from any image, is applied first.
  ~unordered_map() = default;

  /// Queues: add (k, v) unless k is present. Local, no MPI call; applied at commit().
  void insert(const K& k, const V& v) { queue(op_kind::insert, k, v); }
  /// Queues: set k to v, present or not. Local; applied at commit().
  void insert_or_assign(const K& k, const V& v) { queue(op_kind::assign, k, v); }
  /// Queues: k's value += v, or k = v if absent (for counting). Local; applied at commit().
  void accumulate(const K& k, const V& v) requires requires(V a, V b) { a += b; }
  { queue(op_kind::accumulate, k, v); }
  /// Queues: remove k if present. Local; applied at commit().
  void erase(const K& k) { queue(op_kind::erase, k, V{}); }

  /// Sends: add (k, v) at k's owner unless k is present there. Not collective; applied by the
  /// next sync point of the map's team. Local (it may send a full batch and make progress).
  void async_insert(const K& k, const V& v) {
    live_.require(name);
    const std::uint64_t h = hash_of(k);
    const std::size_t owner = owner_of_hash(h);
    // The owner took h's low part: the rest spreads the keys of one owner in its buffer.
    if (async_->stream.held.insert(owner, k, home_of_hash(h), v, same_key))
      async_->stream.send(owner);
    async_->stream.holding();
  }
  /// Sends: k's value += v at k's owner, or k = v if absent; repeated keys are combined here
  /// first. Not collective; applied by the next sync point of the map's team. Local.
  void async_accumulate(const K& k, const V& v) requires requires(V a, V b) { a += b; }
  {
    live_.require(name);
    const std::uint64_t h = hash_of(k);
    const std::size_t owner = owner_of_hash(h);
    if (async_->stream.held.accumulate(owner, k, home_of_hash(h), v, same_key))
      async_->stream.send(owner);
    async_->stream.holding();
  }
  /// A future of k's value at its owner, which answers when it makes progress; it sees this
  /// image's earlier async updates and everything applied there before. Local.
  [[nodiscard]] future<std::optional<V>> async_find(const K& k) const {
    live_.require(name);
    const std::size_t owner = owner_of_hash(hash_of(k));
    async_->stream.send(owner);  // applied here, or ahead on the ordered channel to the owner
    if (owner == table_.team().rank())
      return future<std::optional<V>>::make_ready(find_here(k));
    return detail::remote::rpc_world(
        table_.team().world_image(owner),
        [](const dist_object<unordered_map*>& d, const K& key) { return (*d)->find_here(key); },
        async_->self, k);
  }

  /// Operations this image queued since the last commit (the word pgas::vector uses too). Local.
  [[nodiscard]] std::size_t uncommitted() const {
    live_.require(name);
    std::size_t n = 0;
    for (const auto& q : outbox_) n += q.size();
    return n;
  }
  /// The same as uncommitted(), under the name earlier releases gave it. Local.
  [[nodiscard]] std::size_t pending() const { return uncommitted(); }

  /// Collective: delivers every image's queued operations to their owners, which apply them
  /// and grow their tables as needed. Afterwards every image sees the result.
  void commit(
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    const runtime::watchdog::waiting_in watched("pgas::unordered_map::commit", where);
    live_.require(name);
    // Every async update sent before commit() is applied first; from here until the table is
    // rebuilt, one arriving (from outside the team) waits in arrived_.
    table_.sync();
    const rebuilding_scope scope(*this);
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
    const std::size_t arriving = inbox.size() + spill_.size();
    std::size_t cap = table_.local().size();
    const bool rehash = 2 * (count_ + erased_ + arriving) > cap;
    while (2 * (count_ + arriving) > cap) cap *= 2;
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
    // Keys kept beside the table came before this commit's queued operations.
    for (const auto& [key, value] : spill_) apply({op_kind::assign, key, value});
    spill_.clear();
    for (const op& o : inbox) apply(o);
    scope.end();
    publish_spill();
    total_ =
        runtime::allreduce(count_ + spill_.size(), runtime::reduce_op::sum, table_.team().native());
    table_.sync();
  }

  /// k's committed value, if present. Local: reads the owner's table with one-sided gets (one
  /// slot per probe), or directly when this image owns k.
  [[nodiscard]] std::optional<V> find(const K& k) const {
    live_.require(name);
    const std::uint64_t h = hash_of(k);
    const std::size_t owner = owner_of_hash(h);
    const std::size_t cap = table_.local_size_of(owner);
    const std::size_t first = table_.distribution().first_of(owner);
    for (std::size_t probe = 0; probe < cap; ++probe) {
      const std::size_t at = first + ((home_of_hash(h) + probe) & (cap - 1));
      const slot s = table_[at];
      if (s.state == empty)
        break;
      if (s.state == full && same_key(s.key, k))
        return s.value;
    }
    // Not in the table: the owner may keep it beside (async inserts past three quarters full).
    if (owner == table_.team().rank())
      return find_beside(k);
    const std::uint64_t beside = spilled_[owner];
    if (beside == 0)
      return std::nullopt;
    return async_find(k).get();
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
    return count_ + spill_.size();
  }
  /// Calls f(key, value) for every key this image owns. Local.
  template <class F>
  void for_each_local(F f) const {
    live_.require(name);
    for (const slot& s : table_.local()) {
      if (s.state == full)
        f(s.key, s.value);
    }
    for (const auto& [key, value] : spill_) f(key, value);
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

  using update = detail::keyed_update<K, V>;

  // Collective over t, at construction: usage_error on every image if Hash gives a key (K{})
  // different values on different images (the map would split keys between owners), or if an
  // image's table of `initial_capacity` keys passes the machine's memory.
  static void require_agreed_hash_and_room(const pgas::team& t, std::size_t initial_capacity) {
    if constexpr (std::default_initializable<K>) {
      const long long mine[1] = {static_cast<long long>(hash_of(K{}) >> 1)};
      if (!runtime::same_everywhere(mine, t.native())) {
        throw usage_error(
            "pgas::unordered_map: the hash gives one key different values on "
            "different images; it must be the same function everywhere");
      }
    }
    const std::size_t memory = runtime::machine_memory_bytes();
    const bool fits = initial_capacity <= memory / (4 * sizeof(slot));  // 2x room, 2x growth
    if (!runtime::everyone(fits, t.native())) {
      throw usage_error("pgas::unordered_map: room for " + std::to_string(initial_capacity) +
                        " keys per image passes the " + std::to_string(memory) +
                        " bytes of memory the machine has" +
                        (fits ? std::string(" on another image") : std::string()));
    }
  }
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
  // Where a hash puts its key: the owner is the hash modulo the image count, and the rest of
  // the hash (the quotient) picks the key's home slot in the owner's table. By a divisor made
  // once (libdivide): an async insert took three hardware divisions, caller and owner, and
  // bench_dht's map inserts ran 4-12 % faster without them (three alternating pairs).
  [[nodiscard]] std::size_t owner_of_hash(std::uint64_t h) const { return h % images_; }
  [[nodiscard]] std::size_t home_of_hash(std::uint64_t h) const { return h / images_; }
  void queue(op_kind kind, const K& k, const V& v) {
    live_.require(name);
    outbox_[owner_of_hash(hash_of(k))].push_back({kind, k, v});
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
      slot& s = slots[(home_of_hash(h) + probe) & (cap - 1)];
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

  // Keys kept beside the table (async inserts past three quarters full), until commit().
  struct beside_hash {
    std::size_t operator()(const K& k) const { return static_cast<std::size_t>(hash_of(k)); }
  };
  struct beside_equal {
    bool operator()(const K& a, const K& b) const { return same_key(a, b); }
  };

  // This image's value of k, in the table or beside it; null if absent.
  V* value_here(const K& k) {
    const std::uint64_t h = hash_of(k);
    auto slots = table_.local();
    const std::size_t cap = slots.size();
    for (std::size_t probe = 0; probe < cap; ++probe) {
      slot& s = slots[(home_of_hash(h) + probe) & (cap - 1)];
      if (s.state == empty)
        break;
      if (s.state == full && same_key(s.key, k))
        return &s.value;
    }
    const auto it = spill_.find(k);
    return it == spill_.end() ? nullptr : &it->second;
  }
  std::optional<V> find_here(const K& k) const {
    V* v = const_cast<unordered_map*>(this)->value_here(k);
    return v == nullptr ? std::nullopt : std::optional<V>(*v);
  }
  std::optional<V> find_beside(const K& k) const {
    const auto it = spill_.find(k);
    return it == spill_.end() ? std::nullopt : std::optional<V>(it->second);
  }
  // Applies one combined async update at its owner: the insert (if k is absent), then the sum.
  // One probe finds the key or the slot a new key takes (the first tombstone or empty slot).
  void apply_update(const update& u) {
    if (rebuilding_) {
      arrived_.push_back(u);
      return;
    }
    const std::uint64_t h = hash_of(u.key);
    auto slots = table_.local();
    const std::size_t cap = slots.size();
    slot* free = nullptr;
    V* at = nullptr;
    for (std::size_t probe = 0; probe < cap; ++probe) {
      slot& s = slots[(home_of_hash(h) + probe) & (cap - 1)];
      if (s.state == full) {
        if (same_key(s.key, u.key)) {
          at = &s.value;
          break;
        }
        continue;
      }
      if (free == nullptr)
        free = &s;
      if (s.state == empty)
        break;
    }
    if (at == nullptr && !spill_.empty()) {
      const auto it = spill_.find(u.key);
      if (it != spill_.end())
        at = &it->second;
    }
    if (at == nullptr) {
      V v = u.has_insert ? u.inserted : u.sum;
      if constexpr (requires(V a, V b) { a += b; }) {
        if (u.has_insert && u.has_sum)
          v += u.sum;
      }
      if (free != nullptr && 4 * (count_ + erased_ + 1) <= 3 * cap) {
        if (free->state == erased)
          --erased_;
        *free = slot{full, u.key, v};
        ++count_;
      } else {
        spill_.emplace(u.key, v);
      }
      return;
    }
    if constexpr (requires(V a, V b) { a += b; }) {
      if (u.has_sum)
        *at += u.sum;
    }
  }
  // Applies `count` combined async updates in order, get(k) giving the k-th, and publishes
  // what went beside the table. Slots are reached at random in a table larger than the caches:
  // applied one at a time, each update would wait out its first probe's miss before the next
  // could start (the probe's branch on the slot's state is not predictable), so each update's
  // home slot is asked for some updates ahead (runtime/ask_ahead.hpp) and the misses overlap.
  template <class Get>
  void apply_updates(std::size_t count, Get get) {
    const std::span<slot> slots = table_.local();
    const std::size_t last = slots.size() - 1;  // a power of two, less one
    runtime::for_each_piece_asking_ahead(
        runtime::scattered_loop::map_updates, count,
        [&](std::size_t first, std::size_t end, std::size_t ahead) {
          // Copies no store into a slot can reach (its 64-bit words alias a std::size_t).
          const std::size_t total = count;
          const std::size_t mask = last;
          slot* const base = slots.data();
          for (std::size_t k = first; k < end; ++k) {
            if (ahead != 0 && k + ahead < total)
              runtime::prefetch_for_write(&base[home_of_hash(hash_of(get(k + ahead).key)) & mask]);
            apply_update(get(k));
          }
        });
    publish_spill();
  }
  // Tells other images' find() whether to ask this owner about keys beside its table.
  void publish_spill() { spilled_.local()[0] = spill_.size(); }

  // Marks commit()'s rebuild: async updates arriving meanwhile wait, and are applied after it.
  class rebuilding_scope {
   public:
    explicit rebuilding_scope(unordered_map& m) : map_(m) { map_.rebuilding_ = true; }
    rebuilding_scope(const rebuilding_scope&) = delete;
    rebuilding_scope& operator=(const rebuilding_scope&) = delete;
    ~rebuilding_scope() { end(); }
    void end() const {
      if (!map_.rebuilding_)
        return;
      map_.rebuilding_ = false;
      std::vector<update> waiting;
      waiting.swap(map_.arrived_);
      map_.apply_updates(waiting.size(), [&](std::size_t k) { return waiting[k]; });
    }

   private:
    unordered_map& map_;
  };

  // The handler of a batch, at its owner.
  static void on_batch(std::size_t, std::span<const std::byte> payload) {
    const std::byte* at = payload.data();
    unordered_map& m = **detail::wire::codec<dist_object<unordered_map*>>::read(at);
    std::uint64_t count = 0;
    std::memcpy(&count, at, sizeof count);
    at += sizeof count;
    m.apply_updates(static_cast<std::size_t>(count), [at](std::size_t k) {
      update u;
      std::memcpy(static_cast<void*>(&u), at + k * sizeof(update), sizeof u);
      return u;
    });
  }

  // This image's async updates not yet sent, combined per owner; a sync point sends them all
  // (runtime::deferred_writes: the stream says holding() at each update), and so does the map's
  // destruction.
  struct update_stream final : runtime::deferred_writes {
    update_stream(const dist_object<unordered_map*>& map, std::size_t images)
        : self(map), held(images, batch_for_engine()) {}
    update_stream(const update_stream&) = delete;
    update_stream& operator=(const update_stream&) = delete;
    ~update_stream() {
      try {
        issue();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "pgas: sending a pgas::unordered_map's last async updates: %s\n",
                     e.what());
      }
    }
    void issue() override {
      for (std::size_t d = 0; d < held.destinations(); ++d) send(d);
    }
    // Every update held for image d of the team: one message, or applied here when d is this
    // image (its own keys are combined and applied in batches too, so their misses overlap).
    void send(std::size_t d) {
      const std::span<const update> batch = held.held(d);
      if (batch.empty())
        return;
      if (d == self.team().rank()) {
        (*self)->apply_updates(batch.size(), [batch](std::size_t k) { return batch[k]; });
        held.clear(d);
        return;
      }
      const std::uint64_t handler = runtime::messages::name_of<&on_batch>();
      const std::uint64_t count = batch.size();
      const std::size_t bytes = sizeof(std::uint64_t) + sizeof count + batch.size_bytes();
      std::byte* at = runtime::messages::reserve(self.team().world_image(d), handler, bytes).data();
      detail::wire::codec<dist_object<unordered_map*>>::write(at, self);
      std::memcpy(at, &count, sizeof count);
      std::memcpy(at + sizeof count, batch.data(), batch.size_bytes());
      held.clear(d);
    }
    // As many distinct keys as one engine message carries, and at most 4096 (a batch that
    // waits for its sync point costs memory per owner).
    static std::size_t batch_for_engine() {
      const std::size_t room = runtime::messages::max_message_bytes();
      const std::size_t header = 2 * sizeof(std::uint64_t);
      const std::size_t fits = room > header ? (room - header) / sizeof(update) : 1;
      return std::clamp<std::size_t>(fits, 1, 4096);
    }
    const dist_object<unordered_map*>& self;
    detail::keyed_combiner<K, V> held;
  };
  // What the async stream needs, made once per map: the name every image knows the map by,
  // then the stream (destroyed first, so its last batches are sent before the name's
  // destruction waits until everything sent to the map has been applied).
  struct async_part {
    async_part(unordered_map* map, const pgas::team& t) : self(t, map), stream(self, t.size()) {}
    dist_object<unordered_map*> self;
    update_stream stream;
  };
  // After a move: the map's name and stream lead to its new address.
  void rebind() noexcept {
    if (async_)
      *async_->self = this;
  }

  pgas::vector<slot> table_;
  std::vector<std::vector<op>> outbox_;
  pgas::array<std::uint64_t> spilled_;  // per image: how many keys it keeps beside its table
  std::unordered_map<K, V, beside_hash, beside_equal> spill_;
  std::vector<update> arrived_;  // async updates that came during commit()'s rebuild
  std::size_t count_ = 0;        // keys in this image's table
  std::size_t erased_ = 0;       // tombstones in this image's table
  std::size_t total_ = 0;
  bool rebuilding_ = false;
  detail::live_handle live_;  // use after a move throws instead of indexing an empty outbox
  detail::divisor images_;    // the team's size
  std::unique_ptr<async_part> async_;  // last: destroyed first, while the table still exists
  static constexpr const char* name = "pgas::unordered_map";
};

}  // namespace pgas
