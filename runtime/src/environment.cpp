#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/stats.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/transpose_route_setting.hpp>
#include <pgas/runtime/watchdog.hpp>

#include "window_pool.hpp"
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sched.h>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace pgas {
namespace {

struct world_state {
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Comm notify = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  bool shares_memory = false;      // every image can map every other's window memory
  bool oversubscribed = false;     // this node runs more images than its images may use cores
  std::vector<bool> on_this_node;  // by world rank: the images this node runs
};

world_state* current = nullptr;  // the one live environment's state, or null

void prepare_one_sided_component() {
#ifdef OPEN_MPI
  // Open MPI 4.1's osc/ucx rejects MPI_Win_create and MPI_Win_create_dynamic when the job has
  // a single process (MPI_ERR_WIN); osc/rdma and osc/sm handle every flavor. The last argument
  // 0 keeps a value the user or the launcher already chose.
  setenv("OMPI_MCA_osc", "^ucx", 0);
  // btl/vader's hardware atomics make 64-bit MPI_Compare_and_swap crash in osc/rdma (Open MPI
  // issues 7027 and 7967). Without them osc/rdma does its own atomics, as fast on one node.
  setenv("OMPI_MCA_btl_vader_flags", "send,put,get,inplace", 0);
#endif
#ifdef MPICH_VERSION
  // MPICH 4.0's ch4:ucx with UCX 1.13's registration cache delivers puts into MPI_Win_allocate
  // memory to the wrong address (the data lands in the origin's own window, or nowhere) at two
  // or more processes. Without the cache every window flavor is correct; see docs/platform.md.
  setenv("UCX_RCACHE_ENABLE", "n", 0);
#endif
}

// PGAS_SHARED_MEMORY=0 (or off, no, false) keeps every access to a peer on MPI one-sided calls,
// for comparison and for testing those paths on one node.
bool shared_memory_wanted() {
  const char* v = std::getenv("PGAS_SHARED_MEMORY");
  if (v == nullptr)
    return true;
  const std::string s = v;
  return !(s == "0" || s == "off" || s == "no" || s == "false");
}

// How many images act as one node, in rank order, to test on one machine the paths a job across
// nodes takes: PGAS_ONE_IMAGE_PER_NODE=1 (or on, yes, true) gives 1 (nothing mapped, every peer
// as if on another node); PGAS_IMAGES_PER_NODE=k gives k (images 0..k-1 one node, k..2k-1 the
// next, ...: nothing mapped either unless one node holds them all, and the message engine's
// rings between the images of each). 0 when neither is set: the nodes MPI reports. Throws
// usage_error for a PGAS_IMAGES_PER_NODE that is not a positive number.
std::size_t images_per_node_setting() {
  if (const char* v = std::getenv("PGAS_ONE_IMAGE_PER_NODE")) {
    const std::string s = v;
    if (s == "1" || s == "on" || s == "yes" || s == "true")
      return 1;
  }
  const char* v = std::getenv("PGAS_IMAGES_PER_NODE");
  if (v == nullptr || *v == '\0')
    return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long k = std::strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || k == 0 || k > 1U << 30)
    throw usage_error(
        std::string("PGAS_IMAGES_PER_NODE must be a positive number of images, got \"") + v + "\"");
  return static_cast<std::size_t>(k);
}

// How many images run on this node, and how many cores they may run on between them (the union
// of their affinity masks: a launcher that binds each image to one core narrows each mask, not
// the node). Collective over world.
struct node_shape {
  int images = 1;  // on the machine, whatever the setting above groups
  int cores = 1;
  std::vector<bool> members;  // by world rank: this node's images as the setting groups them
  int member_count = 1;
};

node_shape shape_of_this_node(MPI_Comm world, int per_node) {
  MPI_Comm node = MPI_COMM_NULL;
  runtime::check(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                 "MPI_Comm_split_type");
  node_shape out;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
    for (unsigned c = 0; c < std::max(1U, std::thread::hardware_concurrency()) && c < CPU_SETSIZE;
         ++c)
      CPU_SET(c, &mine);
  }
  cpu_set_t all;
  CPU_ZERO(&all);
  int err = MPI_Comm_size(node, &out.images);
  if (err == MPI_SUCCESS) {
    err = MPI_Allreduce(&mine, &all, static_cast<int>(sizeof(cpu_set_t)), MPI_BYTE, MPI_BOR, node);
  }
  // Which world ranks share this node (MPI may reach them through shared memory).
  int world_size = 0;
  int me = 0;
  if (err == MPI_SUCCESS)
    err = MPI_Comm_size(world, &world_size);
  if (err == MPI_SUCCESS)
    err = MPI_Comm_rank(world, &me);
  std::vector<int> world_ranks(static_cast<std::size_t>(out.images), -1);
  if (err == MPI_SUCCESS)
    err = MPI_Allgather(&me, 1, MPI_INT, world_ranks.data(), 1, MPI_INT, node);
  out.members.assign(static_cast<std::size_t>(world_size), false);
  out.member_count = 0;
  for (const int r : world_ranks) {
    if (r >= 0 && r < world_size && (per_node == 0 || r / per_node == me / per_node)) {
      out.members[static_cast<std::size_t>(r)] = true;
      ++out.member_count;
    }
  }
  MPI_Comm_free(&node);
  runtime::check(err, "MPI_Allreduce or MPI_Allgather");
  out.cores = std::max(1, CPU_COUNT(&all));
  return out;
}

