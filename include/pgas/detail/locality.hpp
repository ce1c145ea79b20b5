#pragma once
// The one place that decides where an element lives and how to reach it: a load or store (this
// process's own memory, or a same-node peer's mapped here), a request its owner answers or a
// batch its owner applies (no shared memory), an MPI one-sided operation, or the processor's
// atomics on a window every image shares. Everything above — containers, transfers, patches,
// aggregators, algorithms — calls these functions and never asks a pointer where it lives; the
// files they use (owner_batches, to_owners, in_place, table_updates, started_transfers, walks)
// carry out a choice made here. The rules the paths share:
// - a store is complete at the next sync point, as a put is;
// - a load of a peer's memory first completes this image's earlier writes to that peer and is
//   refused inside a fence or neighbourhood phase, as a get is (global_ptr::local_for_reading);
// - accumulates and atomics go through the runtime or the in-place combiner, even to this
//   image's own memory, which keeps one rule per window: MPI accumulates, or, on a window every
//   image shares, the processor's atomics for every image (runtime/in_place_updates.hpp).

#include <pgas/detail/combine_duplicates.hpp>
#include <pgas/detail/element_race_hooks.hpp>
#include <pgas/detail/in_place.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/owner_batches.hpp>
#include <pgas/detail/started_transfers.hpp>
#include <pgas/detail/table_updates.hpp>
#include <pgas/detail/to_owners.hpp>
#include <pgas/detail/walks.hpp>
#include <pgas/future.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/runtime/block_copy.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/owner_reads.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/runs.hpp>
#include <pgas/runtime/signal.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/sync.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace pgas::detail {

template <class T>
[[nodiscard]] int rank_of(const global_ptr<T>& p) noexcept {
  return static_cast<int>(p.image());
}

/// Counts (PGAS_STATS) a plain load or store of `count` elements at p when they are a
/// same-node peer's, not this image's own.
template <class T>
void count_if_peer(const global_ptr<T>& p,
                   transfer_count rma_stats::*which,
                   std::size_t count) noexcept {
  if (!p.owned_here())
    runtime::statistics::count(which, count * sizeof(T));
}

/// Copies n consecutive elements between this process's memory and a same-node peer's mapped
/// here: large runs of plain values in blocks that fit a core's cache (runtime/block_copy.hpp).
template <class T, class U>
void copy_mapped(const T* from, std::size_t n, U* to) {
  if constexpr (std::is_trivially_copyable_v<U> && std::is_same_v<std::remove_cv_t<T>, U>)
    runtime::copy_bytes(to, from, n * sizeof(U));
  else
    std::copy_n(from, n, to);
}

using race_access = runtime::race_check::access;
using code_site = runtime::watchdog::source_location;

/// Tells the race checker (PGAS_CHECK=1) of an access of `count` elements from p, `step` apart
/// in the owner's memory, made at `where` in the user's program (null: the innermost public
/// call). Every path below says what it touches here, whichever way it travels. Off: one load
/// and a branch.
template <class T>
// By value: the hot path's pointer stays in registers, its fields read only when this is called.
[[gnu::cold, gnu::noinline]] void note_access_slowly(global_ptr<T> p,
                                                     std::size_t count,
                                                     race_access kind,
                                                     const code_site* where,
                                                     std::size_t step) {
  const runtime::window& w = *p.window(internal);
  if (step == 1) {
    runtime::race_check::note(w, rank_of(p), p.displacement(internal), count * sizeof(T), kind,
                              where);
    return;
  }
  for (std::size_t j = 0; j < count; ++j) {
    runtime::race_check::note(
        w, rank_of(p),
        p.displacement(internal) + static_cast<MPI_Aint>(j * step) * p.step(internal), sizeof(T),
        kind, where);
  }
}
template <class T>
void note_access(const global_ptr<T>& p,
                 std::size_t count,
                 race_access kind,
                 const code_site* where = nullptr,
                 std::size_t step = 1) {
  // Out of line: the hot paths keep their size and shape when the checker is off.
  if (runtime::race_check::enabled()) [[unlikely]]
    note_access_slowly(p, count, kind, where, step);
}

/// note_access for one element on the element paths: compiled out under PGAS_RACE_CHECK=0
/// (element_race_hooks.hpp).
template <class T>
void note_element(const global_ptr<T>& p, race_access kind, const code_site* where) {
  note_element_access([&] { note_access_slowly(p, 1, kind, where, 1); });
}

/// Tells the race checker of an access of kind `kind` to each listed element of c (a container
/// or its locked_elements). Local.
template <class C>
[[gnu::cold, gnu::noinline]] void note_listed_slowly(C& c,
                                                     std::span<const std::size_t> indices,
                                                     race_access kind) {
  for (const std::size_t i : indices) note_access(c.element(i), 1, kind);
}
template <class C>
void note_listed(C& c, std::span<const std::size_t> indices, race_access kind) {
  if (runtime::race_check::enabled()) [[unlikely]]
    note_listed_slowly(c, indices, kind);
}

