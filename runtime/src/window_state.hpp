#pragma once
// What a window handle owns, shared by the runtime's window code and the window pool; private
// to runtime/src.

#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <vector>

namespace pgas::runtime {

enum class epoch { none, passive, fence, neighbourhood };

struct window_state {
  MPI_Win win = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int ranks = 1;
  window_flavor flavor = window_flavor::allocate;
  // Allocated on the library's world communicator with known sizes and no hints: the window
  // pool may keep it for the next window of the same shape instead of freeing it.
  bool poolable = false;
  void* owned_memory = nullptr;  // from MPI_Alloc_mem, for create() without caller memory
  std::vector<std::size_t> sizes;  // bytes each rank exposes (not for dynamic windows)
  std::vector<int> disp_units;
  epoch mode = epoch::none;
  struct region {
    void* base;
    std::size_t bytes;
  };
  std::vector<region> attached;
  std::vector<unsigned char> pending;  // per target: a write not yet remotely complete
  std::vector<int> pending_targets;    // the targets marked in `pending`
  // Staged origin values: chunks reused after each completion; oversized values get their own.
  static constexpr std::size_t chunk_bytes = 64 * 1024;
  std::vector<std::unique_ptr<std::byte[]>> chunks;
  std::vector<std::unique_ptr<std::byte[]>> oversized;
  std::size_t chunk_index = 0;
  std::size_t chunk_used = 0;
  std::size_t staged_since_completion = 0;
};

inline std::vector<window_state*>& live_windows() {
  static std::vector<window_state*> windows;
  return windows;
}

inline bool mpi_running() noexcept {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

inline void report(int code, const char* call, int rank) noexcept {
  if (code != MPI_SUCCESS) {
    std::fprintf(stderr, "pgas: %s failed on image %d while releasing a window (code %d)\n", call,
                 rank, code);
  }
}

inline void reset_staging(window_state& s) noexcept {
  s.chunk_index = 0;
  s.chunk_used = 0;
  s.oversized.clear();
  s.staged_since_completion = 0;
}

inline void clear_pending(window_state& s) noexcept {
  for (int t : s.pending_targets) s.pending[static_cast<std::size_t>(t)] = 0;
  s.pending_targets.clear();
}

inline void clear_pending(window_state& s, int target) noexcept {
  if (s.pending[static_cast<std::size_t>(target)] == 0) return;
  s.pending[static_cast<std::size_t>(target)] = 0;
  s.pending_targets.erase(std::find(s.pending_targets.begin(), s.pending_targets.end(), target));
}

}  // namespace pgas::runtime
