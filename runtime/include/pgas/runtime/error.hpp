#pragma once
// The exceptions pgas throws, and the one hook every MPI return code passes through.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace pgas {

/// An MPI call returned an error code. Names the call, the image and MPI's own message.
class mpi_error : public std::runtime_error {
 public:
  mpi_error(int code, std::string call, const std::string& what_text)
      : std::runtime_error(what_text), code_{code}, call_{std::move(call)} {}
  /// The MPI error code as returned by the call.
  [[nodiscard]] int code() const noexcept { return code_; }
  /// The MPI error class of code(), from MPI_Error_class.
  [[nodiscard]] int error_class() const noexcept;
  /// The name of the MPI function that failed, e.g. "MPI_Put".
  [[nodiscard]] const std::string& call() const noexcept { return call_; }

 private:
  int code_;
  std::string call_;
};

/// The library was used against its contract (mismatched collective arguments, wrong state).
class usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// An index or displacement lies outside what its container or window holds.
class out_of_range : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

/// Reading or writing a file failed: it is missing, unwritable, not in the expected format, or
/// holds something other than what was asked for. Names the file and, where one is involved,
/// the dataset.
class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An image could not get the memory a collective allocation asked of it (its address space
/// or the machine's memory is exhausted). Thrown on every image of the allocation together,
/// naming the image that could not; nothing was allocated anywhere.
class resource_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An exception thrown on another image by a remote call (pgas::rpc), of a type that cannot
/// be rebuilt here as itself. what() names the image, the exception's type and its message.
class remote_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace runtime {

/// Throws mpi_error naming `call` for `code`, an MPI error code. Local.
[[noreturn]] void throw_mpi_error(int code, const char* call);

/// Throws mpi_error naming `call` unless `code` is MPI_SUCCESS (0: MPI-4.1 §9.4). Local.
/// Inline: the engine calls MPI a few times per message, and a call out of line for each
/// return code cost an rpc round trip some 50 instructions a side.
inline void check(int code, const char* call) {
  if (code != 0) [[unlikely]]
    throw_mpi_error(code, call);
}

/// Throws out_of_range "<what> <index> is out of range for size <size> (image r)". Local.
[[noreturn]] void throw_out_of_range(const char* what, std::size_t index, std::size_t size);

}  // namespace runtime
}  // namespace pgas
