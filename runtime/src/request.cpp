#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/request.hpp>

#include <cstdio>

namespace pgas::runtime {

namespace {
std::size_t outstanding = 0;  // requests owned by request objects, not yet completed
}  // namespace

std::size_t outstanding_requests() noexcept {
  return outstanding;
}

void request_traits::free(MPI_Request& r) noexcept {
  --outstanding;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0 && MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    std::fprintf(stderr, "pgas: MPI_Wait failed while destroying a request\n");
  }
}

request::request(MPI_Request handle) noexcept : handle_{handle} {
  if (!done())
    ++outstanding;
}

void request::wait() {
  if (done())
    return;
  check(MPI_Wait(handle_.out(), MPI_STATUS_IGNORE), "MPI_Wait");
  --outstanding;
}

bool request::test() {
  if (done())
    return true;
  int flag = 0;
  check(MPI_Test(handle_.out(), &flag, MPI_STATUS_IGNORE), "MPI_Test");
  if (flag != 0)
    --outstanding;
  return flag != 0;
}

request keep_or_complete(MPI_Request handle, const char* call) {
  if (handle == MPI_REQUEST_NULL || outstanding < most_outstanding_requests)
    return request{handle};
  messages::wait(handle, call);
  return request{};
}

}  // namespace pgas::runtime