/// Reads *p. Blocks until the value has arrived. `what` names the read in a usage_error.
template <class T>
[[nodiscard]] std::remove_const_t<T> load(const global_ptr<T>& p,
                                          const char* what = "a blocking read of an element",
                                          const code_site* where = nullptr) {
  note_element(p, race_access::read, where);
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_loads, 1);
    return *p.local_for_reading(what);
  }
  std::remove_const_t<T> v;
  runtime::get(*p.window(internal), std::span{&v, 1}, rank_of(p), p.displacement(internal));
  return v;
}

/// Reads out.size() consecutive elements of p's owner, starting at p, into out. Blocks.
template <class T>
void load_n(const global_ptr<T>& p,
            std::span<std::remove_const_t<T>> out,
            const char* what = "a blocking read") {
  if (out.empty())
    return;
  note_access(p, out.size(), race_access::read);
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_loads, out.size());
    copy_mapped(p.local_for_reading(what), out.size(), out.data());
  } else {
    runtime::get(*p.window(internal), out, rank_of(p), p.displacement(internal));
  }
}

/// out[k] = the element indices[k] (< e.size(), checked already) of the container whose
/// locked_elements are `e`, by plain loads, when every image's part is mapped here (one node):
/// one pass, nothing grouped by owner. Completes this image's earlier writes to each image first
/// and is refused inside a fence or neighbourhood phase, as load() is. Returns false, reading
/// nothing, when some part is reached through MPI only.
template <class Elements, class T>
[[nodiscard]] bool load_listed(const Elements& e,
                               std::span<const std::size_t> indices,
                               std::span<T> out,
                               const char* what) {
  const auto& parts = e.mapped();
  if (parts.empty())
    return false;
  for (std::size_t img = 0; img < parts.size(); ++img)
    e.window(internal).loading_from(what, static_cast<int>(img));
  note_listed(e, indices, race_access::read);
  const std::size_t me = e.me();
  std::size_t from_peers = 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const auto place = e.place_of(indices[k]);
    from_peers += place.image != me ? 1U : 0U;
    out[k] = parts[place.image][place.offset];
  }
  runtime::statistics::count(&rma_stats::peer_loads, from_peers * sizeof(T));
  return true;
}

/// Writes v to *p. Returns at once (the value is copied); complete at the next sync point.
template <class T>
requires(!std::is_const_v<T>) void store(const global_ptr<T>& p,
                                         const T& v,
                                         const code_site* where = nullptr) {
  note_element(p, race_access::write, where);
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_stores, 1);
    *p.local() = v;
  } else {
    runtime::put_value(*p.window(internal), v, rank_of(p), p.displacement(internal));
  }
}

/// The row of `length` signal counters that starts at `first` (runtime/signal.hpp).
template <class Counter>
runtime::signal_row signal_row_at(const global_ptr<Counter>& first, std::size_t length) {
  return {first.displacement(internal), first.step(internal), length};
}

/// note_access of a row of `length` signal counters, its global_ptr built by `row_address()`
/// only while the race checker is on.
template <class RowAddress>
void note_row_update(RowAddress row_address, std::size_t length) {
  if (runtime::race_check::enabled()) [[unlikely]]
    note_access_slowly(row_address(), length, race_access::update, nullptr, 1);
}

/// Tells image `image` of `w`, whose row of signal counters is `row`, that this image, signaller
/// `signaller`, has now signalled `total` times, once every write this image made before is
/// complete and visible (an event post): a store of its own counter where every image's memory
/// is mapped, a message to the owner without a round trip where the owner applies updates.
/// `row_address()` gives the row's global_ptr, asked for only while the race checker is on: the
/// caller keeps `w` and `row`, found once, and builds no pointer per signal. Local.
template <class RowAddress>
void signal_after_writes(runtime::window& w,
                         std::size_t image,
                         const runtime::signal_row& row,
                         std::size_t signaller,
                         std::int64_t total,
                         RowAddress row_address) {
  note_row_update(row_address, row.length);
  runtime::signal_after_writes(w, static_cast<int>(image), row, signaller, total);
}

/// The signals this image's row `row` of `w` (found as signal_after_writes says) has received
/// in all; the signallers' writes before them are visible to this image's loads once the caller
/// has also synced its window memory. Local.
template <class RowAddress>
[[nodiscard]] std::int64_t signals_received(
    runtime::window& w,
    const runtime::signal_row& row,
    RowAddress row_address,
    runtime::arrived_signals arrived = runtime::arrived_signals::handled_first) {
  note_row_update(row_address, row.length);
  return runtime::signals_received(w, row, arrived);
}

