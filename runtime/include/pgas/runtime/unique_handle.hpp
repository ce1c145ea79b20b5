#pragma once
// One move-only owner for MPI's handle types (group, request, info, datatype): what differs
// between them is only the null value and how a handle is given back to MPI.

#include <utility>

namespace pgas::runtime {

/// Owns one handle of `Traits::native_type`. `Traits` provides `null()` and
/// `free(native_type&) noexcept`, which gives the handle back to MPI; an empty owner holds
/// null(). Null is a function, not a constant: Open MPI's handles are addresses of library
/// objects, known only at run time.
template <class Traits>
class unique_handle {
 public:
  using native_type = typename Traits::native_type;

  unique_handle() noexcept : handle_{Traits::null()} {}
  /// Takes ownership of `handle`.
  explicit unique_handle(native_type handle) noexcept : handle_{handle} {}
  unique_handle(const unique_handle&) = delete;
  unique_handle& operator=(const unique_handle&) = delete;
  unique_handle(unique_handle&& other) noexcept : handle_{other.release()} {}
  unique_handle& operator=(unique_handle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.release();
    }
    return *this;
  }
  ~unique_handle() { reset(); }

  [[nodiscard]] native_type get() const noexcept { return handle_; }
  /// Where an MPI call that creates or completes the handle writes it. The owner must be
  /// empty before a creating call.
  [[nodiscard]] native_type* out() noexcept { return &handle_; }
  [[nodiscard]] bool empty() const noexcept { return handle_ == Traits::null(); }
  /// Gives the handle back to MPI, if any; the owner is empty afterwards.
  void reset() noexcept {
    if (!empty())
      Traits::free(handle_);
    handle_ = Traits::null();
  }
  /// Stops owning the handle and returns it.
  [[nodiscard]] native_type release() noexcept { return std::exchange(handle_, Traits::null()); }

 private:
  native_type handle_;
};

}  // namespace pgas::runtime
