#pragma once
// One image moving many elements on its own: ranges, strided ranges and index lists, read
// into or written from this image's buffer. No other image takes part. Each owner reached
// through MPI gets one operation with a derived datatype per side (or one per
// detail::max_runs_per_operation runs); elements in this process's memory are copied.
// Works on every container with global indices (array, array_view, vector) and on the image
// parts of a coarray<T[N]> (`pgas::get(x(img), 0, out)`).

#include <pgas/detail/access.hpp>
#include <pgas/detail/owner_batches.hpp>
#include <pgas/detail/to_owners.hpp>
#include <pgas/future.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/owner_reads.hpp>
#include <pgas/runtime/runs.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace pgas {

namespace detail {

/// What the transfers need of a container: its size, where element i lives, and where the run
/// of elements one image stores consecutively from i ends.
template <class C>
concept transfer_container = requires(C& c, std::size_t i) {
  { c.size() } -> std::convertible_to<std::size_t>;
  c.element(i);
  { c.run_end(i) } -> std::convertible_to<std::size_t>;
};

template <class C>
using element_of =
    typename std::remove_reference_t<decltype(std::declval<C&>().element(0))>::value_type;

inline void require_range(const char* what,
                          std::size_t first,
                          std::size_t count,
                          std::size_t size) {
  if (first > size || count > size - first) {
    throw out_of_range(std::string(what) + ": elements [" + std::to_string(first) + ", " +
                       std::to_string(first) + " + " + std::to_string(count) +
                       ") reach past the end of a container of " + std::to_string(size));
  }
}

inline void require_same_length(const char* what, std::size_t indices, std::size_t values) {
  if (indices != values) {
    throw usage_error(std::string(what) + ": " + std::to_string(indices) + " indices but " +
                      std::to_string(values) + " values");
  }
}

// Calls f(buffer position, first element, length, 1) for every run of [first, first + count):
// consecutive global indices one image stores consecutively.
template <class C, class F>
void for_each_range_run(C& c, std::size_t first, std::size_t count, F f) {
  std::size_t i = first;
  const std::size_t end = first + count;
  while (i < end) {
    const std::size_t stop = std::min<std::size_t>(c.run_end(i), end);
    f(i - first, c.element(i), stop - i, std::size_t{1});
    i = stop;
  }
}

// Calls f(buffer position, first element, length, stride) for the elements first + k * stride
// (k < count) that lie in one run of the container: `stride` apart in one image's memory.
template <class C, class F>
void for_each_strided(C& c, std::size_t first, std::size_t stride, std::size_t count, F f) {
  std::size_t k = 0;
  while (k < count) {
    const std::size_t i = first + k * stride;
    const std::size_t end = c.run_end(i);
    const std::size_t in_run = std::min(count - k, (end - 1 - i) / stride + 1);
    f(k, c.element(i), in_run, stride);
    k += in_run;
  }
}

// Throws out_of_range for a strided pattern reaching past the end, before anything moves.
inline void require_strided(
    const char* what, std::size_t first, std::size_t stride, std::size_t count, std::size_t size) {
  if (count == 0)
    return;
  if (stride == 0)
    throw usage_error(std::string(what) + ": stride 0 names one element many times");
  const std::size_t steps = count - 1;
  if (first >= size || steps > (size - 1 - first) / stride) {
    throw out_of_range(std::string(what) + ": " + std::to_string(count) + " elements from " +
                       std::to_string(first) + " every " + std::to_string(stride) +
                       " reach past the end of a container of " + std::to_string(size));
  }
}

inline void require_indices(const char* what,
                            std::span<const std::size_t> indices,
                            std::size_t size) {
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] >= size) {
      throw out_of_range(std::string(what) + ": index " + std::to_string(indices[k]) + " (entry " +
                         std::to_string(k) + " of the list) is past the end of a container of " +
                         std::to_string(size));
    }
  }
}

// Transfers started on some windows' targets, complete after a flush of each: what an
// asynchronous transfer's future waits for. MPI_Win_flush, not flush_local: the two mean the
// same for a get, and Open MPI's osc/pt2pt (its component for dynamic windows) can wait for
// ever in MPI_Win_flush_local with gets of several targets outstanding.
class started_transfers {
 public:
  void add(runtime::window& w, int target) { started_.push_back({&w, target}); }
  /// Completes them (MPI_Win_flush per target, and the owners' answers). Local; the wait is
  /// only for operations already in flight.
  void complete() {
    // Answers first: while it waits in an MPI flush this image answers no one.
    reads.wait();
    for (const started& s : started_) s.w->flush(s.target);
    started_.clear();
  }
  /// True once the owners have answered every read (making progress once, never waiting).
  bool answers_in() {
    if (!reads.done())
      (void)runtime::messages::progress();
    return reads.done();
  }
  /// Reads that owners answer (runtime/owner_reads.hpp).
  runtime::owner_reads::pending reads;

