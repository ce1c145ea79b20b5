#pragma once
// The one place that decides, for an element or a run of elements behind a global_ptr, whether
// this process reaches it with a load or store (its own memory, or a same-node peer's mapped
// here) or with an MPI one-sided call. Every container and algorithm moves data through these
// functions, so the rules of the two paths stay the same:
// - a store is complete at the next sync point, as a put is;
// - a load of a peer's memory first completes this image's earlier writes to that peer and is
//   refused inside a fence or neighbourhood phase, as a get is (global_ptr::local_for_reading);
// - accumulates and atomics go through the runtime, even to this image's own memory, which
//   keeps one rule per window: MPI accumulates, or, on a window every image shares, the
//   processor's atomics for every image (runtime/in_place_updates.hpp); the two never mix.

#include <pgas/detail/internal_only.hpp>
#include <pgas/future.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/stats.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <variant>

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

/// Reads *p. Blocks until the value has arrived. `what` names the read in a usage_error.
template <class T>
[[nodiscard]] std::remove_const_t<T> load(const global_ptr<T>& p,
                                          const char* what = "a blocking read of an element") {
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
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_loads, out.size());
    std::copy_n(p.local_for_reading(what), out.size(), out.begin());
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
requires(!std::is_const_v<T>) void store(const global_ptr<T>& p, const T& v) {
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_stores, 1);
    *p.local() = v;
  } else {
    runtime::put_value(*p.window(internal), v, rank_of(p), p.displacement(internal));
  }
}

/// Writes `in` to consecutive elements of p's owner, starting at p. Returns once `in` may be
/// reused; complete at the next sync point.
template <class T>
requires(!std::is_const_v<T>) void store_n(const global_ptr<T>& p, std::span<const T> in) {
  if (in.empty())
    return;
  if (p.is_local()) {
    count_if_peer(p, &rma_stats::peer_stores, in.size());
    std::copy_n(in.begin(), in.size(), p.local());
  } else {
    runtime::put(*p.window(internal), in, rank_of(p), p.displacement(internal));
  }
}

/// *p = *p op v, atomically with respect to other accumulates. Returns at once; complete at the
/// next sync point.
template <class T>
requires(!std::is_const_v<T>) void accumulate(const global_ptr<T>& p,
                                              const T& v,
                                              runtime::reduce_op op) {
  runtime::accumulate_value(*p.window(internal), v, rank_of(p), p.displacement(internal), op);
}

/// Atomically *p = *p op v; returns the previous value. Blocks. With no_op it is an atomic read.
template <class T>
[[nodiscard]] std::remove_const_t<T> fetch_and_op(const global_ptr<T>& p,
                                                  const std::remove_const_t<T>& v,
                                                  runtime::reduce_op op) {
  return runtime::fetch_and_op(*p.window(internal), v, rank_of(p), p.displacement(internal), op);
}

/// Atomically replaces *p by `desired` if it equals `expected`; returns the previous value.
template <class T>
requires(!std::is_const_v<T>) [[nodiscard]] T
    compare_and_swap(const global_ptr<T>& p, const T& desired, const T& expected) {
  return runtime::compare_and_swap(*p.window(internal), desired, expected, rank_of(p),
                                   p.displacement(internal));
}

/// Starts reading *p; the future holds the value once it has arrived.
template <class T>
[[nodiscard]] future<std::remove_const_t<T>> async_load(const global_ptr<T>& p) {
  using V = std::remove_const_t<T>;
  if (p.is_local())
    return future<V>::make_ready(*p.local_for_reading("async_get"));
  auto source = std::make_unique<request_source<V>>();
  source->request = runtime::rget(*p.window(internal), std::span{&source->value, 1}, rank_of(p),
                                  p.displacement(internal));
  return future<V>{std::move(source)};
}

// An atomic started with MPI_Rget_accumulate: the operand and the result stay here, at fixed
// addresses, until the request completes.
template <class T>
struct atomic_request_source final : future_source<T> {
  bool ready() override { return request.test(); }
  T take() override {
    request.wait();
    return result;
  }
  T operand{};
  T result{};
  runtime::request request;
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
    if (pending)
      window->flush_local(target);
    pending = false;
  }
  T desired{};
  T expected{};
  T result{};
  runtime::window* window = nullptr;
  int target = 0;
  bool pending = false;
};

/// Starts *p = *p op v atomically; the future holds the previous value.
template <class T>
requires(!std::is_const_v<T>) [[nodiscard]] future<T> async_fetch_and_op(const global_ptr<T>& p,
                                                                         const T& v,
                                                                         runtime::reduce_op op) {
  auto source = std::make_unique<atomic_request_source<T>>();
  source->operand = v;
  source->request = runtime::rfetch_and_op(*p.window(internal), &source->operand, &source->result,
                                           rank_of(p), p.displacement(internal), op);
  return future<T>{std::move(source)};
}

/// Starts replacing *p by `desired` if it holds `expected`; the future holds the previous value.
template <class T>
requires(!std::is_const_v<T>) [[nodiscard]] future<T> async_compare_and_swap(const global_ptr<T>& p,
                                                                             const T& desired,
                                                                             const T& expected) {
  auto source = std::make_unique<compare_and_swap_source<T>>();
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
    [[nodiscard]] future<void> async_store(const global_ptr<T>& p, const T& v) {
  auto source = std::make_unique<request_source<std::monostate>>();
  if (p.is_local()) {
    *p.local() = v;
  } else {
    auto* staged = static_cast<const T*>(p.window(internal)->stage(&v, sizeof(v)));
    source->request = runtime::rput(*p.window(internal), std::span{staged, 1}, rank_of(p),
                                    p.displacement(internal));
  }
  return future<void>{std::move(source)};
}

}  // namespace pgas::detail
