#pragma once
// pgas::ndarray: an N-dimensional array split in tiles over a process grid, each dimension in
// balanced blocks, each tile stored with a halo of ghost cells filled from its neighbours by
// exchange_halo() (or exchange_halo_begin() and wait(), to compute while it is in flight).

#include <pgas/boundary.hpp>
#include <pgas/detail/addressable.hpp>
#include <pgas/detail/container_core.hpp>
#include <pgas/detail/halo_plan.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/mapped_parts.hpp>
#include <pgas/detail/tile_layout.hpp>
#include <pgas/detail/type_digest.hpp>
#include <pgas/distributed_range.hpp>
#include <pgas/global_ref.hpp>
#include <pgas/grid.hpp>
#include <pgas/halo_exchange.hpp>
#include <pgas/ndarray_view.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/runs.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/team_window.hpp>
#include <pgas/runtime/window.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas {

/// An N-dimensional array of T (extents e0 x e1 x ...), split over a team's images by a process
/// grid: dimension d in grid.extent(d) balanced blocks (the first blocks one element longer), a
/// grid extent of 1 leaving it whole. Image r owns the tile at grid coordinates
/// grid.coordinates(r) (row-major), stored row-major with halo(d) ghost cells on both sides along
/// each dimension. Collective to construct and destroy, move-only.
template <class T, std::size_t N>
class ndarray {
  static_assert(N >= 1, "pgas::ndarray needs at least one dimension");
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "pgas::ndarray elements must be non-const and trivially copyable");

 public:
  using value_type = T;
  using index_type = std::array<std::size_t, N>;
  static constexpr std::size_t rank = N;

  /// Collective over the team in force, on the grid MPI_Dims_create gives for its size, without
  /// ghost cells.
  explicit ndarray(const index_type& extents)
      : ndarray(current_team(), extents, pgas::grid<N>{}, index_type{}) {}
  /// Collective over the team in force. `g` must hold exactly the team's images (a default grid
  /// lets MPI_Dims_create choose); `halo` ghost cells on every side along every dimension.
  ndarray(const index_type& extents,
          const pgas::grid<N>& g,
          std::size_t halo = 0,
          boundary edges = boundary::fixed,
          const T& initial = T{})
      : ndarray(current_team(), extents, g, all_dimensions(halo), edges, initial) {}
  /// As above, with a halo width per dimension.
  ndarray(const index_type& extents,
          const pgas::grid<N>& g,
          const index_type& halos,
          boundary edges = boundary::fixed,
          const T& initial = T{})
      : ndarray(current_team(), extents, g, halos, edges, initial) {}
  /// Collective over team t: the array lives on t's images, whatever team is in force later.
  ndarray(const pgas::team& t,
          const index_type& extents,
          const pgas::grid<N>& g = {},
          std::size_t halo = 0,
          boundary edges = boundary::fixed,
          const T& initial = T{})
      : ndarray(t, extents, g, all_dimensions(halo), edges, initial) {}
  /// Every element, ghost cells included, starts as `initial`. Throws usage_error on every
  /// image if the images disagree on the shape, if the grid does not hold exactly the team's
  /// images, if a tile that holds elements is thinner than the halo along some dimension (its
  /// ghosts would need cells of two neighbours), or if the element count overflows.
  ndarray(const pgas::team& t,
          const index_type& extents,
          const pgas::grid<N>& g,
          const index_type& halos,
          boundary edges = boundary::fixed,
          const T& initial = T{}) {
    runtime::require_environment("pgas::ndarray");
    // Agreed first, so an image given another grid cannot throw alone and leave the rest waiting.
    require_same_shape(t, extents, g, halos, edges);
    const pgas::grid<N> chosen = choose_grid(t, g);
    require_addressable_shape(extents, halos);
    auto s = std::make_unique<state>();
    s->make_on(t);
    s->edges = edges;
    s->layout = detail::tile_layout<N>(extents, chosen, halos);
    require_tiles_hold_halo(s->layout);
    // Each image's part: its tile with ghosts, then the staging area of ghosts that reach it
    // packed (halo_plan.hpp).
    std::vector<std::size_t> every_bytes = detail::stored_with_staging<T>(s->layout, edges);
    for (std::size_t& b : every_bytes) b *= sizeof(T);
    const std::size_t bytes = every_bytes[s->me];
    s->win = runtime::allocate_team_window(t.native(), bytes, sizeof(T), every_bytes);
    T* base = static_cast<T*>(s->win.base());
    std::uninitialized_fill_n(base, bytes / sizeof(T), initial);
    s->data = std::span<T>(base, s->layout.stored_elements(chosen.coordinates(s->me)));
    s->mapped = detail::mapped_parts<T>(s->win);
    s->halo =
        detail::plan_halo<T, N>(s->layout, s->me, edges, detail::peers_through_mpi_only(s->mapped));
    s->packed.assign(s->halo.packed_elements(), initial);
    s_ = std::move(s);
    runtime::sync_all(t.native());
  }
  // A move hands the state over; handles made through the moved-from array end.
  ndarray(ndarray&& other) noexcept : s_{std::move(other.s_)} {
    if (s_)
      s_->life.renew();
  }
  ndarray& operator=(ndarray&& other) noexcept {
    if (this != &other) {
      s_ = std::move(other.s_);
      if (s_)
        s_->life.renew();
    }
    return *this;
  }
  ndarray(const ndarray&) = delete;
  ndarray& operator=(const ndarray&) = delete;
  /// Collective: every image destroys its array together.
  ~ndarray() = default;

  /// The array's extents, its extent along d and its element count. Local.
  [[nodiscard]] index_type extents() const { return st().layout.extents(); }
  [[nodiscard]] std::size_t extent(std::size_t d) const { return st().layout.extent(d); }
  [[nodiscard]] std::size_t size() const { return st().layout.elements(); }
  /// The process grid the tiles are laid on. Local.
  [[nodiscard]] const pgas::grid<N>& grid() const { return st().layout.process_grid(); }
  /// Ghost cells on each side along d, and how outer ghosts are filled. Local.
  [[nodiscard]] std::size_t halo(std::size_t d) const { return st().layout.halos()[d]; }
  [[nodiscard]] boundary edges() const { return st().edges; }

  /// The image owning element (i, j, ...), numbered in the array's team. Local; throws
  /// out_of_range outside the array.
  template <std::integral... I>
  requires(sizeof...(I) == N) [[nodiscard]] std::size_t owner(I... index) const {
    const index_type at = checked(index...);
    return grid().image_at(st().layout.owner_coordinates(at));
  }
  /// Global element (i, j, ...) on whichever image owns it. Local; throws out_of_range outside
  /// the array.
  template <std::integral... I>
  requires(sizeof...(I) == N) [[nodiscard]] global_ref<T> operator()(I... index) {
    return global_ref<T>{element(checked(index...))};
  }
  template <std::integral... I>
  requires(sizeof...(I) == N) [[nodiscard]] global_ref<const T> operator()(I... index) const {
    return global_ref<const T>{element(checked(index...))};
  }

  /// This image's tile, ghosts included (an empty view where it owns nothing). Local.
  [[nodiscard]] ndarray_view<T, N> local() { return view_of(st()); }
  [[nodiscard]] ndarray_view<const T, N> local() const { return view_of(st()); }
  /// The global index of the tile's first element (its extents are local().extents()). Local.
  [[nodiscard]] index_type local_origin() const {
    return st().layout.tile_origin(grid_coordinates());
  }
  /// This image's grid coordinates. Local.
  [[nodiscard]] index_type grid_coordinates() const { return grid().coordinates(st().me); }

  /// Fills every ghost cell of every tile from the tile that owns its position (with fixed
  /// edges, ghost cells outside the array keep the program's values), corners included: one
  /// put per neighbouring image (all the directions it lies in), and one of the pieces whose
  /// rows are shorter than a cache line, packed (detail/halo_plan.hpp), in an epoch over the
  /// neighbours only.
  /// Collective over the images that own elements. Call once every image has finished writing
  /// its cells and reading its ghosts of the step before.
  void exchange_halo() { exchange_halo_begin().wait(); }
  /// The same, split: issues the puts and returns; the ghosts are filled once wait() returns on
  /// the handle. In between, this image may read every cell it owns and write other arrays.
  [[nodiscard]] halo_exchange exchange_halo_begin() {
    state& s = st();
    s.halo.copy_wrapped(s.data.data());
    if (s.halo.peers.empty())
      return {};
    // Where no peer's memory is mapped the puts travel as messages, every receive posted before
    // anything is sent; otherwise in an epoch over the neighbours (halo_plan.hpp).
    const bool by_messages = s.halo.by_messages;
    if (by_messages) {
      s.win.begin_neighbour_messages();
    } else {
      s.win.begin_neighbourhood_phase(s.halo.peers, s.halo.peers);
    }
    try {
      if (by_messages) {
        for (const runtime::prepared_receive& r : s.halo.receives)
          runtime::receive_prepared(s.win, s.data.data(), r);
      }
      // Packed once the exchange has begun: one still in flight is refused above, before its
      // packed cells are overwritten.
      s.halo.pack(s.data.data(), s.packed.data());
      const auto issue = by_messages ? &runtime::send_prepared : &runtime::put_prepared;
      for (const runtime::prepared_put& p : s.halo.puts) issue(s.win, s.data.data(), p);
      for (const runtime::prepared_put& p : s.halo.packed_puts) issue(s.win, s.packed.data(), p);
    } catch (...) {
      s.win.end_neighbourhood_phase();  // either form
      throw;
    }
    // Ghosts that arrived packed go to their places once the exchange is complete.
    return halo_exchange{s.win, s.life.token(),
                         [](void* arrived) {
                           auto& done = *static_cast<state*>(arrived);
                           done.halo.unpack(done.data.data());
                         },
                         &s};
  }

  /// The element at global index `at` (unchecked) as a global pointer; through a const array,
  /// a pointer to const. Local.
  [[nodiscard]] global_ptr<T> element(const index_type& at) { return element_in<T>(at); }
  [[nodiscard]] global_ptr<const T> element(const index_type& at) const {
    return element_in<const T>(at);
  }
  /// Where the elements are, tile by tile: the library's transfers and algorithms. Local.
  [[nodiscard]] const detail::tile_layout<N>& tiles() const { return st().layout; }
  /// How dimension d is cut over the grid's dimension d: owner(i) is the grid coordinate
  /// holding index i, first_of(c) and local_size(c) that coordinate's slice. Local.
  [[nodiscard]] const block& split(std::size_t d) const { return st().layout.split(d); }

  /// As a distributed range, the array is its own cells (halos excluded) in row-major global
  /// order: local() walks this image's cells, global_index(k) is the row-major index of its
  /// k-th, and two arrays of the same extents on the same grid and team are aligned (layout()).
  /// Local.
  [[nodiscard]] std::size_t global_index(std::size_t k) const {
    const state& s = st();
    const index_type origin = s.layout.tile_origin(grid_coordinates());
    const index_type mine = s.layout.tile_extents(grid_coordinates());
    index_type at{};
    for (std::size_t d = N; d-- > 1;) {
      at[d] = origin[d] + k % mine[d];
      k /= mine[d];
    }
    at[0] = origin[0] + k;
    std::size_t linear = 0;
    for (std::size_t d = 0; d < N; ++d) linear = linear * s.layout.extent(d) + at[d];
    return linear;
  }
  [[nodiscard]] pgas::layout layout() const {
    const state& s = st();
    // Extents and grid decide every cell's image and local position: their digest stands for
    // the tiling.
    std::size_t digest = N;
    const auto mix = [&digest](std::size_t v) {
      digest = (digest ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
    };
    for (std::size_t d = 0; d < N; ++d) {
      mix(s.layout.extent(d));
      mix(grid().extent(d));
    }
    return {distribution_kind::tiles, N, digest, size(), 0, size(), s.home->native()};
  }
  /// The window behind the array. Local.
  [[nodiscard]] runtime::window& window(pgas::detail::internal_only) const { return st().win; }
  /// What this array's handles hold to know it still lives here (runtime/lifetime.hpp). Local.
  [[nodiscard]] runtime::lifetime_token lifetime(pgas::detail::internal_only) const {
    return st().life.token();
  }
  /// The team the array was made on; owner() numbers its images. Local.
  [[nodiscard]] const pgas::team& team() const { return *st().home; }
  /// Collective over the array's own team (not the team in force): a sync point for the images
  /// that share the array.
  void sync() const { st().sync(); }

 private:
  // The core (team, image, window, mapped parts: container_core.hpp), and the tiles'.
  struct state : detail::container_core<T> {
    boundary edges = boundary::fixed;
    detail::tile_layout<N> layout;
    std::span<T> data;
    detail::halo_plan<N> halo;
    std::vector<T> packed;  // the cells a halo exchange sends packed (halo_plan.hpp)
  };
  template <class U>
  [[nodiscard]] global_ptr<U> element_in(const index_type& at) const {
    const state& s = st();
    const auto place = s.layout.locate(at);
    T* here = detail::address_here(place.image, s.me, s.data.data(), s.mapped, place.offset);
    return global_ptr<U>(pgas::detail::internal, &s.win, s.life.token(), place.image,
                         static_cast<MPI_Aint>(place.offset), 1, here, place.image == s.me);
  }
  [[nodiscard]] state& st() const { return detail::live_state(s_, "pgas::ndarray"); }
  static index_type all_dimensions(std::size_t halo) {
    index_type h{};
    h.fill(halo);
    return h;
  }
  static ndarray_view<T, N> view_of(const state& s) {
    const index_type mine = s.layout.process_grid().coordinates(s.me);
    const index_type n = s.layout.empty_tile(mine) ? index_type{} : s.layout.tile_extents(mine);
    return ndarray_view<T, N>(s.data, n, s.layout.halos());
  }
  template <class... I>
  [[nodiscard]] index_type checked(I... index) const {
    const std::array<long long, N> given{static_cast<long long>(index)...};
    index_type at{};
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t n = st().layout.extent(d);
      if (given[d] < 0 || static_cast<unsigned long long>(given[d]) >= n) {
        throw out_of_range("pgas::ndarray: index " + std::to_string(given[d]) + " in dimension " +
                           std::to_string(d) + " is outside [0, " + std::to_string(n) + ")");
      }
      at[d] = static_cast<std::size_t>(given[d]);
    }
    return at;
  }
  static pgas::grid<N> choose_grid(const pgas::team& t, const pgas::grid<N>& g) {
    if (g.unspecified()) {
      const std::vector<std::size_t> dims = runtime::balanced_grid(t.size(), N);
      index_type e{};
      std::copy(dims.begin(), dims.end(), e.begin());
      return pgas::grid<N>(e);
    }
    if (g.images() != t.size() ||
        std::find(g.extents().begin(), g.extents().end(), 0) != g.extents().end()) {
      std::string shape;
      for (std::size_t d = 0; d < N; ++d) shape += (d ? " x " : "") + std::to_string(g.extent(d));
      throw usage_error("pgas::ndarray: a " + shape + " grid holds " + std::to_string(g.images()) +
                        " images; the team has " + std::to_string(t.size()));
    }
    return g;
  }
  static void require_same_shape(const pgas::team& t,
                                 const index_type& extents,
                                 const pgas::grid<N>& g,
                                 const index_type& halos,
                                 boundary edges) {
    std::vector<long long> shape;
    for (std::size_t d = 0; d < N; ++d) {
      shape.push_back(static_cast<long long>(extents[d]));
      shape.push_back(static_cast<long long>(g.extent(d)));
      shape.push_back(static_cast<long long>(halos[d]));
    }
    shape.push_back(static_cast<long long>(edges));
    shape.push_back(static_cast<long long>(sizeof(T)));
    shape.push_back(detail::type_digest<T>());
    detail::require_same_container("pgas::ndarray", t, shape,
                                   "the extents, grid, halo, boundary or element type");
  }
  // Each dimension first, so the sums below cannot wrap; then the product with ghosts.
  static void require_addressable_shape(const index_type& extents, const index_type& halos) {
    std::size_t product = 1;
    for (std::size_t d = 0; d < N; ++d) {
      detail::require_addressable<T>("pgas::ndarray", extents[d]);
      detail::require_addressable<T>("pgas::ndarray", halos[d], 4);
      const std::size_t with_ghosts = extents[d] + 2 * halos[d];
      detail::require_addressable<T>("pgas::ndarray", product, with_ghosts);
      product *= with_ghosts;
    }
  }
  static void require_tiles_hold_halo(const detail::tile_layout<N>& layout) {
    if (layout.elements() == 0)
      return;  // no tile holds anything
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t h = layout.halos()[d];
      for (std::size_t c = 0; c < layout.owners(d); ++c) {
        const std::size_t n = layout.split(d).local_size(c);
        if (n < h) {
          throw usage_error("pgas::ndarray: tiles at grid position " + std::to_string(c) +
                            " along dimension " + std::to_string(d) + " hold " + std::to_string(n) +
                            " elements, fewer than the halo of " + std::to_string(h) +
                            "; use a smaller grid along it or a smaller halo");
        }
      }
    }
  }
  std::unique_ptr<state> s_;
};

}  // namespace pgas
