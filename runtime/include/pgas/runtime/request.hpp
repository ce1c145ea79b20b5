#pragma once
// The RAII owner of one request-based RMA operation (MPI_Rput, MPI_Rget, ...).

#include <pgas/runtime/unique_handle.hpp>

#include <mpi.h>

namespace pgas::runtime {

struct request_traits {
  using native_type = MPI_Request;
  static MPI_Request null() noexcept { return MPI_REQUEST_NULL; }
  /// Waits rather than freeing: an unfinished operation's buffers may belong to the caller's
  /// frame. Reports a failure, never throws.
  static void free(MPI_Request& r) noexcept;
};

/// A pending request. Completion means the origin side is done: an rput's buffer may be
/// reused, an rget's data has arrived. Remote completion of a put still needs a flush or sync
/// point (MPI-4.1 §12.3.5). Move-only; destruction waits for completion.
class request {
 public:
  request() noexcept = default;
  /// Takes ownership of `handle`.
  explicit request(MPI_Request handle) noexcept : handle_{handle} {}

  /// Blocks until the operation completed at the origin (MPI_Wait). Local.
  void wait();
  /// True once completed at the origin (MPI_Test); never blocks. Local.
  [[nodiscard]] bool test();
  /// True once wait() or test() has seen completion, or for an empty request. Local.
  [[nodiscard]] bool done() const noexcept { return handle_.empty(); }
  [[nodiscard]] MPI_Request native() const noexcept { return handle_.get(); }

 private:
  unique_handle<request_traits> handle_;
};

}  // namespace pgas::runtime