 private:
  struct started {
    runtime::window* w;
    int target;
  };
  std::vector<started> started_;
};

// A future's source for started transfers: ready once the owners have answered and the MPI
// operations are completed, which ready() itself does (a flush only waits for operations
// already in flight).
struct started_source final : future_source<std::monostate> {
  bool ready() override {
    if (!transfers.answers_in())
      return false;
    transfers.complete();
    return true;
  }
  std::monostate take() override {
    transfers.complete();
    return {};
  }
  started_transfers transfers;
};

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
      std::copy_n(from, len, to);
    } else {
      for (std::size_t j = 0; j < len; ++j) to[j] = from[j * step];
    }
  };
  runtime::owner_reads::pending answers;  // of a blocking read
  const auto remote = [&out, started, &answers](owner_batch<const T>& b) {
    runtime::window& w = *b.first.window();
    const int owner = rank_of(b.first);
    if (runtime::owner_reads::answered_by_owner(w, b.target)) {
      runtime::owner_reads::get(w, out.data(), b.origin, owner, b.first.displacement(), b.target,
                                started != nullptr ? started->reads : answers);
    } else if (started != nullptr) {
      (void)runtime::start_get_runs(w, out.data(), b.origin, owner, b.first.displacement(),
                                    b.target);
      started->add(w, owner);
    } else {
      runtime::get_runs(w, out.data(), b.origin, owner, b.first.displacement(), b.target);
    }
  };
  owner_batches<const T, decltype(local), decltype(remote)> grouped(local, remote);
  walk([&grouped, &out, started](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    // A long strided run through MPI: one vector datatype at once, not a run per element.
    if (started == nullptr && step > 1 && len >= long_strided_run && !p.is_local()) {
      runtime::get_strided(*p.window(), out.data() + at, len, step, rank_of(p), p.displacement());
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
      std::copy_n(from, len, to);
    } else {
      for (std::size_t j = 0; j < len; ++j) to[j * step] = from[j];
    }
  };
  const auto remote = [&in, started](owner_batch<T>& b) {
    runtime::window& w = *b.first.window();
    const int owner = rank_of(b.first);
    if (started != nullptr) {
      w.require_passive("an asynchronous put");
      (void)runtime::start_put_runs(w, in.data(), b.origin, owner, b.first.displacement(),
                                    b.target);
      started->add(w, owner);
    } else {
      runtime::put_runs(w, in.data(), b.origin, owner, b.first.displacement(), b.target);
    }
  };
  owner_batches<T, decltype(local), decltype(remote)> grouped(local, remote);
  walk([&grouped](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    grouped.add(at, p, len, step);
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
    runtime::window& w = *b.first.window();
    const int owner = rank_of(b.first);
    if (started == nullptr) {
      runtime::accumulate_runs(w, in.data(), b.origin, owner, b.first.displacement(), b.target, op);
      return;
    }
    w.require_passive("an asynchronous accumulate");
    const auto a = runtime::start_accumulate_runs(w, in.data(), b.origin, owner,
                                                  b.first.displacement(), b.target, op);
    if (!a)
      return;  // applied in place: done
    // Into this process's own memory it completes at once (its loads must see it), as every
    // accumulate does; elsewhere the future's flush completes it.
    if (a->to_self) {
      w.flush(owner);
    } else {
      started->add(w, owner);
    }
  };
  const auto never_local = [](std::size_t, const P&, std::size_t, std::size_t) {};
  owner_batches<T, decltype(never_local), decltype(remote)> grouped(never_local, remote);
  walk([&grouped](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    grouped.add(at, p.without_local_address(), len, step);
  });
  grouped.finish();
}

// Makes each index appear once, in place: the updates of one index are combined with op in list
// order (replace: the later value wins), kept where the index first appears. An accumulate's or
// put's target may not name an element twice in one operation. Open addressing, so the cost
// grows with the updates, not with a sort.
template <class T>
void combine_duplicates(std::vector<std::size_t>& indices,
                        std::vector<T>& values,
                        runtime::reduce_op op) {
  constexpr std::size_t empty = SIZE_MAX;
  std::size_t slots = 16;
  while (slots < 2 * indices.size()) slots *= 2;
  std::vector<std::size_t> table(slots, empty);  // slot -> kept position
  std::size_t kept = 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t index = indices[k];
    std::size_t s = (index * 0x9e3779b97f4a7c15ULL) & (slots - 1);
    while (table[s] != empty && indices[table[s]] != index) s = (s + 1) & (slots - 1);
    if (table[s] == empty) {
      table[s] = kept;
      indices[kept] = index;
      values[kept] = values[k];
      ++kept;
    } else {
      values[table[s]] = runtime::combine(op, values[table[s]], values[k]);
    }
  }
  indices.resize(kept);
  values.resize(kept);
}

