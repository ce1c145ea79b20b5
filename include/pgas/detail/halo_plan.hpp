#pragma once
// What one image does to fill its neighbours' ghost cells, worked out once per array: for every
// direction of the 3^N - 1 around its tile (faces, edges, corners), the box of its own elements
// a neighbour's ghost cells mirror. Each neighbouring image gets the boxes of all directions it
// lies in as one put, its datatypes built once; boxes that wrap onto this image's own ghosts (a
// periodic dimension it spans alone) become local copies.

#include <pgas/boundary.hpp>
#include <pgas/detail/tile_layout.hpp>
#include <pgas/runtime/runs.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace pgas::detail {

template <std::size_t N>
struct halo_plan {
  /// A box copied within this image's storage: element offsets of its first corner at source
  /// and destination, and its sizes.
  struct local_copy {
    std::ptrdiff_t from;
    std::ptrdiff_t to;
    std::array<std::size_t, N> sizes;
  };
  std::vector<runtime::prepared_put> puts;  // one per neighbouring image: all its directions
  std::vector<int> peers;                   // those neighbours, each once: they put here as well
  std::vector<local_copy> copies;
  std::array<std::size_t, N> strides{};  // of this image's storage

  /// Performs the local copies in `storage`. Local.
  template <class T>
  void copy_wrapped(T* storage) const {
    for (const local_copy& c : copies) {
      for_each_box_row<N>(c.sizes, [&](const std::array<std::size_t, N>& at) {
        std::ptrdiff_t row = 0;
        for (std::size_t d = 0; d + 1 < N; ++d)
          row += static_cast<std::ptrdiff_t>(at[d] * strides[d]);
        std::copy_n(storage + c.from + row, c.sizes[N - 1], storage + c.to + row);
      });
    }
  }
};

/// Appends the runs (rows along the last dimension) a box of `sizes` covers from offset
/// `first` in storage with `strides`.
template <std::size_t N>
void append_box(runtime::element_runs& runs,
                std::ptrdiff_t first,
                const std::array<std::size_t, N>& sizes,
                const std::array<std::size_t, N>& strides) {
  for_each_box_row<N>(sizes, [&](const std::array<std::size_t, N>& at) {
    std::ptrdiff_t row = first;
    for (std::size_t d = 0; d + 1 < N; ++d) row += static_cast<std::ptrdiff_t>(at[d] * strides[d]);
    runs.add(row, sizes[N - 1]);
  });
}

/// The plan of image `me`, empty for an empty tile or no halo. A ghost cell takes the value its
/// position has in the tile that owns it; with fixed edges, ghost cells outside the array are
/// the program's and travel with the edge rows of a neighbour along another dimension (so
/// corners outside the array agree with the tile beside them). Local.
template <class T, std::size_t N>
halo_plan<N> plan_halo(const tile_layout<N>& layout, std::size_t me, boundary edges) {
  using index = std::array<std::size_t, N>;
  halo_plan<N> plan;
  const grid<N>& g = layout.process_grid();
  const index mine = g.coordinates(me);
  const index& h = layout.halos();
  plan.strides = layout.strides(mine);
  bool any_halo = false;
  for (std::size_t d = 0; d < N; ++d) any_halo = any_halo || h[d] > 0;
  if (layout.empty_tile(mine) || !any_halo)
    return plan;
  const index n = layout.tile_extents(mine);
  const bool periodic = edges == boundary::periodic;
  // Every direction's box for one neighbour joins that neighbour's one put (with a 2-wide grid
  // and wrap-around, one image is the neighbour above and below).
  std::vector<runtime::element_runs> origins;
  std::vector<runtime::element_runs> targets;  // offsets in the neighbour's storage

  index three{};
  three.fill(3);
  // Every direction: dir[d] = at[d] - 1 in -1, 0, 1.
  for_each_index<N>(three, [&](const index& at) {
    std::array<int, N> dir{};
    for (std::size_t d = 0; d < N; ++d) dir[d] = static_cast<int>(at[d]) - 1;
    // The neighbour's grid position, or none: the centre itself, a dimension without ghosts,
    // or a fixed edge.
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
    const std::size_t image = g.image_at(there);
    const std::ptrdiff_t source = layout.offset_in_tile(from, plan.strides);
    const index their_strides = layout.strides(there);
    const std::ptrdiff_t target = layout.offset_in_tile(to, their_strides);
    if (image == me) {
      plan.copies.push_back({source, target, sizes});
    } else {
      auto peer = std::find(plan.peers.begin(), plan.peers.end(), static_cast<int>(image));
      if (peer == plan.peers.end()) {
        plan.peers.push_back(static_cast<int>(image));
        origins.emplace_back();
        targets.emplace_back();
        peer = plan.peers.end() - 1;
      }
      const auto k = static_cast<std::size_t>(peer - plan.peers.begin());
      append_box<N>(origins[k], source, sizes, plan.strides);
      append_box<N>(targets[k], target, sizes, their_strides);
    }
  });
  for (std::size_t k = 0; k < plan.peers.size(); ++k) {
    const MPI_Aint lowest = targets[k].lowest();
    targets[k].shift(-lowest);
    plan.puts.push_back(
        runtime::prepare_put_runs<T>(origins[k], plan.peers[k], lowest, targets[k]));
  }
  return plan;
}

}  // namespace pgas::detail
