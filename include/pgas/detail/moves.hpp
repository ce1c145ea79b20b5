#pragma once
// The movers: the one place that chooses how a run, a list or a batch of updates travels, by
// copies in this process's memory (its own or a mapped peer's), requests its owners answer, or
// MPI operations grouped per owner; for collective writes (transform, copy), also one
// all-to-all the owners store.

#include <pgas/detail/access.hpp>
#include <pgas/detail/combine_duplicates.hpp>
#include <pgas/detail/in_place.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/owner_batches.hpp>
#include <pgas/detail/started_transfers.hpp>
#include <pgas/detail/to_owners.hpp>
#include <pgas/detail/walks.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/owner_reads.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/runs.hpp>
#include <pgas/runtime/team.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

namespace pgas::detail {

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
    runtime::window& w = *b.first.window(internal);
    const int owner = rank_of(b.first);
    if (runtime::owner_reads::answered_by_owner(w, b.target)) {
      runtime::owner_reads::get(w, out.data(), b.origin, owner, b.first.displacement(internal),
                                b.target, started != nullptr ? started->reads : answers);
    } else if (started != nullptr) {
      (void)runtime::start_get_runs(w, out.data(), b.origin, owner, b.first.displacement(internal),
                                    b.target);
      started->add(w, owner);
    } else {
      runtime::get_runs(w, out.data(), b.origin, owner, b.first.displacement(internal), b.target);
    }
  };
  owner_batches<const T, decltype(local), decltype(remote)> grouped(local, remote);
  walk([&grouped, &out, started](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    // A long strided run through MPI: one vector datatype at once, not a run per element.
    if (started == nullptr && step > 1 && len >= long_strided_run && !p.is_local()) {
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
      std::copy_n(from, len, to);
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
      started->add(w, owner);
    } else {
      runtime::put_runs(w, in.data(), b.origin, owner, b.first.displacement(internal), b.target);
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
      started->add(w, owner);
    }
  };
  const auto never_local = [](std::size_t, const P&, std::size_t, std::size_t) {};
  owner_batches<T, decltype(never_local), decltype(remote)> grouped(never_local, remote);
  walk([&grouped](std::size_t at, const P& p, std::size_t len, std::size_t step) {
    grouped.add(at, p.without_local_address(internal), len, step);
  });
  grouped.finish();
}

// c[indices[u]] op= values[u] for every u (indices checked already): the one place that chooses
// how a batch of updates travels. On a window every image shares, one processor atomic per
// update straight into the owner's memory (in_place.hpp). Where the owners apply updates (no
// shared memory), each owner gets one batch (to_owners.hpp). Otherwise updates of one index are
// combined and each owner gets one MPI accumulate. `c`: a container or its locked_elements; the
// lists may be reordered. `shares`: room reused between calls. Local.
template <class T, class C>
void accumulate_scattered(C& c,
                          std::vector<std::size_t>& indices,
                          std::vector<T>& values,
                          runtime::reduce_op op,
                          std::vector<owner_share<T>>& shares) {
  const auto value = [&values](std::size_t u) { return values[u]; };
  if (combine_in_place<T>(c, indices, value, op))
    return;
  if constexpr (requires { c.place_of(0); }) {
    if (c.window(internal).owner_applies_updates() &&
        send_to_owners<T>(c, indices, value, op, shares))
      return;
  } else if constexpr (requires { c.finder(); }) {
    if (c.window(internal).owner_applies_updates() &&
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
    if (e.window(internal).owner_applies_updates() && scattered(indices)) {
      runtime::owner_reads::pending answers;  // of a blocking read
      runtime::owner_reads::listed_reads<T> requests(e.window(internal), out.data(),
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

}  // namespace pgas::detail
