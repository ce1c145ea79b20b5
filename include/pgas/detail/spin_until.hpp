#pragma once
// Waiting for another image to change memory this image polls.

#include <thread>

namespace pgas::detail {

/// Polls `done()` until it returns true: a few quick polls, then the core is yielded between
/// polls, since images may outnumber cores (the tests run 4 on 2) and a busy poll would keep
/// the very image it waits for off the core.
template <class Done>
void spin_until(Done done) {
  for (int polls = 0; !done(); ++polls) {
    if (polls >= 16) std::this_thread::yield();
  }
}

}  // namespace pgas::detail
