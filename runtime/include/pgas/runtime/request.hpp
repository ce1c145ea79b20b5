#pragma once
// The RAII owner of one request-based operation (MPI_Rput, MPI_Rget, a nonblocking collective),
// and the bound on how many a process keeps outstanding.

#include <pgas/runtime/unique_handle.hpp>

#include <mpi.h>

#include <cstddef>

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
  explicit request(MPI_Request handle) noexcept;

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

/// The most requests a process keeps outstanding. An MPI may bound them: MPICH 4.0 ends the
/// job with "Assertion failed in file ./src/include/mpir_request.h ...: req != NULL" once some
/// 2^18 are live (a scratch program's 300 000 MPI_Accumulate without a flush; a pgas program's
/// 10^6 async_get futures through MPI, before this bound). Well below that, and far more than
/// it takes to keep a network busy.
inline constexpr std::size_t most_outstanding_requests = std::size_t{1} << 14;

/// Requests of this process started and not yet completed (waited, tested done or destroyed).
/// Local.
[[nodiscard]] std::size_t outstanding_requests() noexcept;

/// Owns `handle`, a request `call` just started. Where this process already keeps
/// most_outstanding_requests, completes it first — serving the message engine while it waits,
/// since a collective's partners may wait for this image's handlers — and returns an empty
/// request: the operation is then done at the origin, as its request's wait would leave it.
/// Local.
[[nodiscard]] request keep_or_complete(MPI_Request handle, const char* call);

}  // namespace pgas::runtime
