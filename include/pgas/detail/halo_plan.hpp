#pragma once
// What one image does to fill its neighbours' ghost cells, worked out once per array: for every
// direction of the 3^N - 1 around its tile (faces, edges, corners), the box of its own elements
// a neighbour's ghost cells mirror. Each neighbouring image gets the boxes of all directions it
// lies in as one put, its datatypes built once; boxes that wrap onto this image's own ghosts (a
// periodic dimension it spans alone) become local copies.
//
// Boxes whose rows are shorter than a cache line (the columns of a grid split along its last
// dimension, corners) travel packed: the sender copies them into one buffer and puts it whole
// into a staging area past the neighbour's tile, and the neighbour moves them into its ghost
// cells once the exchange is complete. Put in place, each such row would be written into a cache
// line that also holds the neighbour's own edge cells, so every line of the edge would cross
// between the processors twice per exchange (a put through shared memory writes it there, the
// neighbour's sweep reads it back); packed, the rows cross in whole lines, as a hand-written
// exchange of a packed column does.
//
// When no peer's memory is mapped here (other nodes, or no shared memory), the same puts travel
// as two-sided messages, and each image receives what its neighbours' puts would write, into
// the same places: a put needs an epoch over the neighbours, and leaving and re-entering the
// window's passive epoch for it waits, under Open MPI between hosts, for each neighbour to
// answer while it computes (0.14-0.6 ms a sweep of the 2000 x 2000 stencil on a 1 x 2 grid).

#include <pgas/boundary.hpp>
#include <pgas/detail/tile_layout.hpp>
#include <pgas/runtime/runs.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace pgas::detail {

/// Rows of a box shorter than this travel packed: a cache line on the processors MPI runs on.
/// A constant, not the machine's figure, because sender and receiver must decide alike.
inline constexpr std::size_t packed_row_bytes = 64;

/// One box of a halo exchange: the sender's cells `sizes` from element `from` of its storage
/// mirror the receiver's ghost cells from element `to` of the receiver's storage.
template <std::size_t N>
struct halo_box {
  std::size_t sender;
  std::size_t receiver;
  std::ptrdiff_t from;
  std::ptrdiff_t to;
  std::array<std::size_t, N> sizes;

  /// True when the box travels packed into the receiver's staging area: its rows are short and
  /// it goes to another image (the same answer on both sides; the staging area's size and its
  /// order both follow this one test).
  template <class T>
  [[nodiscard]] bool staged() const noexcept {
    return receiver != sender && sizes[N - 1] * sizeof(T) < packed_row_bytes;
  }
  [[nodiscard]] std::size_t elements() const noexcept {
    std::size_t n = 1;
    for (const std::size_t s : sizes) n *= s;
    return n;
  }
};

/// Every box image `sender` sends, in an order every image computes alike; none from an empty
/// tile or without a halo. Boxes with receiver == sender wrap onto its own ghosts. Local.
template <std::size_t N>
std::vector<halo_box<N>> boxes_sent_by(const tile_layout<N>& layout,
                                       std::size_t sender,
                                       boundary edges) {
  using index = std::array<std::size_t, N>;
  std::vector<halo_box<N>> boxes;
  const grid<N>& g = layout.process_grid();
  const index mine = g.coordinates(sender);
  const index& h = layout.halos();
  bool any_halo = false;
  for (std::size_t d = 0; d < N; ++d) any_halo = any_halo || h[d] > 0;
  if (layout.empty_tile(mine) || !any_halo)
    return boxes;
  const index n = layout.tile_extents(mine);
  const index strides = layout.strides(mine);
  const bool periodic = edges == boundary::periodic;
  index three{};
  three.fill(3);
  // Every direction: dir[d] = at[d] - 1 in -1, 0, 1.
  for_each_index<N>(three, [&](const index& at) {
    std::array<int, N> dir{};
    for (std::size_t d = 0; d < N; ++d) dir[d] = static_cast<int>(at[d]) - 1;
    // The neighbour's grid position, or none: the centre itself, a dimension without ghosts,
    // or a fixed edge. Positions past owners(d) hold empty tiles: the array's edge.
    bool centre = true;
    index there{};
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t owners = layout.owners(d);
      const bool wraps = dir[d] < 0 ? mine[d] == 0 : mine[d] + 1 == owners;
      if (dir[d] == 0) {
        there[d] = mine[d];
        continue;
      }
      centre = false;
      if (h[d] == 0 || (wraps && !periodic))
        return;
      if (dir[d] < 0)
        there[d] = wraps ? owners - 1 : mine[d] - 1;
      if (dir[d] > 0)
        there[d] = wraps ? 0 : mine[d] + 1;
    }
    if (centre)
      return;
    const index theirs = layout.tile_extents(there);
    std::array<std::ptrdiff_t, N> from{};
    std::array<std::ptrdiff_t, N> to{};
    index sizes{};
    for (std::size_t d = 0; d < N; ++d) {
      const auto hd = static_cast<std::ptrdiff_t>(h[d]);
      const auto nd = static_cast<std::ptrdiff_t>(n[d]);
      if (dir[d] > 0) {  // my last cells become the ghosts before their first
        from[d] = nd - hd;
        to[d] = -hd;
        sizes[d] = h[d];
      } else if (dir[d] < 0) {  // my first cells become the ghosts after their last
        from[d] = 0;
        to[d] = static_cast<std::ptrdiff_t>(theirs[d]);
        sizes[d] = h[d];
      } else {  // the same extent on both sides; outer ghosts of fixed edges travel too
        const bool low_edge = !periodic && mine[d] == 0;
        const bool high_edge = !periodic && mine[d] + 1 == layout.owners(d);
        from[d] = low_edge ? -hd : 0;
        to[d] = from[d];
        sizes[d] = static_cast<std::size_t>((high_edge ? nd + hd : nd) - from[d]);
      }
    }
    boxes.push_back({sender, g.image_at(there), layout.offset_in_tile(from, strides),
                     layout.offset_in_tile(to, layout.strides(there)), sizes});
  });
  return boxes;
}