/// Writes `in` to consecutive elements of p's owner, starting at p. Returns once `in` may be
/// reused; complete at the next sync point.
template <class T>
requires(!std::is_const_v<T>) void store_n(const global_ptr<T>& p, std::span<const T> in) {
  if (in.empty())
    return;
  note_access(p, in.size(), race_access::write);
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_stores, in.size());
    copy_mapped(in.data(), in.size(), p.local());
  } else {
    runtime::put(*p.window(internal), in, rank_of(p), p.displacement(internal));
  }
}

/// *p = *p op v, atomically with respect to other accumulates. Returns at once; complete at the
/// next sync point.
template <class T>
requires(!std::is_const_v<T>) void accumulate(const global_ptr<T>& p,
                                              const T& v,
                                              runtime::reduce_op op,
                                              const code_site* where = nullptr) {
  note_element(p, race_access::update, where);
  runtime::accumulate_value(*p.window(internal), v, rank_of(p), p.displacement(internal), op);
}

/// Atomically *p = *p op v; returns the previous value. Blocks. With no_op it is an atomic read.
template <class T>
[[nodiscard]] std::remove_const_t<T> fetch_and_op(const global_ptr<T>& p,
                                                  const std::remove_const_t<T>& v,
                                                  runtime::reduce_op op,
                                                  const code_site* where = nullptr) {
  note_element(p, race_access::update, where);
  return runtime::fetch_and_op(*p.window(internal), v, rank_of(p), p.displacement(internal), op);
}

/// Atomically replaces *p by `desired` if it equals `expected`; returns the previous value.
template <class T>
requires(!std::is_const_v<T>) [[nodiscard]] T compare_and_swap(const global_ptr<T>& p,
                                                               const T& desired,
                                                               const T& expected,
                                                               const code_site* where = nullptr) {
  note_element(p, race_access::update, where);
  return runtime::compare_and_swap(*p.window(internal), desired, expected, rank_of(p),
                                   p.displacement(internal));
}

/// Starts reading *p; the future holds the value once it has arrived.
template <class T>
[[nodiscard]] future<std::remove_const_t<T>> async_load(const global_ptr<T>& p,
                                                        const code_site* where = nullptr) {
  using V = std::remove_const_t<T>;
  note_element(p, race_access::read, where);
  // Read here or not, the future belongs to the container: it throws once that is gone.
  auto source = std::make_unique<request_source<V>>();
  source->life = p.lifetime(internal);
  if (p.is_local()) {
    source->value = *p.local_for_reading("async_get");
  } else {
    source->request = runtime::rget(*p.window(internal), std::span{&source->value, 1}, rank_of(p),
                                    p.displacement(internal));
  }
  return future<V>{std::move(source)};
}

// An atomic started with MPI_Rget_accumulate: the operand and the result stay here, at fixed
// addresses, until the request completes.
template <class T>
struct atomic_request_source final : future_source<T> {
  bool ready() override {
    runtime::require_alive(life, "a future");
    return request.test();
  }
  T take() override {
    runtime::require_alive(life, "a future");
    request.wait();
    return result;
  }
  T operand{};
  T result{};
  runtime::request request;
  runtime::lifetime_token life;
};

// A compare-and-swap MPI has taken (it has no request form): done once the window completes
// this process's operations to the target locally. ready() does that, which takes as long as
// the one round trip.
template <class T>
struct compare_and_swap_source final : future_source<T> {
  bool ready() override {
    complete();
    return true;
  }
  T take() override {
    complete();
    return result;
  }
  void complete() {
    runtime::require_alive(life, "a future");
    if (pending)
      window->flush_local(target);
    pending = false;
  }
  runtime::lifetime_token life;
  T desired{};
  T expected{};
  T result{};
  runtime::window* window = nullptr;
  int target = 0;
  bool pending = false;
};

/// Starts *p = *p op v atomically; the future holds the previous value.
template <class T>
requires(!std::is_const_v<T>) [[nodiscard]] future<T> async_fetch_and_op(
    const global_ptr<T>& p, const T& v, runtime::reduce_op op, const code_site* where = nullptr) {
  note_element(p, race_access::update, where);
  auto source = std::make_unique<atomic_request_source<T>>();
  source->life = p.lifetime(internal);
  source->operand = v;
  source->request = runtime::rfetch_and_op(*p.window(internal), &source->operand, &source->result,
                                           rank_of(p), p.displacement(internal), op);
  return future<T>{std::move(source)};
}

