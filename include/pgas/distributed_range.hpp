#pragma once
// What makes a range distributed: every image sees its own local part, knows each local
// element's global index, and can tell whether two ranges are laid out alike (aligned).

#include <pgas/distribution.hpp>

#include <mpi.h>
#include <range/v3/range/concepts.hpp>

#include <concepts>
#include <cstddef>

namespace pgas {

/// How a distributed range is laid over the images: its distribution (kind, parameter and cut
/// digest, as the distribution reports them, over `extent` elements of the underlying
/// container) and the window [start, start + size) of that container it covers. Two ranges with
/// equal layouts hold the same global indices on the same images at the same local positions, so
/// algorithms may pair their local parts directly.
struct layout {
  distribution_kind kind = distribution_kind::block;
  std::size_t parameter = 0;
  std::size_t cut_digest = 0;
  std::size_t extent = 0;
  std::size_t start = 0;
  std::size_t size = 0;
  /// The communicator of the container's team: ranges on different teams are never aligned.
  MPI_Comm comm = MPI_COMM_NULL;
  friend bool operator==(const layout&, const layout&) = default;
  /// True when global order is image 0's local part, then image 1's, and so on (a block layout
  /// over a whole container, or a piece of one). Scans and sorts rely on it.
  [[nodiscard]] bool image_ordered() const noexcept { return kind == distribution_kind::block; }
};

/// A range every image holds a part of. `local()` is this image's part in local order, and
/// `global_index(k)` the global index (in [0, size())) of local element k, increasing with k.
template <class R>
concept distributed_range = requires(R& r, std::size_t k) {
  { r.size() } -> std::convertible_to<std::size_t>;
  { r.local() } -> ranges::random_access_range;  // range-v3's concept: its views qualify too
  { r.global_index(k) } -> std::convertible_to<std::size_t>;
  { r.layout() } -> std::same_as<layout>;
};

}  // namespace pgas