// True on every image alike when all images run on one shared-memory node and none turned it
// off: a window's flavor must be the same on every process.
bool agree_on_shared_memory(MPI_Comm world, int size, int node_images) {
  return runtime::everyone(node_images == size && shared_memory_wanted(), world);
}

MPI_Comm duplicate_with_errors_returned(MPI_Comm from) {
  MPI_Comm out = MPI_COMM_NULL;
  runtime::check(MPI_Comm_dup(from, &out), "MPI_Comm_dup");
  runtime::check(MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return out;
}

}  // namespace

struct environment::impl {
  bool started_mpi = false;  // true when this environment called MPI_Init, so it finalises too
  world_state state;
};

void environment::prepare_mpi() noexcept {
  prepare_one_sided_component();
}

environment::environment() : impl_{std::make_unique<impl>()} {
  start(nullptr, nullptr);
}

environment::environment(int& argc, char**& argv) : impl_{std::make_unique<impl>()} {
  start(&argc, &argv);
}

namespace {
// Runs `validate` (a setting's check, throwing usage_error) and throws on every image if it
// threw on any: its own message where it did, `elsewhere` on the others.
template <class Validate>
void refuse_everywhere_unless_valid(Validate validate, const char* elsewhere, MPI_Comm world) {
  std::string bad;
  try {
    validate();
  } catch (const usage_error& e) {
    bad = e.what();
  }
  if (!runtime::everyone(bad.empty(), world))
    throw usage_error(bad.empty() ? elsewhere : bad);
}
}  // namespace

namespace {

// Set when this process's environment ended under an exception: MPI is up, not finalised, and
// the job ends as the process exits.
bool end_job_at_exit = false;

// Run as the process exits (registered when the first environment starts). A process that
// exits without MPI_Finalize ends the job under Open MPI, but under MPICH's Hydra at times only
// its own host's processes, and the other hosts' images would wait for ever: it ends the job itself
// where its environment still lives (std::exit in the middle of a program) or ended under an
// exception.
void end_job_if_left_unfinished() {
  if (current != nullptr) {
    std::fprintf(stderr,
                 "pgas: image %d: the process exits while its pgas::environment lives (MPI is "
                 "not finalised, and the other images may be waiting for it); ending the job\n",
                 current->rank);
    std::fflush(stderr);
  } else if (!end_job_at_exit) {
    return;
  }
  runtime::watchdog::end_job_now();
}

}  // namespace

void environment::start(int* argc, char*** argv) {
  if (current != nullptr)
    throw usage_error("a pgas::environment already exists; create only one");
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) {
    throw usage_error("MPI has already been finalized; a pgas::environment cannot start it again");
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {
    prepare_one_sided_component();
    // MPI_Init's own failure cannot be reported through a communicator: check its code.
    runtime::check(MPI_Init(argc, argv), "MPI_Init");
    impl_->started_mpi = true;
  }
  runtime::check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                 "MPI_Comm_set_errhandler");
  world_state& s = impl_->state;
  s.world = duplicate_with_errors_returned(MPI_COMM_WORLD);
  s.notify = duplicate_with_errors_returned(MPI_COMM_WORLD);
  runtime::check(MPI_Comm_rank(s.world, &s.rank), "MPI_Comm_rank");
  runtime::check(MPI_Comm_size(s.world, &s.size), "MPI_Comm_size");
  std::size_t per_node = 0;
  refuse_everywhere_unless_valid([&per_node] { per_node = images_per_node_setting(); },
                                 "PGAS_IMAGES_PER_NODE is not a positive number on another image",
                                 s.world);
  node_shape node = shape_of_this_node(s.world, static_cast<int>(per_node));
  s.on_this_node = node.members;
  s.shares_memory = agree_on_shared_memory(s.world, s.size, node.member_count);
  // The engine's rings join the images of each node unless any image keeps its peers on MPI.
  if (!runtime::everyone(shared_memory_wanted(), s.world))
    node.members.assign(node.members.size(), false);
  s.oversubscribed = node.images > node.cores;
  runtime::window_pool::start(s.world, node.images, s.size);
  runtime::statistics::start_from_environment();
  // Bad settings in the environment: every image refuses, not only those given them.
  refuse_everywhere_unless_valid(
      runtime::check_cache_settings,
      "PGAS_CORE_CACHE_BYTES or PGAS_SHARED_CACHE_BYTES is not a positive number of bytes on "
      "another image",
      s.world);
  refuse_everywhere_unless_valid(runtime::watchdog::configure,
                                 "PGAS_WATCHDOG is not a number of seconds on another image",
                                 s.world);
  refuse_everywhere_unless_valid([&s] { runtime::race_check::configure(s.world); },
                                 "PGAS_CHECK is not 0 or 1 on another image", s.world);
  refuse_everywhere_unless_valid(
      runtime::check_ask_ahead_setting,
      "PGAS_ASK_AHEAD is not one of the distances it may be on another image", s.world);
  refuse_everywhere_unless_valid(runtime::check_transpose_route_setting,
                                 "PGAS_TRANSPOSE_ROUTE is not a route on another image", s.world);
  runtime::refuse_unless_transpose_route_agreed(s.world);
  runtime::messages::start(
      s.world, node.members,
      s.on_this_node);  // may refuse a bad PGAS_MESSAGE_BUDGET: before we count as live
  current = &s;
  runtime::detail::world_in_force_size = static_cast<std::size_t>(s.size);  // no scope yet
  // Registered while the environment is constructed, so a static environment's destructor
  // runs before it (it then finds no environment).
  static const bool exit_checked = std::atexit(end_job_if_left_unfinished) == 0;
  (void)exit_checked;  // without room for it, a process that exits early ends as MPI lets it
}