template <class C>
auto range_walk(C& c, std::size_t first, std::size_t count) {
  return [&c, first, count](auto add) { for_each_range_run(c, first, count, add); };
}
template <class C>
auto strided_walk(C& c, std::size_t first, std::size_t stride, std::size_t count) {
  return [&c, first, stride, count](auto add) { for_each_strided(c, first, stride, count, add); };
}
template <class C>
auto list_walk(C& c, std::span<const std::size_t> indices) {
  return [&c, indices](auto add) {
    for (std::size_t k = 0; k < indices.size(); ++k)
      add(k, c.element(indices[k]), std::size_t{1}, std::size_t{1});
  };
}

// c[indices[u]] op= values[u] for every u (indices checked already): the one place that chooses
// how scattered accumulates travel. Where the owners apply updates (no shared memory), each
// owner gets one batch (to_owners.hpp); otherwise updates of one index are combined and each
// owner gets one accumulate (MPI, or in place). `c`: a container or its locked_elements; the
// lists may be reordered. `shares`: room reused between calls. Local.
template <class T, class C>
void accumulate_scattered(C& c,
                          std::vector<std::size_t>& indices,
                          std::vector<T>& values,
                          runtime::reduce_op op,
                          std::vector<owner_share<T>>& shares) {
  const auto value = [&values](std::size_t u) { return values[u]; };
  if constexpr (requires { c.place_of(0); }) {
    if (c.window().owner_applies_updates() && send_to_owners<T>(c, indices, value, op, shares))
      return;
  } else if constexpr (requires { c.finder(); }) {
    if (c.window().owner_applies_updates() &&
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
inline bool scattered(std::span<const std::size_t> indices) {
  std::size_t runs = 1;
  bool one_stride = true;
  for (std::size_t k = 1; k < indices.size(); ++k) {
    runs += indices[k] != indices[k - 1] + 1 ? 1U : 0U;
    one_stride = one_stride && indices[k] - indices[k - 1] == indices[1] - indices[0];
  }
  return !one_stride && indices.size() <= 4 * runs;
}

// Reads out[k] = c[indices[k]] (checked already), the one decision for lists: by plain loads
// where every part is mapped here (access.hpp's load_listed); as requests the owners answer
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
    if (e.window().owner_applies_updates() && scattered(indices)) {
      runtime::owner_reads::pending answers;  // of a blocking read
      runtime::owner_reads::listed_reads<T> requests(e.window(), out.data(),
                                                     started != nullptr ? started->reads : answers);
      const std::size_t me = e.me();
      const T* own = e.own_part();
      for (std::size_t k = 0; k < indices.size(); ++k) {
        const auto place = e.place_of(indices[k]);
        if (place.image == me) {
          out[k] = own[place.offset];
        } else {
          requests.add(static_cast<int>(place.image), e.part_displacement(place.image),
                       e.part_size(place.image) * sizeof(T), place.offset, k);
        }
      }
      requests.finish();
      answers.wait();
      return;
    }
  }
  read_elements(out, list_walk(c, indices), started);
}

template <class F>
future<void> future_of(F start) {
  auto source = std::make_unique<started_source>();
  start(&source->transfers);
  return future<void>{std::move(source)};
}

}  // namespace detail

/// Reads c[first .. first + out.size()) into out. Local; blocks until out holds the data; sees
/// this image's own earlier writes. Throws out_of_range, before anything moves, for a range
/// past the end.
template <class C>
requires detail::transfer_container<const C>
void get(const C& c, std::size_t first, std::span<detail::element_of<const C>> out) {
  detail::require_range("pgas::get", first, out.size(), c.size());
  detail::read_elements(out, detail::range_walk(c, first, out.size()), nullptr);
}

/// Writes in to c[first .. first + in.size()). Local; returns once in may be reused; the data
/// is complete at the next sync point.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
void put(C&& c,
         std::size_t first,
         std::span<const detail::element_of<std::remove_reference_t<C>>> in) {
  detail::require_range("pgas::put", first, in.size(), c.size());
  detail::write_elements(in, detail::range_walk(c, first, in.size()), nullptr);
}

/// Starts reading c[first .. first + out.size()) into out; the future is ready when out holds
/// the data. out must stay alive and untouched until then. Local.
template <class C>
requires detail::transfer_container<const C>
[[nodiscard]] future<void> async_get(const C& c,
                                     std::size_t first,
                                     std::span<detail::element_of<const C>> out) {
  detail::require_range("pgas::async_get", first, out.size(), c.size());
  return detail::future_of([&](detail::started_transfers* started) {
    detail::read_elements(out, detail::range_walk(c, first, out.size()), started);
  });
}

