// Preloaded into MPICH test processes: when UCX's progress call finds nothing to do, give the
// core away. MPICH 4.0's ch4 device polls without ever yielding, so with more processes than
// cores a process waiting in MPI holds its core for a whole scheduler tick (about 8 ms per
// barrier here instead of microseconds) while the process it waits for cannot run. Open MPI's
// launcher turns on the same behaviour (mpi_yield_when_idle) when it oversubscribes.
// It only works if MPICH progresses through UCX: with PGAS_YIELD_SHIM_REPORT set, a process
// says at exit how often it was called, and a CTest check (mpich.yield_shim_in_use) requires
// that number to be positive.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <sched.h>

namespace {
using progress_function = unsigned (*)(void*);
std::atomic<unsigned long> calls{0};

__attribute__((destructor)) void report_calls() {
  if (std::getenv("PGAS_YIELD_SHIM_REPORT") != nullptr) {
    std::fprintf(stderr, "yield shim: %lu progress calls\n", calls.load());
  }
}
}  // namespace

extern "C" unsigned ucp_worker_progress(void* worker) {
  static const auto real =
      reinterpret_cast<progress_function>(dlsym(RTLD_NEXT, "ucp_worker_progress"));
  calls.fetch_add(1, std::memory_order_relaxed);
  const unsigned events = real(worker);
  if (events == 0)
    sched_yield();
  return events;
}
