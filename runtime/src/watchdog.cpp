#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <sys/time.h>
#include <thread>
#include <unistd.h>

namespace pgas::runtime::watchdog {
namespace {

using clock = std::chrono::steady_clock;

bool ending = false;                             // PGAS_WATCHDOG=S was given
clock::time_point wait_started;                  // of the wait being timed
bool reported = false;                           // this wait's line was printed (reporting only)
bool peer_fired = false;                         // another image's watchdog fired: report and end
std::size_t fired_by = 0;                        // its world rank
constexpr auto grace = std::chrono::seconds(2);  // for the others' lines before the job ends
// How a line ends: the job ends (PGAS_WATCHDOG=S), or the wait goes on (unset).
constexpr const char* ending_the_job = "PGAS_WATCHDOG limit reached; ending the job";
constexpr const char* still_waiting =
    "still waiting (PGAS_WATCHDOG=S ends the job after S seconds; PGAS_WATCHDOG=0 stops this "
    "report)";

// One line: this image, how long it waited, in which call and where, and its team.
void report(double waited, const char* why) noexcept {
  const site* s = detail::innermost;
  std::size_t team_image = 0;
  std::size_t team_images = 0;
  int rank = 0;
  int size = 0;
  if (MPI_Comm_rank(current_comm(), &rank) == MPI_SUCCESS &&
      MPI_Comm_size(current_comm(), &size) == MPI_SUCCESS) {
    team_image = static_cast<std::size_t>(rank);
    team_images = static_cast<std::size_t>(size);
  }
  const std::size_t me = world_rank();
  if (s != nullptr) {
    std::fprintf(stderr,
                 "pgas watchdog: image %zu has waited %.0f s in %s at %s:%u (in %s); team in "
                 "force: image %zu of %zu; %s\n",
                 me, waited, s->call, s->where.file_name(), static_cast<unsigned>(s->where.line()),
                 s->where.function_name(), team_image, team_images, why);
  } else {
    std::fprintf(stderr,
                 "pgas watchdog: image %zu has waited %.0f s in a wait of the library's own (a "
                 "container's construction or destruction, or the environment's end); team in "
                 "force: image %zu of %zu; %s\n",
                 me, waited, team_image, team_images, why);
  }
  std::fflush(stderr);
}

// Keeps serving messages for a moment, so the other images hear of it and print their lines
// (waiting images cannot say when they have), then ends the job.
[[noreturn]] void end_after_grace() noexcept {
  end_job_when([] { return false; }, grace);
}

void on_fired_message(std::size_t source, std::span<const std::byte>) {
  on_fired(source);
}

// Tells every other image that this one's watchdog fired.
void tell_everyone() noexcept {
  try {
    const std::size_t me = world_rank();
    for (std::size_t d = 0; d < world_size(); ++d) {
      if (d == me)
        continue;
      // Not acknowledged, like a reply: nobody waits for it.
      std::span<std::byte> room =
          messages::reserve_reply(d, messages::name_of(&on_fired_message), 8);
      std::memset(room.data(), 0, room.size());
    }
    messages::flush();
  } catch (...) {
    // The line is printed; the others will time out on their own.
  }
}

// finalize_watched's line, written before the timer starts: a signal handler may only write it.
char finalize_line[320];
std::size_t finalize_line_bytes = 0;
volatile std::sig_atomic_t finalize_ends_job = 0;

extern "C" void on_finalize_overdue(int /*signal*/) {
  // write() and raise() are async-signal-safe (POSIX); stdio is not.
  (void)!::write(STDERR_FILENO, finalize_line, finalize_line_bytes);
  if (finalize_ends_job != 0)
    std::raise(SIGKILL);  // as end_job_now: ends the job on every host
}

}  // namespace

void detail::check_slowly() noexcept {
  const clock::time_point now = clock::now();
  if (detail::fresh_wait) {
    detail::fresh_wait = false;
    if (!peer_fired) {  // (on_fired only asks for a look: the wait goes on)
      wait_started = now;
      reported = false;
    }
  }
  const double waited = std::chrono::duration<double>(now - wait_started).count();
  if (peer_fired) {
    const std::string why =
        "image " + std::to_string(fired_by) + "'s watchdog fired (PGAS_WATCHDOG); ending the job";
    report(waited, why.c_str());
    end_after_grace();
  }
  if (waited < detail::limit_seconds)
    return;
  if (!ending) {
    if (!reported) {
      report(waited, still_waiting);
      reported = true;
    }
    return;
  }
  report(waited, ending_the_job);
  tell_everyone();
  end_after_grace();
}

void end_job_when(const std::function<bool()>& all_said, std::chrono::milliseconds limit) noexcept {
  const auto until = clock::now() + limit;
  while (clock::now() < until) {
    try {
      if (all_said())
        break;
      (void)messages::progress();
    } catch (...) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  end_job_now();
}

void end_job_now() noexcept {
  // Killed, not exited: when a process exits without MPI_Finalize, MPICH's Hydra may end the
  // processes of its host only (between scripts/two-hosts' hosts the other host's images waited
  // for ever), but one killed by a signal ends every host's, as Open MPI does either way.
  // SIGKILL cannot be caught and writes no core file. What was written is out first.
  std::fflush(nullptr);
  std::raise(SIGKILL);
  std::_Exit(EXIT_FAILURE);  // not reached
}

int finalize_watched() noexcept {
  const double limit = detail::limit_seconds;
  int finalized = 0;
  int rank = 0;
  if (!(limit > 0.0) || MPI_Finalized(&finalized) != MPI_SUCCESS || finalized != 0 ||
      MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) {
    return PMPI_Finalize();  // nothing to watch, or MPI's own error to report
  }
  // What the program wrote is out first: a job the timer ends keeps no buffered line.
  std::fflush(nullptr);
  // bench/run-all recognises this line by "in MPI_Finalize, after the program's end".
  const int n = std::snprintf(
      finalize_line, sizeof finalize_line,
      "pgas watchdog: image %d has waited %.0f s in MPI_Finalize, after the program's end; %s\n",
      rank, limit, ending ? ending_the_job : still_waiting);
  finalize_line_bytes = n > 0 ? std::min(static_cast<std::size_t>(n), sizeof finalize_line - 1) : 0;
  finalize_ends_job = ending ? 1 : 0;
  // A one-shot SIGALRM, not a thread (MPI_Init gives MPI_THREAD_SINGLE): the program's own
  // handler and timer, if any, are put back after (the timer with what it had left before).
  struct sigaction overdue {};
  overdue.sa_handler = on_finalize_overdue;
  sigemptyset(&overdue.sa_mask);
  overdue.sa_flags = SA_RESTART;  // MPI's interrupted calls resume
  struct sigaction before {};
  itimerval timer{};
  const double whole = std::floor(limit);
  timer.it_value.tv_sec = static_cast<time_t>(whole);
  timer.it_value.tv_usec = static_cast<suseconds_t>((limit - whole) * 1e6);
  if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0)
    timer.it_value.tv_usec = 1;
  itimerval timer_before{};
  const bool handled = sigaction(SIGALRM, &overdue, &before) == 0;
  const bool timed = handled && setitimer(ITIMER_REAL, &timer, &timer_before) == 0;
  const int result = PMPI_Finalize();
  if (timed) {
    itimerval off{};
    (void)setitimer(ITIMER_REAL, &off, nullptr);
  }
  if (handled)
    (void)sigaction(SIGALRM, &before, nullptr);
  if (timed && (timer_before.it_value.tv_sec != 0 || timer_before.it_value.tv_usec != 0))
    (void)setitimer(ITIMER_REAL, &timer_before, nullptr);
  return result;
}

void configure() {
  wait_started = clock::now();
  const char* v = std::getenv("PGAS_WATCHDOG");
  if (v == nullptr || *v == '\0') {
    ending = false;
    detail::limit_seconds = default_report_seconds;
    return;
  }
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(s >= 0.0) || s > 1e9) {
    throw usage_error(std::string("PGAS_WATCHDOG must be a number of seconds (0 turns the "
                                  "watchdog off), got \"") +
                      v + "\"");
  }
  ending = s > 0.0;
  detail::limit_seconds = s;
}

void on_fired(std::size_t source) noexcept {
  peer_fired = true;
  fired_by = source;
  detail::fresh_wait = true;  // the next idle poll looks at once
  if (detail::limit_seconds <= 0.0)
    detail::limit_seconds = default_report_seconds;  // so that check() runs
}

}  // namespace pgas::runtime::watchdog
