#pragma once
// Typed window-creation hints (reference page 000) and the RAII MPI_Info that carries them.

#include <mpi.h>

#include <optional>
#include <string>
#include <utility>

namespace pgas::runtime {

/// Owns one MPI_Info; MPI_INFO_NULL when empty. Move-only.
class info {
 public:
  info() noexcept = default;
  info(const info&) = delete;
  info& operator=(const info&) = delete;
  info(info&& other) noexcept : handle_{std::exchange(other.handle_, MPI_INFO_NULL)} {}
  info& operator=(info&& other) noexcept {
    if (this != &other) {
      release();
      handle_ = std::exchange(other.handle_, MPI_INFO_NULL);
    }
    return *this;
  }
  ~info() { release(); }
  /// Sets key to value, creating the MPI_Info on first use. Local.
  void set(const char* key, const std::string& value);
  [[nodiscard]] MPI_Info native() const noexcept { return handle_; }

 private:
  void release() noexcept;
  MPI_Info handle_ = MPI_INFO_NULL;
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

  /// The hints as an MPI_Info (MPI_INFO_NULL when none is set). Local.
  [[nodiscard]] info to_info() const;
  /// True when no hint is set. Local.
  [[nodiscard]] bool none_set() const noexcept {
    return !no_locks && !ordering && !ops && !same_size && !same_disp_unit;
  }
};

}  // namespace pgas::runtime
