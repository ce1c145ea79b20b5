#pragma once
// pgas::array_view: a global array over memory the caller already has (MPI_Win_create).

#include <pgas/detail/storage.hpp>
#include <pgas/distribution.hpp>
#include <pgas/runtime/sync.hpp>

#include <memory>
#include <string>
#include <type_traits>

namespace pgas {

/// Exposes each image's `mine` as its part of a global array of n elements laid out by Dist.
/// The memory stays the caller's: it must outlive the view and is not freed by it. Each image's
/// span must hold exactly the elements Dist gives it. Collective to construct and destroy.
template <class T, distribution Dist = block>
class array_view : public detail::storage<T, Dist> {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "pgas::array_view elements must be non-const and trivially copyable");
  using base = detail::storage<T, Dist>;

 public:
  /// Collective over the team in force. Throws usage_error on every image if any image's span
  /// has the wrong length, or the images disagree on n or the distribution.
  array_view(std::span<T> mine, std::size_t n, Dist dist = {})
      : array_view(current_team(), mine, n, dist) {}
  /// Collective over team t: the view spans t's images.
  array_view(const pgas::team& t, std::span<T> mine, std::size_t n, Dist dist = {}) {
    detail::require_same_everywhere<T, Dist>("pgas::array_view", t, n, dist);
    auto s = base::new_state(t, dist, n);
    const std::size_t expected = s->dist.local_size(s->me);
    if (!runtime::everyone(mine.size() == expected, t.native())) {
      throw usage_error("pgas::array_view: an image's memory does not match its share of " +
                        std::to_string(n) + " elements (image " + std::to_string(s->me) +
                        " passed " + std::to_string(mine.size()) + ", its share is " +
                        std::to_string(expected) + ")");
    }
    s->win = runtime::window::create(t.native(), mine.data(), mine.size_bytes(), sizeof(T));
    s->local = mine;
    this->adopt(std::move(s));
  }
  array_view(array_view&&) noexcept = default;
  array_view& operator=(array_view&&) noexcept = default;
  array_view(const array_view&) = delete;
  array_view& operator=(const array_view&) = delete;
  ~array_view() = default;
};

}  // namespace pgas
