#pragma once
// Pieces the algorithms share: argument checks that all images agree on, and combining one
// partial result per image in image order.

#include <pgas/distributed_range.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/team.hpp>

#include <ranges>

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas::detail {

/// The element type of a distributed range, as values.
template <distributed_range R>
using range_value_t =
    std::remove_cvref_t<std::ranges::range_value_t<decltype(std::declval<R&>().local())>>;

/// Throws usage_error unless both ranges have the same global size. Sizes are the same on every
/// image, so every image throws together without communicating.
inline void require_same_size(const char* algorithm, std::size_t a, std::size_t b) {
  if (a != b) {
    throw usage_error(std::string(algorithm) + ": the ranges have different sizes (" +
                      std::to_string(a) + " and " + std::to_string(b) + ")");
  }
}

/// Makes the team r lives on the team in force while an algorithm works on it, so its
/// collectives, image numbers and sync points are that team's. Local; free when it is the
/// team in force already.
template <distributed_range R>
[[nodiscard]] runtime::acting_team act_on(const R& r) {
  return runtime::acting_team(r.layout().comm);
}

/// True when the two ranges hold the same global indices at the same local positions: the
/// same layout, or equal sizes with nothing to misplace (empty, or all on one image).
template <distributed_range A, distributed_range B>
[[nodiscard]] bool aligned(A& a, B& b) {
  if (a.size() == b.size() && (a.size() == 0 || num_images() == 1))
    return true;
  return a.layout() == b.layout();
}

/// Folds the optional partial results of images 0 .. last-1 with op, in image order (so op
/// need only be associative); nothing if none of them had a part. Collective: every image
/// contributes `mine`.
template <class T, class Op>
[[nodiscard]] std::optional<T> fold_images(const std::optional<T>& mine, Op op, std::size_t last) {
  static_assert(std::is_trivially_copyable_v<T>, "partial results travel as bytes");
  struct part {
    bool present;
    T value;
  };
  part p{mine.has_value(), mine.has_value() ? *mine : T{}};
  const auto bytes = runtime::allgather_bytes(&p, sizeof(part), runtime::current_comm());
  std::optional<T> out;
  for (std::size_t img = 0; img < last; ++img) {
    part q;
    std::memcpy(&q, bytes.data() + img * sizeof(part), sizeof(part));
    if (!q.present)
      continue;
    out = out ? op(*out, q.value) : q.value;
  }
  return out;
}

/// Every image's partial results folded in image order, on every image. Collective.
template <class T, class Op>
[[nodiscard]] std::optional<T> fold_in_image_order(const std::optional<T>& mine, Op op) {
  return fold_images(mine, op, num_images());
}

/// The partial results of the images before this one, folded (an exclusive prefix). Collective.
template <class T, class Op>
[[nodiscard]] std::optional<T> fold_before_me(const std::optional<T>& mine, Op op) {
  return fold_images(mine, op, this_image());
}

/// Throws usage_error on every image unless `root` names an existing image on all of them.
inline void require_root(const char* algorithm, std::size_t root) {
  const long long mine[1] = {static_cast<long long>(root)};
  if (!runtime::same_everywhere(mine, runtime::current_comm()) || root >= num_images()) {
    throw usage_error(std::string(algorithm) + ": root image " + std::to_string(root) +
                      " must exist and be the same on every image");
  }
}

}  // namespace pgas::detail