/// Every box that reaches image `receiver` packed, in the order its staging area holds them:
/// sender by sender (each once, in the order of boxes_sent_by(receiver): neighbours are
/// mutual), each sender's boxes in its own order. Local.
template <class T, std::size_t N>
std::vector<halo_box<N>> packed_boxes_into(const tile_layout<N>& layout,
                                           std::size_t receiver,
                                           boundary edges) {
  std::vector<std::size_t> senders;
  for (const halo_box<N>& b : boxes_sent_by(layout, receiver, edges)) {
    if (b.receiver != receiver &&
        std::find(senders.begin(), senders.end(), b.receiver) == senders.end()) {
      senders.push_back(b.receiver);
    }
  }
  std::vector<halo_box<N>> packed;
  for (const std::size_t s : senders) {
    for (const halo_box<N>& b : boxes_sent_by(layout, s, edges)) {
      if (b.receiver == receiver && b.template staged<T>())
        packed.push_back(b);
    }
  }
  return packed;
}

/// Where image `receiver`'s staging area starts in its storage: past its cells and ghosts, at a
/// cache line's worth of elements. Local.
template <class T, std::size_t N>
std::size_t staging_start(const tile_layout<N>& layout, std::size_t receiver) {
  const std::size_t stored = layout.stored_elements(layout.process_grid().coordinates(receiver));
  const std::size_t line = std::max<std::size_t>(1, packed_row_bytes / sizeof(T));
  return (stored + line - 1) / line * line;
}

/// Elements each image stores for an array of this layout, by image: its cells, its ghosts
/// and, when ghosts reach it packed, their staging area. One pass over every image's boxes.
/// Local.
template <class T, std::size_t N>
std::vector<std::size_t> stored_with_staging(const tile_layout<N>& layout, boundary edges) {
  const std::size_t images = layout.process_grid().images();
  std::vector<std::size_t> staged(images, 0);
  for (std::size_t sender = 0; sender < images; ++sender) {
    for (const halo_box<N>& b : boxes_sent_by(layout, sender, edges)) {
      if (b.template staged<T>())
        staged[b.receiver] += b.elements();
    }
  }
  std::vector<std::size_t> stored(images);
  for (std::size_t image = 0; image < images; ++image) {
    stored[image] = staged[image] == 0
                        ? layout.stored_elements(layout.process_grid().coordinates(image))
                        : staging_start<T>(layout, image) + staged[image];
  }
  return stored;
}

/// Appends the runs (rows along the last dimension) a box of `sizes` covers from offset
/// `first` in storage with `strides`.
template <std::size_t N>
void append_box(runtime::element_runs& runs,
                std::ptrdiff_t first,
                const std::array<std::size_t, N>& sizes,
                const std::array<std::size_t, N>& strides) {
  for_each_box_row_offset<N>(sizes, strides,
                             [&](std::ptrdiff_t row) { runs.add(first + row, sizes[N - 1]); });
}

