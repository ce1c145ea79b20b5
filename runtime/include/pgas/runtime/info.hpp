#pragma once
// Typed window-creation hints (MPI-4.1 §12.2.1, window info keys) and the RAII MPI_Info that
// carries them.

#include <pgas/runtime/unique_handle.hpp>

#include <mpi.h>

#include <optional>
#include <string>

namespace pgas::runtime {

struct info_traits {
  using native_type = MPI_Info;
  static MPI_Info null() noexcept { return MPI_INFO_NULL; }
  static void free(MPI_Info& i) noexcept { MPI_Info_free(&i); }
};

/// Owns one MPI_Info; MPI_INFO_NULL when empty. Move-only.
class info {
 public:
  /// Sets key to value, creating the MPI_Info on first use. Local.
  void set(const char* key, const std::string& value);
  [[nodiscard]] MPI_Info native() const noexcept { return handle_.get(); }

 private:
  unique_handle<info_traits> handle_;
};

/// Which accumulate orderings the program relies on (info key accumulate_ordering).
enum class accumulate_ordering { strict, none };
/// Which ops concurrent accumulates to one address use (info key accumulate_ops): always the
/// same op, or the same op or MPI_NO_OP (MPI's default).
enum class accumulate_ops { same_op, same_op_no_op };

/// Assertions a program may make at window creation; each unset field keeps MPI's default.
/// Collective semantics: every process of the window should pass the same hints.
struct window_hints {
  std::optional<bool> no_locks;  ///< no passive-target locks will be used on this window
  std::optional<accumulate_ordering> ordering;
  std::optional<accumulate_ops> ops;
  std::optional<bool> same_size;       ///< every process exposes the same number of bytes
  std::optional<bool> same_disp_unit;  ///< every process uses the same disp_unit
  /// Shared windows only: each process's part on its own pages, first touched by its owner,
  /// rather than all parts in one contiguous block (alloc_shared_noncontig).
  std::optional<bool> shared_noncontig;

  /// The hints as an MPI_Info (MPI_INFO_NULL when none is set). Local.
  [[nodiscard]] info to_info() const;
  /// True when no hint is set. Local.
  [[nodiscard]] bool none_set() const noexcept {
    return !no_locks && !ordering && !ops && !same_size && !same_disp_unit && !shared_noncontig;
  }
};

}  // namespace pgas::runtime
