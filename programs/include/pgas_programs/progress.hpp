#pragma once
// A progress line for long runs, on image 0, only when a person is watching: when the job's
// standard error reaches a terminal, not a file or a pipe. PGAS_PROGRESS=1 or 0 overrides.

#include <pgas/runtime/environment.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace pgas_programs {

namespace detail {

// The parent of process `pid` and its command name, from /proc.
inline int parent_of(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);                   // one line
  const std::size_t close = text.rfind(')');  // the name may hold spaces; the fields follow it
  if (close == std::string::npos)
    return 0;
  char state = 0;
  int parent = 0;
  return std::sscanf(text.c_str() + close + 1, " %c %d", &state, &parent) == 2 ? parent : 0;
}

inline std::string command_of(int pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

inline bool is_launcher(const std::string& name) {
  for (const char* l :
       {"mpirun", "mpiexec", "orterun", "orted", "prterun", "prted", "hydra_pmi_proxy",
        "mpiexec.hydra", "mpiexec.openmpi", "mpirun.openmpi", "mpiexec.mpich", "mpirun.mpich"}) {
    if (name == l)
      return true;
  }
  return false;
}

}  // namespace detail

/// True when this process's standard error ends on a terminal. Under a launcher the process's
/// own descriptor says nothing (Open MPI and MPICH forward output through pipes or their own
/// pseudo-terminals), so the answer is the outermost launcher's.
inline bool stderr_reaches_terminal() {
  if (const char* v = std::getenv("PGAS_PROGRESS"))
    return std::string(v) == "1";
  int pid = static_cast<int>(::getpid());
  bool launched = false;
  for (int depth = 0; depth < 8; ++depth) {
    const int parent = detail::parent_of(pid);
    if (parent <= 1 || !detail::is_launcher(detail::command_of(parent)))
      break;
    pid = parent;
    launched = true;
  }
  if (!launched)
    return ::isatty(STDERR_FILENO) == 1;
  std::array<char, 256> target{};
  const ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/fd/2").c_str(), target.data(),
                               target.size() - 1);
  const std::string where(target.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
  return where.rfind("/dev/pts/", 0) == 0 || where.rfind("/dev/tty", 0) == 0;
}

/// "what: step k of n (p%)" on one line of image 0's standard error, redrawn at most four
/// times a second, erased by done() or at destruction; silent unless a terminal watches.
class progress {
 public:
  progress(std::string what, long long total)
      : what_{std::move(what)},
        total_{total},
        shown_{pgas::this_image() == 0 && stderr_reaches_terminal()} {}
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  ~progress() { done(); }

  /// Local. Cheap when nothing is shown or the last redraw was recent.
  void update(long long step) {
    if (!shown_)
      return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(250))
      return;
    last_ = now;
    drawn_ = true;
    const double percent =
        total_ > 0 ? 100.0 * static_cast<double>(step) / static_cast<double>(total_) : 100.0;
    std::fprintf(stderr, "\r%s: step %lld of %lld (%.0f%%)\033[K", what_.c_str(), step, total_,
                 percent);
    std::fflush(stderr);
  }
  /// Erases the line. Local.
  void done() {
    if (!drawn_)
      return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  std::string what_;
  long long total_;
  bool shown_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace pgas_programs
