#pragma once
// pgas::aggregator: a stream of small updates `c[i] op= v` from one image, held in a buffer of
// bounded size and sent as one accumulate per owner when it fills. No other image takes part.

#include <pgas/detail/owner_batches.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/runs.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas {

/// Makes `c[i] = c[i] op v` happen for every `add(i, v)`, atomically with respect to other
/// accumulates. Holds at most `capacity` updates on this image; when full it sends each owner
/// its share as one MPI_Accumulate (duplicates combined first), so memory and look-ahead stay
/// bounded: capacity 1024 is HPCC RandomAccess's look-ahead rule. Not collective: images add
/// different numbers of updates and flush at different times. Every update added before a sync
/// point (sync_all, sync_images, sync_memory) is complete after it: a sync point sends every
/// live aggregator's updates first, and so does the destruction of any container. The
/// destructor sends what is left. Works on array, array_view and vector; move-only.
template <class C>
class aggregator {
  using finder_type = typename C::element_finder;

 public:
  using value_type = typename C::value_type;
  static_assert(runtime::accumulable<value_type>,
                "an aggregator combines with MPI accumulates: the element type needs an MPI "
                "predefined datatype");

  /// Local. Throws usage_error for capacity 0, for an op that does not combine (no_op), or for a
  /// bitwise op on a type that is not an integer.
  aggregator(C& c, reduce_op op, std::size_t capacity)
      : held_{std::make_unique<held>(c.finder(), c.size(), op, capacity)} {
    if (capacity == 0) throw usage_error("pgas::aggregator: capacity 0 can hold no update");
    if (op == reduce_op::no_op) throw usage_error("pgas::aggregator: no_op changes nothing");
    if (!std::is_integral_v<value_type> &&
        (op == reduce_op::band || op == reduce_op::bor || op == reduce_op::bxor)) {
      throw usage_error("pgas::aggregator: bitwise ops need an integer element type");
    }
  }
  aggregator(aggregator&&) noexcept = default;
  aggregator& operator=(aggregator&& other) noexcept {
    if (this != &other) {
      flush_quietly();
      held_ = std::move(other.held_);
    }
    return *this;
  }
  aggregator(const aggregator&) = delete;
  aggregator& operator=(const aggregator&) = delete;
  /// Sends what is left. Reports a failure, never throws.
  ~aggregator() { flush_quietly(); }

  /// Makes c[i] op= v happen; sends the buffer first when it is full. Local. Throws
  /// out_of_range for i past the container's end, usage_error if the container is gone or this
  /// aggregator was moved from; nothing already added is lost either way.
  void add(std::size_t i, const value_type& v) {
    held& h = live("add");
    // Checked here, not at sending, so the caller learns which add was wrong.
    if (h.finder.expired()) throw usage_error("pgas::aggregator::add: its container no longer exists");
    if (i >= h.size) runtime::throw_out_of_range("aggregator index", i, h.size);
    if (h.updates.size() == h.capacity) h.issue();
    h.updates.push_back({i, v});
  }
  /// Sends every held update (one accumulate per owner). Local; complete at the next sync point.
  void flush() { live("flush").issue(); }
  /// Updates held now. Local.
  [[nodiscard]] std::size_t held_updates() const { return live("held_updates").updates.size(); }
  /// Most updates held at once. Local.
  [[nodiscard]] std::size_t capacity() const { return live("capacity").capacity; }

 private:
  struct update {
    std::size_t index;
    value_type value;
  };
  // Registered with the runtime at a fixed address, so sync points can send its updates.
  struct held final : runtime::deferred_writes {
    held(finder_type f, std::size_t n, reduce_op o, std::size_t cap)
        : finder{std::move(f)}, size{n}, op{o}, capacity{cap} {
      updates.reserve(cap);
    }
    held(const held&) = delete;
    held& operator=(const held&) = delete;
    held(held&&) = delete;
    held& operator=(held&&) = delete;
    ~held() = default;

    void issue() override {
      // Updates are only added while the container exists, and its destruction sends them
      // first: a gone container leaves nothing to send, and a sync point must not throw here.
      if (finder.expired()) return;
      const auto elements = finder.lock("pgas::aggregator");
      size = elements.size();  // a vector's size changes only in collective calls, which sync
      if (updates.empty()) return;
      combine_duplicates();
      // Every owner's updates, this image's and same-node peers' included, go as accumulates:
      // only MPI's accumulates are atomic with respect to other images' accumulates.
      values.clear();
      for (const update& u : updates) values.push_back(u.value);
      const auto remote = [this](detail::owner_batch<value_type>& b) {
        runtime::accumulate_runs(*b.first.window(), values.data(), b.origin,
                                 static_cast<int>(b.first.image()), b.first.displacement(), b.target, op);
      };
      const auto never_local = [](std::size_t, const global_ptr<value_type>&, std::size_t, std::size_t) {};
      detail::owner_batches<value_type, decltype(never_local), decltype(remote)> grouped(never_local, remote);
      for (std::size_t k = 0; k < updates.size(); ++k) {
        grouped.add(k, elements.element(updates[k].index).without_local_address(), 1);
      }
      updates.clear();  // sent (or failed): either way not sent twice
      grouped.finish();
    }

    // Updates of one index become one: an accumulate's target may not name an element twice.
    // Open addressing over the buffer, so combining costs no sort.
    void combine_duplicates() {
      std::size_t slots = 16;
      while (slots < 2 * updates.size()) slots *= 2;
      table.assign(slots, empty);
      std::size_t kept = 0;
      for (std::size_t k = 0; k < updates.size(); ++k) {
        const std::size_t index = updates[k].index;
        std::size_t s = (index * 0x9e3779b97f4a7c15ULL) & (slots - 1);
        while (table[s] != empty && updates[table[s]].index != index) s = (s + 1) & (slots - 1);
        if (table[s] == empty) {
          table[s] = kept;
          updates[kept++] = updates[k];
        } else {
          value_type& into = updates[table[s]].value;
          into = runtime::combine(op, into, updates[k].value);
        }
      }
      updates.resize(kept);
    }

    static constexpr std::size_t empty = SIZE_MAX;
    finder_type finder;
    std::size_t size;  // the container's, as of the last sending
    reduce_op op;
    std::size_t capacity;
    std::vector<update> updates;
    std::vector<value_type> values;
    std::vector<std::size_t> table;
  };

  held& live(const char* what) const {
    if (!held_) throw usage_error(std::string("pgas::aggregator::") + what + " on a moved-from aggregator");
    return *held_;
  }
  void flush_quietly() noexcept {
    if (!held_) return;
    try {
      held_->issue();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: an aggregator could not send its updates: %s\n", e.what());
    }
  }
  std::unique_ptr<held> held_;
};

}  // namespace pgas
