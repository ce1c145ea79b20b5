// Linked into every test binary, on with PGAS_TEST_REORDER_PUTS=1 (off, each call goes straight
// to its PMPI_ form): an MPI profiling layer that uses the freedom MPI
// gives to reorder puts. MPI completes the puts a process issues between two synchronisations
// of a target in any order (MPI-4.1 §12.7.1, "Ordering": no ordering for puts, or for a put and
// a get or accumulate, to the same location), yet the MPIs in CI happen to apply them in issue
// order, so a library that forgets to order overlapping writes passes against them. This layer
// holds every MPI_Put and MPI_Rput back and issues them in reverse order only when the window
// is flushed, unlocked, fenced or completed for their target (a local flush only copies their
// data: it promises the buffer back, not the put at the target); gets and accumulates pass
// through at once and so overtake the held puts, as MPI allows. Anything that relies on an order
// MPI does not promise then fails.
//
// Limits: an MPI_Put's origin buffer is copied only at local completion (MPI forbids changing
// it before, so a library that does is caught too); an MPI_Rput's is copied and its request
// completes at once, as a put whose data left the buffer would.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace {

struct held_put {
  const void* origin;
  std::shared_ptr<std::vector<char>> copy;  // the origin data, for MPI_Rput
  int origin_count;
  MPI_Datatype origin_type;
  int target_rank;
  MPI_Aint target_disp;
  int target_count;
  MPI_Datatype target_type;
};