/// Starts replacing *p by `desired` if it holds `expected`; the future holds the previous value.
template <class T>
requires(!std::is_const_v<T>) [[nodiscard]] future<T> async_compare_and_swap(
    const global_ptr<T>& p, const T& desired, const T& expected, const code_site* where = nullptr) {
  note_element(p, race_access::update, where);
  auto source = std::make_unique<compare_and_swap_source<T>>();
  source->life = p.lifetime(internal);
  source->desired = desired;
  source->expected = expected;
  source->window = p.window(internal);
  source->target = rank_of(p);
  source->pending =
      !runtime::start_compare_and_swap(*p.window(internal), &source->desired, &source->expected,
                                       &source->result, source->target, p.displacement(internal));
  return future<T>{std::move(source)};
}

/// Starts writing v to *p; the future is ready once v need not be kept (it is staged at once
/// anyway). Complete at the next sync point.
template <class T>
requires(!std::is_const_v<T>)
    [[nodiscard]] future<void> async_store(const global_ptr<T>& p,
                                           const T& v,
                                           const code_site* where = nullptr) {
  note_element(p, race_access::write, where);
  auto source = std::make_unique<request_source<std::monostate>>();
  source->life = p.lifetime(internal);
  if (p.is_local()) {
    *p.local() = v;
  } else {
    auto* staged = static_cast<const T*>(p.window(internal)->stage(&v, sizeof(v)));
    source->request = runtime::rput(*p.window(internal), std::span{staged, 1}, rank_of(p),
                                    p.displacement(internal));
  }
  return future<void>{std::move(source)};
}

// ---- Runs, lists and batches ----

// ---- Many updates of one container ----

/// True when updates of T to `elements` (a container or its locked_elements) are applied in
/// place with the processor's atomics: every image shares the window and T is one the processor
/// updates atomically. Then this image's earlier MPI writes there are complete. The same answer
/// on every image (a property of the window). Local.
template <class T, class Elements>
[[nodiscard]] bool begin_updates_in_place(Elements& elements) {
  if constexpr (runtime::processor_atomic<T>) {
    return window_of(elements).begin_in_place_updates();
  } else {
    return false;
  }
}

// Strided runs at least this long go as one vector-type get each, not grouped by owner.
inline constexpr std::size_t long_strided_run = 64;

// Reads the elements `walk` names into `out`. Runs in this process's memory are copied at once;
// each remote owner gets one get per batch. With `started`, the gets are only started and
// noted there; without, they complete before this returns.
template <class T, class Walk>
void read_elements(std::span<T> out, Walk walk, started_transfers* started) {
  using P = global_ptr<const T>;
  const auto local = [&out](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    const T* from = p.local_for_reading("a blocking read");
    count_if_peer(p, &rma_stats::peer_loads, len);
    T* to = out.data() + at;
    if (step == 1) {
      copy_mapped(from, len, to);
    } else {
      for (std::size_t j = 0; j < len; ++j) to[j] = from[j * step];
    }
  };
  runtime::owner_reads::pending answers;  // of a blocking read
  const auto remote = [&out, started, &answers](owner_batch<const T>& b) {
    runtime::window& w = *b.first.window(internal);
    const int owner = rank_of(b.first);
    if (runtime::owner_reads::answered_by_owner(w, b.target)) {
      runtime::owner_reads::get(w, out.data(), b.origin, owner, b.first.displacement(internal),
                                b.target, started != nullptr ? started->reads : answers);
    } else if (started != nullptr) {
      (void)runtime::start_get_runs(w, out.data(), b.origin, owner, b.first.displacement(internal),
                                    b.target);
      started->add(w, owner, b.first.lifetime(internal));
    } else {
      runtime::get_runs(w, out.data(), b.origin, owner, b.first.displacement(internal), b.target);
    }
  };
  owner_batches<const T, decltype(remote)> grouped(remote);
  walk([&](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    note_access(p, len, race_access::read, nullptr, step);
    if (p.is_local()) {
      local(at, p, len, step);
    } else if (started == nullptr && step > 1 && len >= long_strided_run) {
      // A long strided run through MPI: one vector datatype at once, not a run per element.
      runtime::get_strided(*p.window(internal), out.data() + at, len, step, rank_of(p),
                           p.displacement(internal));
    } else {
      grouped.add(at, p, len, step);
    }
  });
  grouped.finish();
  answers.wait();
}