/// Where image `sender`'s boxes put in place land in image `receiver`'s storage: the runs of
/// the receiver's ghost cells, in the order of the sender's cells (boxes_sent_by's, row by row).
/// The sender's put targets them; a receiver by messages receives into them. One function for
/// both ends, so the two always agree. Local.
template <class T, std::size_t N>
runtime::element_runs ghosts_in_place(const tile_layout<N>& layout,
                                      std::size_t sender,
                                      std::size_t receiver,
                                      boundary edges) {
  runtime::element_runs runs;
  const std::array<std::size_t, N> strides =
      layout.strides(layout.process_grid().coordinates(receiver));
  for (const halo_box<N>& b : boxes_sent_by(layout, sender, edges)) {
    if (b.receiver == receiver && b.receiver != sender && !b.template staged<T>())
      append_box<N>(runs, b.to, b.sizes, strides);
  }
  return runs;
}

/// Moves `runs` to start at element 0 and returns where they started: the displacement a put's
/// or a receive's target side is given.
inline MPI_Aint shift_to_start(runtime::element_runs& runs) {
  const MPI_Aint lowest = runs.lowest();
  runs.shift(-lowest);
  return lowest;
}

/// Where image `sender`'s packed boxes land in image `receiver`'s staging area: `first`
/// elements past its start, `elements` of them (0: none). Local.
struct staged_range {
  std::size_t first = 0;
  std::size_t elements = 0;
};
template <class T, std::size_t N>
staged_range staged_from(const tile_layout<N>& layout,
                         std::size_t sender,
                         std::size_t receiver,
                         boundary edges) {
  staged_range r;
  for (const halo_box<N>& b : packed_boxes_into<T>(layout, receiver, edges)) {
    if (b.sender == sender) {
      r.elements += b.elements();
    } else if (r.elements == 0) {
      r.first += b.elements();
    }
  }
  return r;
}

// Copies the elements of `runs` in `storage`, in run order, to or from `packed` (consecutive).
template <class T>
void gather_runs(const runtime::element_runs& runs, const T* storage, T* packed) {
  for (std::size_t k = 0; k < runs.starts().size(); ++k)
    packed = std::copy_n(storage + runs.starts()[k], runs.lengths()[k], packed);
}
template <class T>
void scatter_runs(const runtime::element_runs& runs, const T* packed, T* storage) {
  for (std::size_t k = 0; k < runs.starts().size(); ++k) {
    std::copy_n(packed, runs.lengths()[k], storage + runs.starts()[k]);
    packed += runs.lengths()[k];
  }
}

template <std::size_t N>
struct halo_plan {
  /// A box copied within this image's storage: element offsets of its first corner at source
  /// and destination, and its sizes.
  struct local_copy {
    std::ptrdiff_t from;
    std::ptrdiff_t to;
    std::array<std::size_t, N> sizes;
  };
  std::vector<runtime::prepared_put> puts;         // from the storage: boxes put in place
  std::vector<runtime::prepared_put> packed_puts;  // from the packed buffer, one per neighbour
  // Peers reached through MPI only: the puts travel as messages, and these receive what each
  // neighbour's puts would write here (runtime::window::begin_neighbour_messages).
  bool by_messages = false;
  std::vector<runtime::prepared_receive> receives;
  std::vector<int> peers;  // the neighbours, each once: they put here as well
  std::vector<local_copy> copies;
  std::array<std::size_t, N> strides{};  // of this image's storage
  runtime::element_runs packed_cells;    // this image's cells in the packed buffer's order
  std::ptrdiff_t staging = 0;            // where packed ghosts arrive in this image's storage
  runtime::element_runs staged_ghosts;   // where they go, in the staging area's order

  /// Performs the local copies in `storage`. Local.
  template <class T>
  void copy_wrapped(T* storage) const {
    for (const local_copy& c : copies) {
      for_each_box_row_offset<N>(c.sizes, strides, [&](std::ptrdiff_t row) {
        std::copy_n(storage + c.from + row, c.sizes[N - 1], storage + c.to + row);
      });
    }
  }
  /// Elements the packed buffer holds.
  [[nodiscard]] std::size_t packed_elements() const noexcept { return packed_cells.elements(); }
  /// Copies the cells that travel packed from `storage` into `packed`. Local.
  template <class T>
  void pack(const T* storage, T* packed) const {
    gather_runs(packed_cells, storage, packed);
  }
  /// Moves the ghosts that arrived packed from the staging area to their places. Local; once
  /// the exchange is complete.
  template <class T>
  void unpack(T* storage) const {
    scatter_runs(staged_ghosts, storage + staging, storage);
  }
};