std::map<MPI_Win, std::vector<held_put>>& held() {
  static std::map<MPI_Win, std::vector<held_put>> puts;
  return puts;
}
bool reordering() {
  static const bool on = [] {
    const char* v = std::getenv("PGAS_TEST_REORDER_PUTS");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return on;
}

unsigned long long held_count = 0;
unsigned long long released_out_of_order = 0;

bool named(MPI_Datatype t) {
  int integers = 0;
  int addresses = 0;
  int types = 0;
  int combiner = 0;
  PMPI_Type_get_envelope(t, &integers, &addresses, &types, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

// A handle that stays valid whatever the caller frees after issuing the put.
MPI_Datatype keep(MPI_Datatype t) {
  if (named(t))
    return t;
  MPI_Datatype copy = MPI_DATATYPE_NULL;
  PMPI_Type_dup(t, &copy);
  return copy;
}

void release_type(MPI_Datatype t) {
  if (!named(t))
    PMPI_Type_free(&t);
}

// Issues the held puts of `win` to `rank` (every rank: MPI_ANY_SOURCE), the newest first.
// A run that asked for reordering but reordered nothing tested nothing: it fails, on every
// process, saying so. Checked when MPI_Finalize deletes MPI_COMM_SELF's attributes, while MPI
// still works (MPI-4.1 §11.2.4), so that the library under test keeps MPI_Finalize its own.
int check_at_finalize(MPI_Comm, int, void*, void*) {
  unsigned long long everywhere = 0;
  PMPI_Allreduce(&released_out_of_order, &everywhere, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                 MPI_COMM_WORLD);
  std::fprintf(stderr, "reordering layer: %llu puts held here, %llu issued out of order in all\n",
               held_count, everywhere);
  if (everywhere == 0) {
    std::fprintf(stderr, "reordering layer: PGAS_TEST_REORDER_PUTS=1 but no puts were reordered\n");
    std::_Exit(1);
  }
  return MPI_SUCCESS;
}
void check_when_finalizing() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  int key = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, check_at_finalize, &key, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

int release(MPI_Win win, int rank) {
  if (!reordering())
    return MPI_SUCCESS;
  check_when_finalizing();
  auto found = held().find(win);
  if (found == held().end())
    return MPI_SUCCESS;
  std::vector<held_put>& puts = found->second;
  std::vector<held_put> keep_back;
  std::vector<held_put> go;
  for (auto& p : puts)
    (rank == MPI_ANY_SOURCE || p.target_rank == rank ? go : keep_back).push_back(std::move(p));
  puts = std::move(keep_back);
  if (go.size() > 1)
    released_out_of_order += go.size();
  int rc = MPI_SUCCESS;
  for (auto it = go.rbegin(); it != go.rend(); ++it) {
    const void* origin = it->copy ? static_cast<const void*>(it->copy->data()) : it->origin;
    const int r = PMPI_Put(origin, it->origin_count, it->origin_type, it->target_rank,
                           it->target_disp, it->target_count, it->target_type, win);
    if (r != MPI_SUCCESS)
      rc = r;
    release_type(it->origin_type);
    release_type(it->target_type);
  }
  // Rput's copies must live until the puts complete: the caller's flush, which follows now.
  static std::vector<std::shared_ptr<std::vector<char>>> completing;
  completing.clear();
  for (auto& p : go) {
    if (p.copy)
      completing.push_back(p.copy);
  }
  return rc;
}

// Copies a held put's origin data, so the put may stay held after its buffer is reused. The
// copy keeps the origin's layout (the put reads it at the same offsets from its start); the
// element types pgas puts with have a lower bound of 0 or more.
void copy_origin_of(held_put& p) {
  if (p.copy)
    return;
  MPI_Aint lb = 0;
  MPI_Aint true_extent = 0;
  PMPI_Type_get_true_extent(p.origin_type, &lb, &true_extent);
  MPI_Aint ignored = 0;
  MPI_Aint extent = 0;
  PMPI_Type_get_extent(p.origin_type, &ignored, &extent);
  if (lb < 0) {
    std::fprintf(stderr, "reordering layer: a put origin type with a negative lower bound\n");
    std::abort();
  }
  const MPI_Aint bytes = p.origin_count == 0 ? 0 : lb + (p.origin_count - 1) * extent + true_extent;
  p.copy = std::make_shared<std::vector<char>>(static_cast<std::size_t>(bytes));
  if (bytes > lb) {
    std::memcpy(p.copy->data() + lb, static_cast<const char*>(p.origin) + lb,
                static_cast<std::size_t>(bytes - lb));
  }
}

// Local completion lets the caller reuse the origin buffers, not more: the puts to `rank` (every
// rank: MPI_ANY_SOURCE) keep being held, with their data copied.
int complete_locally(MPI_Win win, int rank) {
  if (!reordering())
    return MPI_SUCCESS;
  auto found = held().find(win);
  if (found == held().end())
    return MPI_SUCCESS;
  for (held_put& p : found->second) {
    if (rank == MPI_ANY_SOURCE || p.target_rank == rank)
      copy_origin_of(p);
  }
  return MPI_SUCCESS;
}

int hold(const void* origin,
         int origin_count,
         MPI_Datatype origin_type,
         int target_rank,
         MPI_Aint target_disp,
         int target_count,
         MPI_Datatype target_type,
         MPI_Win win,
         bool copy_origin) {
  held_put p{origin,      nullptr,     origin_count, keep(origin_type),
             target_rank, target_disp, target_count, keep(target_type)};
  if (copy_origin)
    copy_origin_of(p);
  held()[win].push_back(std::move(p));
  ++held_count;
  return MPI_SUCCESS;
}

// Issues the held puts a synchronisation covers, then the synchronisation itself.
template <class Call>
int release_then(MPI_Win win, int rank, Call synchronise) {
  const int rc = release(win, rank);
  return rc != MPI_SUCCESS ? rc : synchronise();
}

int query_done(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int free_nothing(void*) {
  return MPI_SUCCESS;
}
int cancel_nothing(void*, int) {
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Put(const void* origin,
            int origin_count,
            MPI_Datatype origin_type,
            int target_rank,
            MPI_Aint target_disp,
            int target_count,
            MPI_Datatype target_type,
            MPI_Win win) {
  if (!reordering())
    return PMPI_Put(origin, origin_count, origin_type, target_rank, target_disp, target_count,
                    target_type, win);
  return hold(origin, origin_count, origin_type, target_rank, target_disp, target_count,
              target_type, win, false);
}

int MPI_Rput(const void* origin,
             int origin_count,
             MPI_Datatype origin_type,
             int target_rank,
             MPI_Aint target_disp,
             int target_count,
             MPI_Datatype target_type,
             MPI_Win win,
             MPI_Request* request) {
  if (!reordering()) {
    return PMPI_Rput(origin, origin_count, origin_type, target_rank, target_disp, target_count,
                     target_type, win, request);
  }
  const int rc = hold(origin, origin_count, origin_type, target_rank, target_disp, target_count,
                      target_type, win, true);
  if (rc != MPI_SUCCESS)
    return rc;
  PMPI_Grequest_start(query_done, free_nothing, cancel_nothing, nullptr, request);
  return PMPI_Grequest_complete(*request);
}

int MPI_Win_flush(int rank, MPI_Win win) {
  return release_then(win, rank, [&] { return PMPI_Win_flush(rank, win); });
}
int MPI_Win_flush_local(int rank, MPI_Win win) {
  const int rc = complete_locally(win, rank);
  return rc != MPI_SUCCESS ? rc : PMPI_Win_flush_local(rank, win);
}
int MPI_Win_flush_all(MPI_Win win) {
  return release_then(win, MPI_ANY_SOURCE, [&] { return PMPI_Win_flush_all(win); });
}
int MPI_Win_flush_local_all(MPI_Win win) {
  const int rc = complete_locally(win, MPI_ANY_SOURCE);
  return rc != MPI_SUCCESS ? rc : PMPI_Win_flush_local_all(win);
}
int MPI_Win_unlock(int rank, MPI_Win win) {
  return release_then(win, rank, [&] { return PMPI_Win_unlock(rank, win); });
}
int MPI_Win_unlock_all(MPI_Win win) {
  return release_then(win, MPI_ANY_SOURCE, [&] { return PMPI_Win_unlock_all(win); });
}
int MPI_Win_fence(int assert_flags, MPI_Win win) {
  return release_then(win, MPI_ANY_SOURCE, [&] { return PMPI_Win_fence(assert_flags, win); });
}
int MPI_Win_complete(MPI_Win win) {
  return release_then(win, MPI_ANY_SOURCE, [&] { return PMPI_Win_complete(win); });
}
int MPI_Win_free(MPI_Win* win) {
  const int rc = release(*win, MPI_ANY_SOURCE);
  held().erase(*win);
  return rc != MPI_SUCCESS ? rc : PMPI_Win_free(win);
}

}  // extern "C"