/// Starts writing in to c[first .. first + in.size()); the future is ready when in may be
/// reused, which must not happen before. The data is complete at the next sync point. Local.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
[[nodiscard]] future<void> async_put(
    C&& c, std::size_t first, std::span<const detail::element_of<std::remove_reference_t<C>>> in) {
  detail::require_range("pgas::async_put", first, in.size(), c.size());
  return detail::future_of([&](detail::started_transfers* started) {
    detail::write_elements(in, detail::range_walk(c, first, in.size()), started);
  });
}

/// Reads c[first], c[first + stride], ... (out.size() of them) into out. One operation per
/// owner. Local; blocks. Stride 0 is a usage_error, a pattern past the end out_of_range.
template <class C>
requires detail::transfer_container<const C>
void get_strided(const C& c,
                 std::size_t first,
                 std::size_t stride,
                 std::span<detail::element_of<const C>> out) {
  detail::require_strided("pgas::get_strided", first, stride, out.size(), c.size());
  detail::read_elements(out, detail::strided_walk(c, first, stride, out.size()), nullptr);
}

/// Writes in to c[first], c[first + stride], ... One operation per owner. Local; returns once
/// in may be reused; complete at the next sync point.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
void put_strided(C&& c,
                 std::size_t first,
                 std::size_t stride,
                 std::span<const detail::element_of<std::remove_reference_t<C>>> in) {
  detail::require_strided("pgas::put_strided", first, stride, in.size(), c.size());
  detail::write_elements(in, detail::strided_walk(c, first, stride, in.size()), nullptr);
}

/// out[k] = c[indices[k]] for every k. Requests are grouped per owner: one get each (or one per
/// detail::max_runs_per_operation runs). Not collective. Local; blocks. Throws, before
/// anything moves, usage_error if the lengths differ and out_of_range for an index past the end.
template <class C>
requires detail::transfer_container<const C>
void gather(const C& c,
            std::span<const std::size_t> indices,
            std::span<detail::element_of<const C>> out) {
  detail::require_same_length("pgas::gather", indices.size(), out.size());
  detail::require_indices("pgas::gather", indices, c.size());
  detail::read_listed(c, indices, out, nullptr, "pgas::gather");
}

/// As gather, returning at once; the future is ready when out holds every element. indices and
/// out must stay alive and untouched until then. Local.
template <class C>
requires detail::transfer_container<const C>
[[nodiscard]] future<void> async_gather(const C& c,
                                        std::span<const std::size_t> indices,
                                        std::span<detail::element_of<const C>> out) {
  detail::require_same_length("pgas::async_gather", indices.size(), out.size());
  detail::require_indices("pgas::async_gather", indices, c.size());
  return detail::future_of([&](detail::started_transfers* started) {
    detail::read_listed(c, indices, out, started, "pgas::async_gather");
  });
}

/// c[indices[k]] = values[k] for every k; where an index is listed twice the later value wins.
/// One put per owner. Not collective. Local; returns once values may be reused; complete at
/// the next sync point. Throws as gather does, before anything moves.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>>
void scatter(C&& c,
             std::span<const std::size_t> indices,
             std::span<const detail::element_of<std::remove_reference_t<C>>> values) {
  using T = detail::element_of<std::remove_reference_t<C>>;
  detail::require_same_length("pgas::scatter", indices.size(), values.size());
  detail::require_indices("pgas::scatter", indices, c.size());
  std::vector<std::size_t> distinct(indices.begin(), indices.end());
  std::vector<T> last(values.begin(), values.end());
  detail::combine_duplicates(distinct, last, reduce_op::replace);
  detail::write_elements(std::span<const T>(last),
                         detail::list_walk(c, std::span<const std::size_t>(distinct)), nullptr);
}

/// c[indices[k]] = c[indices[k]] op values[k] for every k, atomically with respect to other
/// images' accumulates; updates of one index are combined here first. One accumulate per owner.
/// Not collective. Local; complete at the next sync point. Throws as gather does, before
/// anything moves, and usage_error for a bitwise or logical op on floating point.
template <class C>
requires detail::transfer_container<std::remove_reference_t<C>> &&
    runtime::accumulable<detail::element_of<std::remove_reference_t<C>>>
void scatter_accumulate(C&& c,
                        std::span<const std::size_t> indices,
                        std::span<const detail::element_of<std::remove_reference_t<C>>> values,
                        reduce_op op) {
  using T = detail::element_of<std::remove_reference_t<C>>;
  detail::require_same_length("pgas::scatter_accumulate", indices.size(), values.size());
  detail::require_indices("pgas::scatter_accumulate", indices, c.size());
  runtime::require_op_defined<T>(op);
  std::vector<std::size_t> listed(indices.begin(), indices.end());
  std::vector<T> combined(values.begin(), values.end());
  std::vector<detail::owner_share<T>> shares;
  detail::accumulate_scattered(c, listed, combined, op, shares);
}

}  // namespace pgas
