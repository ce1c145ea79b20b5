#pragma once
// pgas::transpose: b = aᵀ (or b = b op aᵀ) for two 2-D arrays on any grids. Each image fills its
// own tile of b: the part of a it needs is read straight from the owners' memory where this
// process maps it (its own tile, same-node peers), otherwise either fetched with one get per
// owning tile or sent by the owners in one exchange — whichever the first calls measured faster
// (timed_choice), or PGAS_TRANSPOSE_ROUTE fixes — and transposed into place in cache-sized
// blocks.

#include <pgas/algorithms/timed_choice.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/patches.hpp>
#include <pgas/reduce_op.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/combine.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/transpose_route_setting.hpp>
#include <pgas/sync.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace pgas {

namespace detail {

// Elements a transpose sweeps between two calls of its `between`: some 0.1 ms of work, so that
// a get waiting on this image is answered within a fraction of a block's sweep, while the calls
// cost nothing beside the sweep.
inline constexpr std::size_t transposed_between_calls = std::size_t{1} << 16;

// to(i, j) = to(i, j) op from(j, i) for i < rows, j < cols, with rows `to_stride` and
// `from_stride` elements apart; in square blocks so that both sides stay in cache. Calls
// between() after every transposed_between_calls elements or so.
template <class T, class Op, class Between>
void transpose_block(T* to,
                     std::size_t to_stride,
                     const T* from,
                     std::size_t from_stride,
                     std::size_t rows,
                     std::size_t cols,
                     Op op,
                     Between between) {
  constexpr std::size_t edge = 32;
  std::size_t since_call = 0;
  for (std::size_t i0 = 0; i0 < rows; i0 += edge) {
    const std::size_t i1 = std::min(rows, i0 + edge);
    since_call += (i1 - i0) * cols;
    if (since_call >= transposed_between_calls) {
      since_call = 0;
      between();
    }
    for (std::size_t j0 = 0; j0 < cols; j0 += edge) {
      const std::size_t j1 = std::min(cols, j0 + edge);
      for (std::size_t i = i0; i < i1; ++i) {
        T* out = to + i * to_stride;
        const T* in = from + i;
        for (std::size_t j = j0; j < j1; ++j) out[j] = op(out[j], in[j * from_stride]);
      }
    }
  }
}

// a's rows [row0, row1) and columns [col0, col1): what one tile of b takes from one tile of a.
struct part_of_a {
  std::size_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
  [[nodiscard]] bool empty() const noexcept { return row0 >= row1 || col0 >= col1; }
  [[nodiscard]] std::size_t rows() const noexcept { return row1 - row0; }
  [[nodiscard]] std::size_t cols() const noexcept { return col1 - col0; }
  [[nodiscard]] std::size_t elements() const noexcept { return empty() ? 0 : rows() * cols(); }
};

// The part of image `owner`'s tile of a that image `taker`'s tile of b takes: b's rows are a's
// columns and b's columns a's rows. Empty where either image holds no tile. Local.
template <class T>
[[nodiscard]] part_of_a part_taken(const ndarray<T, 2>& b,
                                   std::size_t taker,
                                   const ndarray<T, 2>& a,
                                   std::size_t owner) {
  const tile_layout<2>& bt = b.tiles();
  const tile_layout<2>& at = a.tiles();
  if (taker >= bt.process_grid().images() || owner >= at.process_grid().images())
    return {};
  const auto tb = bt.process_grid().coordinates(taker);
  const auto ta = at.process_grid().coordinates(owner);
  if (bt.empty_tile(tb) || at.empty_tile(ta))
    return {};
  const auto bo = bt.tile_origin(tb);
  const auto be = bt.tile_extents(tb);
  const auto ao = at.tile_origin(ta);
  const auto ae = at.tile_extents(ta);
  return {std::max(ao[0], bo[1]), std::min(ao[0] + ae[0], bo[1] + be[1]), std::max(ao[1], bo[0]),
          std::min(ao[1] + ae[1], bo[0] + be[0])};
}

// Where MPI answers a get only inside a call of its owner — between nodes, and under MPICH's
// UCX even on one node without shared memory —, an image whose own transfers ended first would
// keep another's waiting through the whole of its sweeps (MPICH through MPI: a block's get of
// 6 ms took 30, bench/README): so the sweeps make progress every so often, which answers such
// gets and drives MPI's collectives (and runs arrived handlers, as any pgas call may).
inline void answer_others() {
  (void)runtime::messages::progress();
}

// b's tile op= the part `part` of a, found at `from` with a's rows `stride` elements apart.
template <class T, class Op>
void transpose_part(const ndarray_view<T, 2>& mine,
                    const std::array<std::size_t, 2>& origin,
                    const part_of_a& part,
                    const T* from,
                    std::size_t stride,
                    Op op) {
  // a's part lands in b's rows [col0, col1) and columns [row0, row1).
  T* to = &mine(static_cast<std::ptrdiff_t>(part.col0 - origin[0]),
                static_cast<std::ptrdiff_t>(part.row0 - origin[1]));
  transpose_block(to, mine.stride(0), from, stride, part.cols(), part.rows(), op, answer_others);
}

// How a transpose moves the parts of a that a reader does not map: read by their readers (one
// get each), or sent by their owners in one exchange.
enum class transpose_route { readers_get = 0, owners_send = 1 };

// What this image's part of an owners' exchange keeps until the exchange completes: the
// blocks received, and where each taker's block lies among them (count 0: none from it).
template <class T>
struct parts_received {
  runtime::scratch_vector<T> values;
  std::vector<runtime::exchange_run> runs;
  runtime::runs_exchange exchange;  // last: destruction waits for it before the rest goes
};

// Starts the exchange in which each owner sends each taker the part of its tile of a the taker
// does not map, straight from the tile as a strided block (no copy here first: MPI packs as it
// sends). Mapping goes both ways (the images of one node map each other's tiles; whether they
// do is agreed at start-up), so an owner knows which parts its takers read for themselves.
// Collective over the team. Returns whether this image sends or receives anything.
template <class T>
bool start_owners_exchange(const ndarray<T, 2>& b,
                           const ndarray<T, 2>& a,
                           std::size_t me,
                           std::size_t images,
                           parts_received<T>& received) {
  const runtime::element_layout l = runtime::layout_of<T>();
  const auto per = static_cast<std::size_t>(l.per_element);
  const ndarray_view<const T, 2> own = a.local();
  const auto own_origin = a.local_origin();
  std::vector<runtime::exchange_run> sends(images);
  received.runs.assign(images, {});
  std::size_t receive_total = 0;
  bool sends_any = false;
  for (std::size_t q = 0; q < images; ++q) {
    if (q == me)
      continue;
    const part_of_a to_q = part_taken(b, q, a, me);
    if (!to_q.empty() && !b.element({to_q.col0, to_q.row0}).is_local()) {
      note_block_read(a, {to_q.row0, to_q.col0}, to_q.rows(), to_q.cols());
      const T* corner = &own(static_cast<std::ptrdiff_t>(to_q.row0 - own_origin[0]),
                             static_cast<std::ptrdiff_t>(to_q.col0 - own_origin[1]));
      sends[q] = {static_cast<std::size_t>(corner - own.data()) * sizeof(T), 1,
                  runtime::strided_type(l.type, runtime::to_count(to_q.rows()),
                                        runtime::to_count(to_q.cols() * per),
                                        runtime::to_count(own.stride(0) * per))};
      sends_any = true;
    }
    const part_of_a from_q = part_taken(b, me, a, q);
    if (!from_q.empty() && !a.element({from_q.row0, from_q.col0}).is_local()) {
      received.runs[q] = {receive_total * sizeof(T), runtime::to_count(from_q.elements() * per),
                          l.type};
      receive_total += from_q.elements();
    }
  }
  received.values.resize(receive_total);
  runtime::start_runs_exchange(own.data(), sends, received.values.data(), received.runs,
                               b.team().native(), received.exchange);
  return sends_any || receive_total > 0;
}

// Fills this image's tile of b, the parts of a other images own taken by `route` where this
// process does not map them. Returns whether any part went through MPI on this image.
template <class T, class Op>
bool transpose_into_tile(ndarray<T, 2>& b, const ndarray<T, 2>& a, Op op, transpose_route route) {
  const std::size_t me = b.team().this_image();
  const std::size_t images = b.team().num_images();
  const ndarray_view<T, 2> mine = b.local();
  const auto origin = b.local_origin();
  const auto mapped = [&](const part_of_a& part) {
    return a.element({part.row0, part.col0}).is_local();
  };
  parts_received<T> received;
  bool through_mpi =
      route == transpose_route::owners_send && start_owners_exchange(b, a, me, images, received);
  const auto sent_parts_arrived = [&] {
    runtime::messages::progress_until([&] { return received.exchange.done.test(); });
  };
  if (mine.size() == 0) {
    sent_parts_arrived();
    return through_mpi;
  }
  // Parts read through MPI first, then those in this process's memory: between nodes a get is
  // answered only while its owner is inside MPI, so an image transposing its own part first
  // would keep the others' gets waiting until it is done, and then wait for theirs in turn.
  // Fetching first, every image answers the others' gets while waiting for its own. Sent
  // parts arrive while the mapped ones are transposed.
  runtime::scratch_vector<T> fetched;
  for (const bool in_memory_pass : {false, true}) {
    for (std::size_t q = 0; q < images; ++q) {
      const part_of_a part = part_taken(b, me, a, q);
      if (part.empty() || mapped(part) != in_memory_pass)
        continue;
      if (!in_memory_pass && route == transpose_route::owners_send)
        continue;
      through_mpi = through_mpi || !in_memory_pass;
      with_tile_block(a, {part.row0, part.col0}, part.rows(), part.cols(), fetched,
                      "pgas::transpose", [&](const T* there, std::size_t stride) {
                        transpose_part(mine, origin, part, there, stride, op);
                      });
    }
  }
  if (route == transpose_route::owners_send) {
    sent_parts_arrived();
    for (std::size_t q = 0; q < images; ++q) {
      const runtime::exchange_run& run = received.runs[q];
      if (run.count == 0)
        continue;
      const part_of_a part = part_taken(b, me, a, q);
      transpose_part(mine, origin, part, received.values.data() + run.byte_offset / sizeof(T),
                     part.cols(), op);
    }
  }
  return through_mpi;
}

// Counts (PGAS_STATS) a transpose whose blocks went through MPI on this image, by `route`.
inline void count_transpose(transpose_route route, bool timed) noexcept {
  runtime::statistics::count_one(route == transpose_route::owners_send
                                     ? &rma_stats::transposes_by_sends
                                     : &rma_stats::transposes_by_gets);
  if (timed)
    runtime::statistics::count_one(&rma_stats::transposes_timed);
}

// b op= aᵀ on this image's tile, by the route PGAS_TRANSPOSE_ROUTE fixes, else by the one
// measured faster for arrays of this shape on this team (timed_choice) where the parts through
// MPI could go either way.
template <class T, class Op>
void transpose_by_faster_route(ndarray<T, 2>& b, const ndarray<T, 2>& a, Op op) {
  const auto taken_by = [&](transpose_route route, bool timed) {
    const bool through_mpi = transpose_into_tile(b, a, op, route);
    if (through_mpi)
      count_transpose(route, timed);
    return through_mpi;
  };
  const auto& at = a.tiles();
  const auto& bt = b.tiles();
  // An exchange takes byte offsets in MPI's ints: an image sends from its tile of a, receives
  // at most its tile of b (the first tiles are the largest, ghosts counted), the same bound on
  // every image. Where it cannot carry them, gets do, whatever the setting.
  const auto largest = [](const tile_layout<2>& t) { return t.stored_elements({0, 0}); };
  const runtime::transpose_route_setting setting = runtime::transpose_route_from_environment();
  if (setting == runtime::transpose_route_setting::gets ||
      !runtime::exchange_fits(std::max(largest(at), largest(bt)) * sizeof(T))) {
    (void)taken_by(transpose_route::readers_get, false);
    return;
  }
  if (setting == runtime::transpose_route_setting::sends) {
    (void)taken_by(transpose_route::owners_send, false);
    return;
  }
  const MPI_Comm comm = b.team().native();
  const auto key = std::tuple(MPI_Comm_c2f(comm), at.extents(), at.process_grid().extents(),
                              bt.process_grid().extents(), sizeof(T));
  timed_choice& choice = timed_choice_for(key);
  choice.run(comm, [&](int way) {
    return taken_by(static_cast<transpose_route>(way), choice.measuring());
  });
}

template <class T>
void require_transposable(const char* what, const ndarray<T, 2>& b, const ndarray<T, 2>& a) {
  if (b.extent(0) != a.extent(1) || b.extent(1) != a.extent(0)) {
    throw usage_error(std::string(what) + ": b is " + std::to_string(b.extent(0)) + " x " +
                      std::to_string(b.extent(1)) + " but a is " + std::to_string(a.extent(0)) +
                      " x " + std::to_string(a.extent(1)) + "; b must have a's extents swapped");
  }
  if (b.team().native() != a.team().native()) {
    throw usage_error(std::string(what) + ": a and b live on different teams");
  }
  if (same_container(b, a))
    throw usage_error(std::string(what) + ": b and a are the same array");
}

}  // namespace detail