/// The plan of image `me`, empty for an empty tile or no halo. A ghost cell takes the value its
/// position has in the tile that owns it; with fixed edges, ghost cells outside the array are
/// the program's and travel with the edge rows of a neighbour along another dimension (so
/// corners outside the array agree with the tile beside them). `by_messages`: the peers' memory
/// is not mapped, and the exchange travels as messages. Local.
template <class T, std::size_t N>
halo_plan<N> plan_halo(const tile_layout<N>& layout,
                       std::size_t me,
                       boundary edges,
                       bool by_messages) {
  using index = std::array<std::size_t, N>;
  halo_plan<N> plan;
  plan.by_messages = by_messages;
  const grid<N>& g = layout.process_grid();
  plan.strides = layout.strides(g.coordinates(me));
  // Every direction's box for one neighbour joins that neighbour's one put (with a 2-wide grid
  // and wrap-around, one image is the neighbour above and below); its packed boxes join its one
  // packed put.
  std::vector<runtime::element_runs> origins;  // this image's cells put in place, per neighbour
  std::vector<runtime::element_runs> packed;   // this image's cells sent packed, per neighbour
  for (const halo_box<N>& b : boxes_sent_by(layout, me, edges)) {
    if (b.receiver == me) {
      plan.copies.push_back({b.from, b.to, b.sizes});
      continue;
    }
    auto peer = std::find(plan.peers.begin(), plan.peers.end(), static_cast<int>(b.receiver));
    if (peer == plan.peers.end()) {
      plan.peers.push_back(static_cast<int>(b.receiver));
      origins.emplace_back();
      packed.emplace_back();
      peer = plan.peers.end() - 1;
    }
    const auto k = static_cast<std::size_t>(peer - plan.peers.begin());
    append_box<N>(b.template staged<T>() ? packed[k] : origins[k], b.from, b.sizes, plan.strides);
  }
  const auto staging = static_cast<MPI_Aint>(staging_start<T>(layout, me));
  for (std::size_t k = 0; k < plan.peers.size(); ++k) {
    const auto peer = static_cast<std::size_t>(plan.peers[k]);
    if (!origins[k].empty()) {
      runtime::element_runs targets = ghosts_in_place<T>(layout, me, peer, edges);
      const MPI_Aint at = shift_to_start(targets);
      plan.puts.push_back(runtime::prepare_put_runs<T>(origins[k], plan.peers[k], at, targets));
    }
    if (!packed[k].empty()) {
      // After the neighbour's earlier senders' boxes in its staging area.
      const staged_range into = staged_from<T>(layout, me, peer, edges);
      runtime::element_runs from_buffer;
      from_buffer.add(static_cast<MPI_Aint>(plan.packed_cells.elements()), packed[k].elements());
      runtime::element_runs into_staging;
      into_staging.add(0, packed[k].elements());
      plan.packed_puts.push_back(runtime::prepare_put_runs<T>(
          from_buffer, plan.peers[k],
          static_cast<MPI_Aint>(staging_start<T>(layout, peer) + into.first), into_staging));
      for (std::size_t r = 0; r < packed[k].starts().size(); ++r)
        plan.packed_cells.add(packed[k].starts()[r], packed[k].lengths()[r]);
    }
    if (!by_messages)
      continue;
    // What the neighbour's puts write here (neighbours are mutual), as receives.
    runtime::element_runs ghosts = ghosts_in_place<T>(layout, peer, me, edges);
    if (!ghosts.empty()) {
      const MPI_Aint at = shift_to_start(ghosts);
      plan.receives.push_back(runtime::prepare_receive_runs<T>(plan.peers[k], at, ghosts));
    }
    const staged_range from = staged_from<T>(layout, peer, me, edges);
    if (from.elements > 0) {
      runtime::element_runs staged;
      staged.add(0, from.elements);
      plan.receives.push_back(runtime::prepare_receive_runs<T>(
          plan.peers[k], staging + static_cast<MPI_Aint>(from.first), staged));
    }
  }
  // The ghosts that reach this image packed, in its staging area's order.
  plan.staging = staging;
  const index mine = g.coordinates(me);
  for (const halo_box<N>& b : packed_boxes_into<T>(layout, me, edges))
    append_box<N>(plan.staged_ghosts, b.to, b.sizes, layout.strides(mine));
  return plan;
}

}  // namespace pgas::detail