environment::~environment() {
  // An exception leaving the environment's scope on this image only: the others may be waiting
  // in a collective, so nothing collective may run here.
  const bool unwinding = std::uncaught_exceptions() > 0;
  // Messages still queued are delivered and handled first: the end is a sync point.
  runtime::messages::stop(unwinding);
  // Before anything else ends: freeing kept windows is collective and needs the library's
  // communicators.
  if (!unwinding) {
    try {
      runtime::statistics::print_table(impl_->state.world);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: printing the statistics failed: %s\n", e.what());
    }
    // What no sync point checked yet, over the world: before the pool's windows go.
    runtime::race_check::finish();
    runtime::window_pool::drain();
  }
  runtime::reset_team_scopes();  // scopes still open hold teams whose communicators go now
  if (current == &impl_->state)
    current = nullptr;
  runtime::free_cached_datatypes();
  runtime::free_agreed_reduction();
  MPI_Comm_free(&impl_->state.notify);
  MPI_Comm_free(&impl_->state.world);
  if (!impl_->started_mpi)
    return;  // whoever started MPI finalises it
  if (unwinding) {
    // MPI_Finalize would hang while the others wait in a collective, so the job must end; but
    // an abort here would end it before the handler that catches the exception (main's own, as
    // a rule) could say what it was — the job would end with no word of why. MPI stays up until
    // this process exits, and then the job ends.
    std::fprintf(stderr,
                 "pgas: image %d: an exception leaves the pgas::environment's scope; the job "
                 "ends when this process exits\n",
                 impl_->state.rank);
    std::fflush(stderr);
    end_job_at_exit = true;
    return;
  }
  MPI_Finalize();
}

bool environment::active() noexcept {
  return current != nullptr;
}

namespace runtime {

void require_environment(const char* what) {
  if (current == nullptr) {
    throw usage_error(std::string(what) +
                      " needs a live pgas::environment; construct one at the start of main and "
                      "keep it until every container is gone");
  }
}

MPI_Comm world_comm() {
  require_environment("the world team");
  return current->world;
}

bool world_shares_memory() {
  require_environment("the world team");
  return current->shares_memory;
}

bool on_this_node(std::size_t world_rank) {
  require_environment("the world team");
  return world_rank < current->on_this_node.size() && current->on_this_node[world_rank];
}

bool oversubscribed() noexcept {
  return current != nullptr && current->oversubscribed;
}

std::size_t world_rank() {
  require_environment("the world team");
  return static_cast<std::size_t>(current->rank);
}

std::size_t world_size() {
  require_environment("the world team");
  return static_cast<std::size_t>(current->size);
}

MPI_Comm notify_comm() {
  require_environment("the notification communicator");
  return current->notify;
}

}  // namespace runtime

}  // namespace pgas

// The user's own MPI_Finalize while the environment lives would pull MPI from under every
// window, team and message still in use (a crash at the environment's end, or earlier). The
// profiling interface (MPI-4.1 §15.2) lets the library stand in for MPI_Finalize: while an
// environment lives it refuses, and MPI stays as it was; otherwise it finalises as asked, under
// the watchdog.
extern "C" int MPI_Finalize(void) {  // NOLINT(readability-identifier-naming): MPI's name
  if (pgas::current != nullptr) {
    throw pgas::usage_error(
        "MPI_Finalize called while the pgas::environment lives; end the environment instead "
        "(it finalises MPI when it started it), or call MPI_Finalize after it is destroyed");
  }
  return pgas::runtime::watchdog::finalize_watched();
}