// Writes `in` to the elements `walk` names, which must be distinct. Runs in this process's
// memory are stored at once; each remote owner gets one put per batch (only started, and noted
// in `started`, when given).
template <class T, class Walk>
void write_elements(std::span<const T> in, Walk walk, started_transfers* started) {
  using P = global_ptr<T>;
  const auto local = [&in](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    const T* from = in.data() + at;
    T* to = p.local();
    count_if_peer(p, &rma_stats::peer_stores, len);
    if (step == 1) {
      copy_mapped(from, len, to);
    } else {
      for (std::size_t j = 0; j < len; ++j) to[j * step] = from[j];
    }
  };
  const auto remote = [&in, started](owner_batch<T>& b) {
    runtime::window& w = *b.first.window(internal);
    const int owner = rank_of(b.first);
    if (started != nullptr) {
      w.require_passive("an asynchronous put");
      (void)runtime::start_put_runs(w, in.data(), b.origin, owner, b.first.displacement(internal),
                                    b.target);
      started->add(w, owner, b.first.lifetime(internal));
    } else {
      runtime::put_runs(w, in.data(), b.origin, owner, b.first.displacement(internal), b.target);
    }
  };
  owner_batches<T, decltype(remote)> grouped(remote);
  walk([&](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    note_access(p, len, race_access::write, nullptr, step);
    if (p.is_local()) {
      local(at, p, len, step);
    } else {
      grouped.add(at, p, len, step);
    }
  });
  grouped.finish();
}

// Combines `in` into the elements `walk` names (distinct) with op: one accumulate per owner,
// this image and same-node peers included, so the runtime applies one rule to all of them (MPI
// accumulates, or in place where every image shares the window: runtime/in_place_updates.hpp).
// With `started`, accumulates MPI carries to other images are only started and noted there.
template <class T, class Walk>
void accumulate_elements(std::span<const T> in,
                         Walk walk,
                         runtime::reduce_op op,
                         started_transfers* started = nullptr) {
  using P = global_ptr<T>;
  const auto remote = [&in, op, started](owner_batch<T>& b) {
    runtime::window& w = *b.first.window(internal);
    const int owner = rank_of(b.first);
    if (started == nullptr) {
      runtime::accumulate_runs(w, in.data(), b.origin, owner, b.first.displacement(internal),
                               b.target, op);
      return;
    }
    w.require_passive("an asynchronous accumulate");
    const auto a = runtime::start_accumulate_runs(w, in.data(), b.origin, owner,
                                                  b.first.displacement(internal), b.target, op);
    if (!a)
      return;  // applied in place: done
    // Into this process's own memory it completes at once (its loads must see it), as every
    // accumulate does; elsewhere the future's flush completes it.
    if (a->to_self) {
      w.flush(owner);
    } else {
      started->add(w, owner, b.first.lifetime(internal));
    }
  };
  owner_batches<T, decltype(remote)> grouped(remote);
  walk([&grouped](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    note_access(p, len, race_access::update, nullptr, step);
    grouped.add(at, p.without_local_address(internal), len, step);
  });
  grouped.finish();
}

/// What a batch of updates promises this image about its own later accesses to those elements
/// before the next sync point.
enum class updates_done {
  /// Applied before any later write or read of this image's (scatter_accumulate, histograms).
  before_later_accesses,
  /// Only complete at the next sync point (an aggregator's flush): free to wait at the owners.
  by_next_sync_point,
};

// c[indices[u]] op= values[u] for every u (indices checked already): the one place that chooses
// how a batch of updates travels. Where the owners apply updates (no shared memory), each owner
// gets one batch (to_owners.hpp). On a window every image shares (one node), updates that need
// only be complete by the next sync point go to their owners too, which apply them with plain
// stores, until some image updates the window in place (owner_updates.hpp): each table then stays
// in its owner's cache (bench_gups --log_size 20, 2 images: 0.22-0.23 GUP/s against 0.19 with
// atomics from both images; at 2^23 the same within the noise). The others are one processor
// atomic per update straight into the owner's memory (in_place.hpp). Otherwise updates of one
// index are combined and each owner gets one MPI accumulate. `c`: a container or its
// locked_elements; the lists may be reordered. `shares`: room reused between calls. Local.
template <class T, class C>
void accumulate_scattered(C& c,
                          std::vector<std::size_t>& indices,
                          std::vector<T>& values,
                          runtime::reduce_op op,
                          std::vector<owner_share<T>>& shares,
                          updates_done done = updates_done::before_later_accesses) {
  if (indices.empty())
    return;
  const auto value = [&values](std::size_t u) { return values[u]; };
  bool to_owners = window_of(c).owner_applies_updates();
  if constexpr (runtime::processor_atomic<T>) {
    to_owners = to_owners || (done == updates_done::by_next_sync_point &&
                              window_of(c).owners_can_apply_batches());
    if (!to_owners && begin_updates_in_place<T>(c)) {
      combine_in_place<T>(c, indices, value, op);
      return;
    }
  }
  if constexpr (requires { c.place_of(0); }) {
    if (to_owners && send_to_owners<T>(c, indices, value, op, shares))
      return;
  } else if constexpr (requires { c.finder(); }) {
    if (to_owners &&
        send_to_owners<T>(c.finder().lock("a scattered accumulate"), indices, value, op, shares)) {
      return;
    }
  }
  combine_duplicates(indices, values, op);
  accumulate_elements(std::span<const T>(values),
                      list_walk(c, std::span<const std::size_t>(indices)), op);
}

