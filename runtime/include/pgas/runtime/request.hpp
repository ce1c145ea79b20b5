#pragma once
// The RAII owner of one request-based RMA operation (MPI_Rput, MPI_Rget, ...).

#include <mpi.h>

#include <utility>

namespace pgas::runtime {

/// A pending request. Completion means the origin side is done: an rput's buffer may be
/// reused, an rget's data has arrived. Remote completion of a put still needs a flush or sync
/// point (reference page 004). Move-only; destruction waits for completion.
class request {
 public:
  request() noexcept = default;
  /// Takes ownership of `handle`.
  explicit request(MPI_Request handle) noexcept : handle_{handle} {}
  request(const request&) = delete;
  request& operator=(const request&) = delete;
  request(request&& other) noexcept : handle_{std::exchange(other.handle_, MPI_REQUEST_NULL)} {}
  request& operator=(request&& other) noexcept {
    if (this != &other) {
      release();
      handle_ = std::exchange(other.handle_, MPI_REQUEST_NULL);
    }
    return *this;
  }
  ~request() { release(); }

  /// Blocks until the operation completed at the origin (MPI_Wait). Local.
  void wait();
  /// True once completed at the origin (MPI_Test); never blocks. Local.
  [[nodiscard]] bool test();
  /// True once wait() or test() has seen completion, or for an empty request. Local.
  [[nodiscard]] bool done() const noexcept { return handle_ == MPI_REQUEST_NULL; }
  [[nodiscard]] MPI_Request native() const noexcept { return handle_; }

 private:
  void release() noexcept;
  MPI_Request handle_ = MPI_REQUEST_NULL;
};

}  // namespace pgas::runtime
