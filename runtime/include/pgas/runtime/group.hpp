#pragma once
// The RAII owner of an MPI_Group.

#include <mpi.h>

#include <utility>
#include <vector>

namespace pgas::runtime {

/// Owns one MPI_Group; MPI_GROUP_NULL when empty. Move-only.
class group {
 public:
  group() noexcept = default;
  /// Takes ownership of `handle`.
  explicit group(MPI_Group handle) noexcept : handle_{handle} {}
  group(const group&) = delete;
  group& operator=(const group&) = delete;
  group(group&& other) noexcept : handle_{std::exchange(other.handle_, MPI_GROUP_NULL)} {}
  group& operator=(group&& other) noexcept {
    if (this != &other) {
      release();
      handle_ = std::exchange(other.handle_, MPI_GROUP_NULL);
    }
    return *this;
  }
  ~group() { release(); }

  /// The subgroup of `from` made of the given ranks, in that order (MPI_Group_incl). Local.
  [[nodiscard]] static group include(MPI_Group from, const std::vector<int>& ranks);
  /// Number of processes in the group. Local.
  [[nodiscard]] int size() const;
  /// The ranks, in `other`, of this group's ranks 0..size()-1 (MPI_Group_translate_ranks). Local.
  [[nodiscard]] std::vector<int> ranks_in(MPI_Group other) const;
  [[nodiscard]] MPI_Group native() const noexcept { return handle_; }

 private:
  void release() noexcept;
  MPI_Group handle_ = MPI_GROUP_NULL;
};

}  // namespace pgas::runtime