// True when a list of indices is scattered: its runs of consecutive indices average at most 4
// elements and its steps are not all one stride (one MPI datatype describes those cheaply).
// Judged from the first 1024 indices: a pass over a long list would cost a tenth of the
// gather it decides.
inline bool scattered(std::span<const std::size_t> indices) {
  indices = indices.first(std::min<std::size_t>(indices.size(), 1024));
  std::size_t runs = 1;
  bool one_stride = true;
  for (std::size_t k = 1; k < indices.size(); ++k) {
    runs += indices[k] != indices[k - 1] + 1 ? 1U : 0U;
    one_stride = one_stride && indices[k] - indices[k - 1] == indices[1] - indices[0];
  }
  return !one_stride && indices.size() <= 4 * runs;
}

// Reads out[k] = c[indices[k]] (checked already), the one decision for lists: by plain loads
// where every part is mapped here (load_listed above); as requests the owners answer
// where owners apply updates (no shared memory) and the list is scattered, sent as each owner's
// message fills, in one pass; otherwise grouped per owner into MPI gets (read_elements). With
// `started`, only started (the future waits); without, complete on return.
template <class C, class T>
void read_listed(const C& c,
                 std::span<const std::size_t> indices,
                 std::span<T> out,
                 started_transfers* started,
                 const char* what) {
  if constexpr (requires { c.finder(); }) {
    const auto e = c.finder().lock(what);
    if (load_listed(e, indices, out, what))
      return;
    if (e.window(internal).owner_applies_updates() && scattered(indices)) {
      note_listed(e, indices, race_access::read);
      runtime::owner_reads::pending answers;  // of a blocking read
      runtime::owner_reads::pending& reads = started != nullptr ? started->reads : answers;
      // Offsets of 4 bytes where every part has fewer than 2^32 elements, as it has when the
      // whole container has.
      const auto read_pieces = [&]<class Offset>(Offset) {
        using requests_type = runtime::owner_reads::listed_reads<T, Offset>;
        for (std::size_t first = 0; first < indices.size();
             first += requests_type::most_positions) {
          const std::size_t n =
              std::min<std::size_t>(indices.size() - first, requests_type::most_positions);
          requests_type requests(e.window(internal), out.data() + first, reads, e.own_part());
          for (std::size_t k = 0; k < n; ++k) {
            const auto place = e.place_of(indices[first + k]);
            requests.add(place.image, place.offset, k, [&e, image = place.image] {
              return std::pair{e.part_displacement(image), e.part_size(image) * sizeof(T)};
            });
          }
          requests.finish();
        }
      };
      if (e.size() <= std::numeric_limits<std::uint32_t>::max()) {
        read_pieces(std::uint32_t{});
      } else {
        read_pieces(std::uint64_t{});
      }
      answers.wait();
      return;
    }
  }
  read_elements(out, list_walk(c, indices), started);
}

// Collective writes, every image its own lists: as puts where the runs are long, in one
// all-to-all that the owners store where they are short.

/// Runs shorter than this, on average over all images, go out in one all-to-all instead of
/// one put each: a put costs a fixed ~50 ns in shared memory and microseconds over a network,
/// an all-to-all a few nanoseconds per element once its latency is paid.
inline constexpr std::size_t shortest_run_worth_a_put = 16;

