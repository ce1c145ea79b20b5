#pragma once
// The RAII owner of an MPI_Group.

#include <pgas/runtime/unique_handle.hpp>

#include <mpi.h>

#include <vector>

namespace pgas::runtime {

struct group_traits {
  using native_type = MPI_Group;
  static MPI_Group null() noexcept { return MPI_GROUP_NULL; }
  static void free(MPI_Group& g) noexcept {
    if (g != MPI_GROUP_EMPTY)
      MPI_Group_free(&g);  // MPI_GROUP_EMPTY is predefined: never freed
  }
};

/// Owns one MPI_Group; MPI_GROUP_NULL when empty. Move-only.
class group {
 public:
  group() noexcept = default;
  /// Takes ownership of `handle`.
  explicit group(MPI_Group handle) noexcept : handle_{handle} {}

  /// The subgroup of `from` made of the given ranks, in that order (MPI_Group_incl). Local.
  [[nodiscard]] static group include(MPI_Group from, const std::vector<int>& ranks);
  /// Number of processes in the group. Local.
  [[nodiscard]] int size() const;
  [[nodiscard]] MPI_Group native() const noexcept { return handle_.get(); }

 private:
  unique_handle<group_traits> handle_;
};

}  // namespace pgas::runtime
