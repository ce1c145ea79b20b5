#pragma once
// Pieces the algorithms share: argument checks that all images agree on, and combining one
// partial result per image in image order.

#include <pgas/distributed_range.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>

#include <cstddef>
#include <cstring>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas::detail {

/// The element type of a distributed range, as values.
template <distributed_range R>
using range_value_t = std::remove_cvref_t<std::ranges::range_value_t<decltype(std::declval<R&>().local())>>;

/// Throws usage_error unless both ranges have the same global size. Sizes are the same on every
/// image, so every image throws together without communicating.
inline void require_same_size(const char* algorithm, std::size_t a, std::size_t b) {
  if (a != b) {
    throw usage_error(std::string(algorithm) + ": the ranges have different sizes (" +
                      std::to_string(a) + " and " + std::to_string(b) + ")");
  }
}

/// True when the two ranges hold the same global indices at the same local positions.
template <distributed_range A, distributed_range B>
[[nodiscard]] bool aligned(A& a, B& b) {
  return a.layout() == b.layout();
}

/// Folds each image's optional partial result with op, in image order (so op need only be
/// associative), and returns the fold on every image; nothing if no image had a part.
/// Collective.
template <class T, class Op>
[[nodiscard]] std::optional<T> fold_in_image_order(const std::optional<T>& mine, Op op) {
  static_assert(std::is_trivially_copyable_v<T>, "partial results travel as bytes");
  struct part {
    bool present;
    T value;
  };
  part p{mine.has_value(), mine.has_value() ? *mine : T{}};
  const auto bytes = runtime::allgather_bytes(&p, sizeof(part), runtime::world_comm());
  std::optional<T> out;
  for (std::size_t img = 0; img < num_images(); ++img) {
    part q;
    std::memcpy(&q, bytes.data() + img * sizeof(part), sizeof(part));
    if (!q.present) continue;
    out = out ? op(*out, q.value) : q.value;
  }
  return out;
}

/// Like fold_in_image_order, but only over images before this one (an exclusive prefix).
template <class T, class Op>
[[nodiscard]] std::optional<T> fold_before_me(const std::optional<T>& mine, Op op) {
  struct part {
    bool present;
    T value;
  };
  part p{mine.has_value(), mine.has_value() ? *mine : T{}};
  const auto bytes = runtime::allgather_bytes(&p, sizeof(part), runtime::world_comm());
  std::optional<T> out;
  for (std::size_t img = 0; img < this_image(); ++img) {
    part q;
    std::memcpy(&q, bytes.data() + img * sizeof(part), sizeof(part));
    if (!q.present) continue;
    out = out ? op(*out, q.value) : q.value;
  }
  return out;
}

/// Throws usage_error on every image unless `root` names an existing image on all of them.
inline void require_root(const char* algorithm, std::size_t root) {
  const long long mine[1] = {static_cast<long long>(root)};
  if (!runtime::same_everywhere(mine, runtime::world_comm()) || root >= num_images()) {
    throw usage_error(std::string(algorithm) + ": root image " + std::to_string(root) +
                      " must exist and be the same on every image");
  }
}

}  // namespace pgas::detail
