#include <pgas/runtime/request.hpp>

#include <pgas/runtime/error.hpp>

#include <cstdio>

namespace pgas::runtime {

void request::wait() {
  if (handle_ != MPI_REQUEST_NULL) check(MPI_Wait(&handle_, MPI_STATUS_IGNORE), "MPI_Wait");
}

bool request::test() {
  if (handle_ == MPI_REQUEST_NULL) return true;
  int flag = 0;
  check(MPI_Test(&handle_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
  return flag != 0;
}

void request::release() noexcept {
  if (handle_ == MPI_REQUEST_NULL) return;
  // The buffers of an unfinished operation may belong to the caller's frame: wait, don't free.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0 && MPI_Wait(&handle_, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    std::fprintf(stderr, "pgas: MPI_Wait failed while destroying a request\n");
  }
  handle_ = MPI_REQUEST_NULL;
}

}  // namespace pgas::runtime