/// Stores values[k] at global index indices[k] of out, where indices increase. Collective;
/// complete at the next sync point. Consecutive indices that lie consecutively in one image's
/// memory form a run. When runs are long (block into block, shifted views) each remote run is
/// one bulk put; when they are short (cyclic into block gives runs of one element) every image
/// sends each owner its (index, value) pairs in one all-to-all and the owners store them.
/// Every image takes the same branch, decided by one allreduce. Runs in a peer's memory mapped
/// here (images on one node) are stored directly, after that allreduce.
template <class Out, class T>
void store_at(Out& out, std::span<const std::size_t> indices, std::span<const T> values) {
  // Calls f(first element, position in indices, length) for every run, in index order.
  const auto for_each_run = [&](auto f) {
    std::size_t k = 0;
    while (k < indices.size()) {
      const auto first = out.element(indices[k]);
      std::size_t len = 1;
      while (k + len < indices.size() && indices[k + len] == indices[k] + len &&
             out.element(indices[k + len]) == first + static_cast<std::ptrdiff_t>(len)) {
        ++len;
      }
      f(first, k, len);
      k += len;
    }
  };
  // First pass: runs this image owns are stored at once; others are counted, per owner. Runs in
  // a peer's memory mapped here (one node) are stored only after the allreduce below, as puts
  // are: by then every image has read its inputs, which may share memory with the output.
  std::vector<std::size_t> counts(num_images(), 0);
  long long surplus = 0;  // RMA elements minus shortest_run_worth_a_put per RMA run
  const auto store_run = [&](const global_ptr<T>& first, std::size_t at, std::size_t len) {
    detail::store_n(first, values.subspan(at, len));
  };
  for_each_run([&](const global_ptr<T>& first, std::size_t at, std::size_t len) {
    if (first.owned_here()) {
      store_run(first, at, len);
    } else if (!first.in_peer_memory()) {
      counts[first.image()] += len;
      surplus += static_cast<long long>(len) - static_cast<long long>(shortest_run_worth_a_put);
    }
  });
  const bool by_puts =
      runtime::allreduce(surplus, runtime::reduce_op::sum, runtime::current_comm()) >= 0;
  struct item {
    std::size_t index;
    T value;
  };
  // For the all-to-all: runs come in index order, not owner order, so each owner's items go to
  // its own stretch of `sends`.
  std::vector<std::size_t> next(num_images(), 0);
  for (std::size_t t = 1; t < next.size(); ++t) next[t] = next[t - 1] + counts[t - 1];
  std::vector<item> sends(by_puts ? 0 : next.back() + counts.back());
  for_each_run([&](const global_ptr<T>& first, std::size_t at, std::size_t len) {
    if (first.owned_here())
      return;  // stored in the first pass
    if (first.in_peer_memory() || by_puts) {
      store_run(first, at, len);
    } else {
      note_access(first, len, race_access::write);
      std::size_t& to = next[first.image()];
      for (std::size_t j = at; j < at + len; ++j) sends[to++] = item{indices[j], values[j]};
    }
  });
  if (by_puts)
    return;
  const auto arrived =
      runtime::exchange(std::span<const item>(sends), counts, runtime::current_comm());
  for (const item& it : arrived) {
    T* here = out.element(it.index).local();
    if (here == nullptr) {
      throw std::logic_error("pgas: an element was sent to an image that does not own it");
    }
    *here = it.value;
  }
}

/// Writes values into out where out's runs are long: each run (`position` in values, `first`
/// index in out, `length`) is cut where out's
/// runs end, and every owner receives its pieces as one put with a derived datatype on each side
/// (detail::write_elements; pieces in this process's memory are copied). Returns false, having
/// written nothing, when the pieces reached through MPI are short on average over all images
/// (fewer than shortest_run_worth_a_put elements): then store_at's all-to-all is cheaper. Every
/// image decides alike (one allreduce), after every image computed its results, which may
/// share memory with the output.
template <class Out, class T, class Runs>
bool put_runs_into(Out& out, const Runs& runs, std::span<const T> values) {
  const auto walk = [&out, &runs](auto add) {
    for (const auto& run : runs) {
      std::size_t i = run.first;
      std::size_t at = run.position;
      const std::size_t end = run.first + run.length;
      while (i < end) {
        const std::size_t stop = std::min<std::size_t>(out.run_end(i), end);
        add(at, out.element(i), stop - i, std::size_t{1});
        at += stop - i;
        i = stop;
      }
    }
  };
  long long surplus = 0;  // RMA elements minus shortest_run_worth_a_put per RMA piece
  walk([&surplus](std::size_t, const auto& first, std::size_t len, std::size_t) {
    if (!first.is_local())
      surplus += static_cast<long long>(len) - static_cast<long long>(shortest_run_worth_a_put);
  });
  if (runtime::allreduce(surplus, runtime::reduce_op::sum, runtime::current_comm()) < 0)
    return false;
  write_elements(values, walk, nullptr);
  return true;
}

// ---- Blocks of n-dimensional arrays ----

/// Tells the race checker (where it runs) of a read of this process's memory: the rows x cols
/// block of the 2-D array `a` whose corner is `corner`, inside one tile. Local.
template <class Array>
void note_block_read(const Array& a,
                     const std::array<std::size_t, 2>& corner,
                     std::size_t rows,
                     std::size_t cols) {
  if (runtime::race_check::enabled()) {
    for (std::size_t r = 0; r < rows; ++r)
      note_access(a.element({corner[0] + r, corner[1]}), cols, race_access::read);
  }
}

