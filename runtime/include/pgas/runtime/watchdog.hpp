#pragma once
// The watchdog: an image that has waited too long in a pgas call says so, naming the call and
// the line of the program that made it, instead of hanging with no word.
//
// Every wait of the library is a loop of messages::progress_until or messages::wait, which
// calls check() each time it finds nothing to do. The public calls that wait (sync points,
// collectives, event and lock waits, futures, container commits) mark their scope with a
// `waiting_in`, which carries the caller's std::source_location.
//
// PGAS_WATCHDOG=S (seconds, > 0): once an image has waited S seconds in one wait it prints one
// line, tells every other image, which print theirs when they next make progress, and after a
// short grace the job ends with a non-zero exit. Unset: the same line is printed after
// default_report_seconds, once per wait, and the job goes on waiting (a correct program may
// wait that long; a hang must not stay silent). PGAS_WATCHDOG=0 turns it off.

#include <chrono>
#include <cstddef>
#include <functional>
#include <version>
#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

namespace pgas::runtime::watchdog {

#if defined(__cpp_lib_source_location)
/// Where a public call was made in the user's program.
using source_location = std::source_location;
#else
/// std::source_location's subset the watchdog uses, for a standard library without it (clang
/// 14 with libstdc++ 12): the same compiler builtins, evaluated at the caller as a default
/// argument.
class source_location {
 public:
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           unsigned line = __builtin_LINE(),
                                           const char* function = __builtin_FUNCTION()) noexcept {
    source_location here;
    here.file_ = file;
    here.line_ = line;
    here.function_ = function;
    return here;
  }
  [[nodiscard]] constexpr const char* file_name() const noexcept { return file_; }
  [[nodiscard]] constexpr unsigned line() const noexcept { return line_; }
  [[nodiscard]] constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
  const char* function_ = "";
};
#endif

/// Seconds of waiting before an unset watchdog prints where this image waits.
inline constexpr double default_report_seconds = 300.0;

/// The public call this thread is in, innermost first.
struct site {
  const char* call;
  source_location where;
  const site* outer;
};

namespace detail {
inline thread_local const site* innermost = nullptr;
inline thread_local bool fresh_wait = true;
inline double limit_seconds = 0.0;  // 0: off
void check_slowly() noexcept;
}  // namespace detail

/// Marks the scope of a public call that may wait: the watchdog names it and `where`. Cheap:
/// two pointer stores.
class waiting_in {
 public:
  waiting_in(const char* call, const source_location& where) noexcept
      : site_{call, where, detail::innermost} {
    detail::innermost = &site_;
  }
  waiting_in(const waiting_in&) = delete;
  waiting_in& operator=(const waiting_in&) = delete;
  ~waiting_in() { detail::innermost = site_.outer; }

 private:
  site site_;
};

/// A wait loop begins: its time counts from its first idle poll.
inline void begin_wait() noexcept {
  detail::fresh_wait = true;
}

/// Called by a wait loop each time it found nothing to do (its `polls`-th time round). Reads
/// the clock once in 1024 calls.
inline void check(unsigned polls) noexcept {
  if (detail::limit_seconds > 0.0 && (detail::fresh_wait || (polls & 1023U) == 0))
    detail::check_slowly();
}

/// Reads PGAS_WATCHDOG (environment start). Throws usage_error for a value that is not a
/// number of seconds >= 0. Local.
void configure();
/// The message engine's handler of "an image's watchdog fired": this image reports where it
/// waits when it next idles, and the job ends. Local.
void on_fired(std::size_t source) noexcept;

/// Ends the job from this process, which kills itself (SIGKILL: every launcher then ends the
/// job, on every host): once `all_said()` is true (every image has written what it had to say)
/// or after `limit`, serving messages meanwhile so that images waiting on this one hear of it.
/// A launcher kills the other processes as soon as one ends, so a line not yet written would be
/// lost. Local.
[[noreturn]] void end_job_when(const std::function<bool()>& all_said,
                               std::chrono::milliseconds limit) noexcept;
/// end_job_when at once: for a process that alone has something to say, and has said it. Local.
[[noreturn]] void end_job_now() noexcept;

/// PMPI_Finalize under the watchdog, for MPI_Finalize (the environment's, or the program's own
/// after the environment): MPI's wait there is none of the library's, and a finalize that never
/// returns (MPICH 4.0 between hosts over TCP, docs/platform.md) would end a finished program
/// with no word. After the watchdog's limit a timer prints this image's line; with
/// PGAS_WATCHDOG=S it ends the job. Off until an environment has read PGAS_WATCHDOG, and with
/// PGAS_WATCHDOG=0. Returns what PMPI_Finalize returns. Local.
int finalize_watched() noexcept;

}  // namespace pgas::runtime::watchdog
