#pragma once
// Waiting for another image to change memory this image polls.

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/messages.hpp>

#include <thread>

namespace pgas::detail {

/// Tells the processor this is a spin-wait: the polling core backs off the cache line the other
/// image is about to write, and saves power.
inline void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Polls `done()` until it returns true. With a core of its own each image polls without
/// pause, as MPI's own receive does; when images outnumber the cores (the tests run 4 on 2) the
/// core is yielded between polls after a few quick ones, since a busy poll would keep the very
/// image it waits for off the core.
/// The engine's handlers run between polls (the progress rule: a waiting image serves others).
template <class Done>
void spin_until(Done done) {
  if (!runtime::oversubscribed()) {
    while (!done()) {
      if (!runtime::messages::progress()) relax();
    }
    return;
  }
  for (int polls = 0; !done(); ++polls) {
    if (!runtime::messages::progress() && polls >= 16) std::this_thread::yield();
  }
}

}  // namespace pgas::detail
