#pragma once
// pgas::matrix: a 2-D array distributed by blocks of rows, with a halo of ghost cells around
// each image's part, filled from the neighbours by exchange_halo().

#include <pgas/boundary.hpp>
#include <pgas/detail/addressable.hpp>
#include <pgas/detail/mapped_parts.hpp>
#include <pgas/distribution.hpp>
#include <pgas/global_ref.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/window.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/team_window.hpp>
#include <pgas/tile_view.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas {

/// A rows x cols matrix of T. Rows are split over the images in blocks (as pgas::block does);
/// each image stores its rows plus `halo` ghost rows above and below and `halo` ghost columns on
/// each side. Collective to construct and destroy, move-only.
template <class T>
class matrix {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "pgas::matrix elements must be non-const and trivially copyable");

 public:
  /// Collective. Every element, ghost cells included, starts as `initial`. Throws usage_error
  /// on every image if the images disagree on the shape, or if an image that owns rows owns
  /// fewer than `halo` of them (its ghosts would need rows of two neighbours).
  matrix(std::size_t rows, std::size_t cols, std::size_t halo = 1,
         boundary edges = boundary::fixed, const T& initial = T{})
      : matrix(current_team(), rows, cols, halo, edges, initial) {}
  /// Collective over team t: the matrix's rows are split over t's images.
  matrix(const pgas::team& t, std::size_t rows, std::size_t cols, std::size_t halo = 1,
         boundary edges = boundary::fixed, const T& initial = T{}) {
    runtime::require_environment("pgas::matrix");
    const long long shape[5] = {static_cast<long long>(rows), static_cast<long long>(cols),
                                static_cast<long long>(halo), static_cast<long long>(edges),
                                static_cast<long long>(sizeof(T))};
    if (!runtime::same_everywhere(shape, t.native())) {
      throw usage_error("pgas::matrix: images disagree on rows, columns, halo, boundary or type");
    }
    // Each term first, so the sums below cannot wrap; their product bounds every image's part,
    // ghosts included.
    detail::require_addressable<T>("pgas::matrix", rows);
    detail::require_addressable<T>("pgas::matrix", cols);
    detail::require_addressable<T>("pgas::matrix", halo, 4);
    detail::require_addressable<T>("pgas::matrix", rows + 2 * halo, cols + 2 * halo);
    auto s = std::make_unique<state>();
    s->home = t;
    s->rows = block{}.bind(rows, t.size());
    s->cols = cols;
    s->halo = halo;
    s->edges = edges;
    s->me = t.rank();
    s->width = cols + 2 * halo;
    // Every image's part, ghost rows included, is known here: no exchange of sizes, and the
    // window can come from the runtime's pool of released windows.
    std::vector<std::size_t> every_bytes(t.size(), 0);
    for (std::size_t img = 0; img < t.size(); ++img) {
      const std::size_t mine = s->rows.local_size(img);
      if (mine > 0 && mine < halo) {
        throw usage_error("pgas::matrix: image " + std::to_string(img) + " would own " +
                          std::to_string(mine) + " rows, fewer than the halo of " +
                          std::to_string(halo) + "; use fewer images or a smaller halo");
      }
      if (mine > 0) s->owners = img + 1;  // images owning rows are 0 .. owners-1
      if (mine > 0) every_bytes[img] = (mine + 2 * halo) * s->width * sizeof(T);
    }
    const std::size_t bytes = every_bytes[s->me];
    s->win = runtime::allocate_team_window(t.native(), bytes, sizeof(T), every_bytes);
    s->data = std::span<T>(static_cast<T*>(s->win.base()), bytes / sizeof(T));
    s->mapped = detail::mapped_parts<T>(s->win);
    std::uninitialized_fill(s->data.begin(), s->data.end(), initial);
    s_ = std::move(s);
    runtime::sync_all(t.native());
  }

  [[nodiscard]] std::size_t rows() const { return st().rows.size(); }
  [[nodiscard]] std::size_t cols() const { return st().cols; }
  [[nodiscard]] std::size_t halo() const { return st().halo; }
  [[nodiscard]] boundary edges() const { return st().edges; }
  /// Rows this image owns, and the global index of the first. Local.
  [[nodiscard]] std::size_t local_rows() const { return st().rows.local_size(st().me); }
  [[nodiscard]] std::size_t first_row() const { return st().rows.first_of(st().me); }
  /// The image that owns global row i. Local.
  [[nodiscard]] std::size_t owner(std::size_t i) const {
    if (i >= rows()) runtime::throw_out_of_range("row", i, rows());
    return st().rows.owner(i);
  }
  /// Elements from one local row to the next (columns plus both halos). Local.
  [[nodiscard]] std::size_t stride() const { return st().width; }

  /// This image's rows, ghosts included, as a view: `local()(i, j)` for i in [-halo,
  /// local_rows + halo) and j in [-halo, cols + halo), `local().row(i)`. Read-only through a
  /// const matrix. Local.
  [[nodiscard]] tile_view<T> local() { return view_of(st()); }
  [[nodiscard]] tile_view<const T> local() const { return view_of(st()); }

  /// Global element (i, j) on whichever image owns it. Local; throws out_of_range outside
  /// the matrix.
  [[nodiscard]] global_ref<T> operator()(std::size_t i, std::size_t j) {
    return global_ref<T>{element(i, j)};
  }
  [[nodiscard]] global_ref<const T> operator()(std::size_t i, std::size_t j) const {
    return global_ref<const T>{element(i, j)};
  }

  /// Collective: fills every image's ghost rows from its neighbours' edge rows with one put
  /// each, in a post/start/complete/wait epoch over the neighbours only; ghost columns come
  /// from the image's own edge columns when periodic. Call after every image finished writing
  /// its interior and reading its ghosts of the previous step.
  void exchange_halo() {
    state& s = st();
    const std::size_t mine = local_rows();
    if (mine == 0 || s.halo == 0) return;
    const bool periodic = s.edges == boundary::periodic;
    const auto h = static_cast<std::ptrdiff_t>(s.halo);
    const auto n = static_cast<std::ptrdiff_t>(mine);
    const auto c = static_cast<std::ptrdiff_t>(s.cols);
    const tile_view<T> tile = view_of(s);
    if (periodic) {
      for (std::ptrdiff_t i = 0; i < n; ++i) {
        T* row = tile.row(i);
        std::copy_n(row + c - h, h, row - h);  // left ghosts <- rightmost columns
        std::copy_n(row, h, row + c);          // right ghosts <- leftmost columns
      }
    }
    const std::size_t block_elements = s.halo * s.width;
    const std::span<const T> first_rows(&tile(0, -h), block_elements);
    const std::span<const T> last_rows(&tile(n - h, -h), block_elements);
    const auto up = neighbour(s, -1);
    const auto down = neighbour(s, +1);
    if (up && *up == s.me) {  // the only image with rows, periodic: wrap locally
      std::copy(last_rows.begin(), last_rows.end(), &tile(-h, -h));
      std::copy(first_rows.begin(), first_rows.end(), &tile(n, -h));
      return;
    }
    std::vector<int> peers;
    if (up) peers.push_back(static_cast<int>(*up));
    if (down && down != up) peers.push_back(static_cast<int>(*down));
    s.win.begin_neighbourhood_phase(peers, peers);
    if (up) {  // my first rows become the bottom ghost rows of the image above
      const auto above_rows = s.rows.local_size(*up);
      runtime::put(s.win, first_rows, static_cast<int>(*up),
                   static_cast<MPI_Aint>((above_rows + s.halo) * s.width));
    }
    if (down) runtime::put(s.win, last_rows, static_cast<int>(*down), 0);
    s.win.end_neighbourhood_phase();
  }

  /// The window behind the matrix, for phases. Local.
  [[nodiscard]] runtime::window& window() const { return st().win; }
  /// The team the matrix was made on; owner() numbers its images. Local.
  [[nodiscard]] const pgas::team& team() const { return *st().home; }

 private:
  struct state {
    std::optional<pgas::team> home;  // the team it was made on
    block rows;
    std::size_t cols = 0;
    std::size_t halo = 0;
    boundary edges = boundary::fixed;
    std::size_t me = 0;
    std::size_t width = 0;
    std::size_t owners = 0;
    mutable runtime::window win;
    std::span<T> data;
    std::vector<T*> mapped;  // every image's part as mapped here (one node), or empty
  };
  [[nodiscard]] state& st() const {
    if (!s_) throw usage_error("use of a moved-from pgas::matrix");
    return *s_;
  }
  static tile_view<T> view_of(const state& s) noexcept {
    return tile_view<T>(s.data, s.rows.local_size(s.me), s.cols, s.halo, s.width);
  }
  // The image owning rows above (-1) or below (+1) this one, if any.
  static std::optional<std::size_t> neighbour(const state& s, int direction) {
    const bool periodic = s.edges == boundary::periodic;
    if (direction < 0) {
      if (s.me > 0) return s.me - 1;
      return periodic ? std::optional<std::size_t>(s.owners - 1) : std::nullopt;
    }
    if (s.me + 1 < s.owners) return s.me + 1;
    return periodic ? std::optional<std::size_t>(0) : std::nullopt;
  }
  [[nodiscard]] global_ptr<T> element(std::size_t i, std::size_t j) const {
    const state& s = st();
    if (i >= rows()) runtime::throw_out_of_range("row", i, rows());
    if (j >= s.cols) runtime::throw_out_of_range("column", j, s.cols);
    const std::size_t img = s.rows.owner(i);
    const std::size_t off = (s.rows.local_offset(i) + s.halo) * s.width + j + s.halo;
    T* local_ptr = detail::address_here(img, s.me, s.data.data(), s.mapped, off);
    return global_ptr<T>(detail::made_by_container{}, &s.win, img, static_cast<MPI_Aint>(off), 1,
                         local_ptr, img == s.me);
  }
  std::unique_ptr<state> s_;
};

}  // namespace pgas
