// Preloaded into MPICH test processes: when UCX's progress call finds nothing to do, give the
// core away. MPICH 4.0's ch4 device polls without ever yielding, so with more processes than
// cores a process waiting in MPI holds its core for a whole scheduler tick (about 8 ms per
// barrier here instead of microseconds) while the process it waits for cannot run. Open MPI's
// launcher turns on the same behaviour (mpi_yield_when_idle) when it oversubscribes.
#include <dlfcn.h>
#include <sched.h>

namespace {
using progress_function = unsigned (*)(void*);
}

extern "C" unsigned ucp_worker_progress(void* worker) {
  static const auto real = reinterpret_cast<progress_function>(dlsym(RTLD_NEXT, "ucp_worker_progress"));
  const unsigned events = real(worker);
  if (events == 0) sched_yield();
  return events;
}
