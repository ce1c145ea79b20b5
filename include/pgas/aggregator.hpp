#pragma once
// pgas::aggregator: a stream of small updates `c[i] op= v` from one image, held in a buffer of
// bounded size and sent to the owners as one batch each when it fills. No other image takes
// part.

#include <pgas/detail/element_race_hooks.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/transfers.hpp>

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
/// its share at once, so memory and look-ahead stay bounded: capacity 1024 is HPCC
/// RandomAccess's look-ahead rule. How the share travels is the one decision of
/// detail::accumulate_scattered (locality.hpp): where the message engine runs it goes as one
/// message the owner applies with plain stores (on one node too, for element types the
/// processor updates atomically, until any image updates the container in place: from then on
/// this image applies it, one processor atomic each); otherwise as one MPI_Accumulate per
/// owner, duplicates combined first. Not collective: images add
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

  /// Local. Throws usage_error for capacity 0 or one the machine's memory cannot hold, for an op
  /// that does not combine (no_op), or for a bitwise or logical op on floating point.
  aggregator(C& c, reduce_op op, std::size_t capacity)
      : held_{std::make_unique<held>(c.finder(), op, checked_capacity(op, capacity))} {}
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
  void add(
      std::size_t i,
      const value_type& v,
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    held& h = live("add");
    // Checked here, not at sending, so the caller learns which add was wrong.
    if (h.finder.expired())
      throw usage_error("pgas::aggregator::add: its container no longer exists");
    if (const std::size_t size = h.finder.size_while_alive(); i >= size)
      runtime::throw_out_of_range("aggregator index", i, size);
    detail::note_element_access([&] { note_for_race_check(h, i, where); });
    if (h.indices.size() == h.capacity)
      h.issue();
    h.indices.push_back(i);
    h.values.push_back(v);
    h.holding();
  }
  /// Sends every held update (one accumulate per owner). Local; complete at the next sync point.
  void flush() { live("flush").issue(); }
  /// Updates held now. Local.
  [[nodiscard]] std::size_t held_updates() const { return live("held_updates").indices.size(); }
  /// Most updates held at once. Local.
  [[nodiscard]] std::size_t capacity() const { return live("capacity").capacity; }

 private:
  // Registered with the runtime at a fixed address, so sync points can send its updates.
  struct held final : runtime::deferred_writes {
    held(finder_type f, reduce_op o, std::size_t cap) : finder{std::move(f)}, op{o}, capacity{cap} {
      indices.reserve(cap);
      values.reserve(cap);
    }
    held(const held&) = delete;
    held& operator=(const held&) = delete;
    held(held&&) = delete;
    held& operator=(held&&) = delete;
    ~held() = default;

    void issue() override {
      // Updates are only added while the container exists, and its destruction sends them
      // first: a gone container leaves nothing to send, and a sync point must not throw here.
      if (finder.expired() || indices.empty())
        return;
      const auto elements = finder.lock("pgas::aggregator");
      // Taken out first: whatever happens while sending, no update is sent twice.
      std::vector<std::size_t> sending_indices;
      std::vector<value_type> sending_values;
      sending_indices.swap(indices);
      sending_values.swap(values);
      detail::accumulate_scattered(elements, sending_indices, sending_values, op, shares,
                                   detail::updates_done::by_next_sync_point);
      // The buffers' room goes back for the next batch.
      sending_indices.clear();
      sending_values.clear();
      indices.swap(sending_indices);
      values.swap(sending_values);
    }

    std::vector<detail::owner_share<value_type>> shares;  // room for accumulate_scattered

    finder_type finder;
    reduce_op op;
    std::size_t capacity;
    std::vector<std::size_t> indices;  // held updates: element indices and values
    std::vector<value_type> values;
  };

  // Refuses, before anything is registered or reserved, what cannot aggregate.
  static std::size_t checked_capacity(reduce_op op, std::size_t capacity) {
    if (capacity == 0)
      throw usage_error("pgas::aggregator: capacity 0 can hold no update");
    if (op == reduce_op::no_op)
      throw usage_error("pgas::aggregator: no_op changes nothing");
    runtime::require_op_defined<value_type>(op);
    // It holds an index and a value per update, twice while it sends.
    runtime::require_memory("pgas::aggregator capacity", capacity,
                            2 * (sizeof(std::size_t) + sizeof(value_type)));
    return capacity;
  }
  held& live(const char* what) const {
    if (!held_)
      throw usage_error(std::string("pgas::aggregator::") + what + " on a moved-from aggregator");
    return *held_;
  }
  [[gnu::cold, gnu::noinline]] static void note_for_race_check(
      const held& h, std::size_t i, const runtime::watchdog::source_location& where) {
    detail::note_access(h.finder.lock("pgas::aggregator::add").element(i), 1,
                        detail::race_access::update, &where);
  }
  void flush_quietly() noexcept {
    if (!held_)
      return;
    try {
      held_->issue();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: an aggregator could not send its updates: %s\n", e.what());
    }
  }
  std::unique_ptr<held> held_;
};

}  // namespace pgas