/// Calls f(first element, row stride) for the rows x cols block of the 2-D array `a` whose
/// corner is `corner`, all inside one tile: straight from the tile where it is in this
/// process's memory (a peer's read under a get's rules, refused inside a phase: `what`),
/// otherwise after reading it, one run per row grouped into one MPI get, into `buffer`
/// (row-major, stride cols; kept scratch, so a block of tens of megabytes is not mapped and
/// cleared afresh each call). Local.
template <class T, class Array, class F>
void with_tile_block(const Array& a,
                     const std::array<std::size_t, 2>& corner,
                     std::size_t rows,
                     std::size_t cols,
                     runtime::scratch_vector<T>& buffer,
                     const char* what,
                     F f) {
  const global_ptr<const T> first = a.element(corner);
  if (first.is_local()) {
    note_block_read(a, corner, rows, cols);
    const auto& tiles = a.tiles();
    f(first.local_for_reading(what), tiles.strides(tiles.owner_coordinates(corner))[0]);
    return;
  }
  buffer.resize(rows * cols);
  read_elements(
      std::span<T>(buffer),
      [&](auto add) {
        for (std::size_t r = 0; r < rows; ++r)
          add(r * cols, a.element({corner[0] + r, corner[1]}), cols, std::size_t{1});
      },
      nullptr);
  f(static_cast<const T*>(buffer.data()), cols);
}

// ---- Every image's updates of one container (collective) ----

// Combines bins[indices[u]] op= value(u): updates of one element combined here, then each
// owner gets one accumulate (what pgas::scatter_accumulate does, without checking and copying
// the lists again), so the cost grows with the updates, not with the table. Checks every index
// first; if any image holds a bad one, nothing is sent anywhere. Collective.
template <class Bins, class Local, class Value>
void batched_accumulate(
    Bins& bins, const Local& local_indices, Value value, runtime::reduce_op op, index_check& bad) {
  using C = typename Bins::value_type;
  const std::size_t n = bins.size();
  std::vector<std::size_t> indices;
  std::vector<C> values;
  std::size_t u = 0;
  for (const auto k : local_indices) {
    const auto i = static_cast<std::size_t>(k);
    if (i >= n) {
      bad.note(i);
      break;
    }
    indices.push_back(i);
    values.push_back(static_cast<C>(value(u++)));
  }
  if (!bad.none_anywhere())
    return;
  std::vector<owner_share<C>> shares;
  note_listed(bins, indices, race_access::update);
  accumulate_scattered(bins, indices, values, op, shares);
}

// Combines value(u) into bins[indices[u]] with op on every image, by the most updates any image
// holds (`most`, the same on every image, so all choose alike): many times the table, in a
// table-sized buffer of Count with one reduce-scatter; a fair share of it, as buckets the owners
// apply with plain stores after one all-to-all; fewer, per owner with one accumulate each (in
// place, one processor atomic per update, where every image shares the window). Throws
// out_of_range everywhere, before sending, for a bad index; ends with a sync point. Collective.
template <class Count, class Bins, class Local, class Value>
void accumulate_everywhere(const char* algorithm,
                           Bins& bins,
                           const Local& local_indices,
                           Value value,
                           runtime::reduce_op op,
                           typename Bins::value_type identity,
                           std::size_t most) {
  index_check bad;
  runtime::window& w = window_of(bins);
  // Many times more updates than bins: one pass over a table of narrow counters beats an atomic
  // per update, even in place.
  const bool many = most >= 2 * bins.size();
  const bool fair_share = most * 4 >= bins.size();
  bool done = false;
  if (fair_share) {
    // The owners apply these with plain stores, after an all-to-all or a reduce-scatter: this
    // image's earlier writes to the bins land first, as an accumulate after a put does.
    if (w.in_passive_epoch())
      w.flush_all();
    // Buckets to the owners move fewer bytes than the table unless the updates outnumber it many
    // times, and beat an atomic per update on one node too (bale's size at 2 images: 64 against
    // 73 ms).
    const bool shared = w.updates_in_place();
    if (!many && (shared || w.owner_applies_updates())) {
      done = exchanged_accumulate(bins, local_indices, value, op, bad);
      // Other images update a shared window with the processor's atomics, which the owners'
      // plain stores would lose: no image's sync point sends its aggregators' updates before
      // every owner has applied its buckets.
      if (done && shared)
        runtime::messages::barrier(runtime::current_comm());
    }
  }
  if constexpr (runtime::processor_atomic<typename Bins::value_type>) {
    if (!done && !many && begin_updates_in_place<typename Bins::value_type>(bins)) {
      in_place_accumulate(bins, local_indices, value, op, bad);
      done = true;
    }
  }
  if (done) {
    // applied, or refused everywhere for a bad index
  } else if (fair_share) {
    dense_accumulate(bins, local_indices, value, op, static_cast<Count>(identity), bad);
  } else {
    batched_accumulate(bins, local_indices, value, op, bad);
  }
  if (!bad.none_anywhere())
    bad.throw_everywhere(algorithm, bins.size());
  sync_all();
}

}  // namespace pgas::detail
