#include <pgas/runtime/error.hpp>
#include <pgas/runtime/request.hpp>

#include <cstdio>

namespace pgas::runtime {

void request_traits::free(MPI_Request& r) noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0 && MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    std::fprintf(stderr, "pgas: MPI_Wait failed while destroying a request\n");
  }
}

void request::wait() {
  if (!done())
    check(MPI_Wait(handle_.out(), MPI_STATUS_IGNORE), "MPI_Wait");
}

bool request::test() {
  if (done())
    return true;
  int flag = 0;
  check(MPI_Test(handle_.out(), &flag, MPI_STATUS_IGNORE), "MPI_Test");
  return flag != 0;
}

}  // namespace pgas::runtime
