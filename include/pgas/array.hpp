#pragma once
// pgas::array: a fixed-size global array, distributed over all images, in one allocated window.

#include <pgas/detail/storage.hpp>
#include <pgas/distribution.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/team_window.hpp>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

namespace pgas {

/// A global array of n elements of T spread over a team's images by `Dist` (block by default).
/// `a[i]` reads and writes any element from any image; `a.local()` is this image's part.
/// Collective to construct and to destroy, move-only.
template <class T, distribution Dist = block>
class array : public detail::storage<T, Dist> {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "pgas::array elements must be non-const and trivially copyable: they travel "
                "through MPI as bytes");
  using base = detail::storage<T, Dist>;

 public:
  /// Collective over the team in force (pgas::current_team()). n elements, each T{} (or
  /// `initial`), laid out by `dist`. Throws usage_error on every image if the images pass
  /// different sizes or distributions.
  explicit array(std::size_t n, Dist dist = {}) : array(current_team(), n, dist, T{}) {}
  array(std::size_t n, Dist dist, const T& initial) : array(current_team(), n, dist, initial) {}
  /// Collective over team t: the array lives on t's images, whatever team is in force later.
  array(const pgas::team& t, std::size_t n, Dist dist = {}) : array(t, n, dist, T{}) {}
  array(const pgas::team& t, std::size_t n, Dist dist, const T& initial) {
    detail::require_same_everywhere<T, Dist>("pgas::array", t, n, dist);
    auto s = base::new_state(t, dist, n);
    const std::size_t mine = s->dist.local_size(s->me);
    std::vector<std::size_t> every(t.size());
    for (std::size_t img = 0; img < every.size(); ++img)
      every[img] = s->dist.local_size(img) * sizeof(T);
    s->win = runtime::allocate_team_window(t.native(), mine * sizeof(T), sizeof(T), every);
    s->local = std::span<T>(static_cast<T*>(s->win.base()), mine);
    s->mapped = detail::mapped_parts<T>(s->win);
    std::uninitialized_fill(s->local.begin(), s->local.end(), initial);
    this->adopt(std::move(s));
  }
  array(array&&) noexcept = default;
  array& operator=(array&&) noexcept = default;
  array(const array&) = delete;
  array& operator=(const array&) = delete;
  /// Collective: every image destroys its array together.
  ~array() = default;
};

}  // namespace pgas