/// b = aᵀ: b(i, j) = a(j, i). a and b may lie on different grids (and differ from each other's
/// in every way but the swapped extents and the team). Collective over their team; every
/// image's writes to a before the call are seen, and a may change again once it returns. Each
/// image writes only its own tile of b. Throws usage_error on every image, before anything is
/// written, for mismatched shapes, arrays on different teams or b being a.
template <class T>
void transpose(ndarray<T, 2>& b, const ndarray<T, 2>& a) {
  detail::require_transposable("pgas::transpose", b, a);
  sync_all(a.team());
  detail::transpose_by_faster_route(b, a, [](const T&, const T& x) { return x; });
  sync_all(a.team());
}

/// b = b op aᵀ, element by element (PRK's Transpose does B += Aᵀ: reduce_op::sum). As above.
template <class T>
void transpose(ndarray<T, 2>& b, const ndarray<T, 2>& a, reduce_op op) {
  detail::require_transposable("pgas::transpose", b, a);
  runtime::require_op_defined<T>(op);
  sync_all(a.team());
  if (op == reduce_op::sum) {
    detail::transpose_by_faster_route(b, a, [](const T& old, const T& x) { return old + x; });
  } else {
    detail::transpose_by_faster_route(
        b, a, [op](const T& old, const T& x) { return runtime::combine(op, old, x); });
  }
  sync_all(a.team());
}

}  // namespace pgas
