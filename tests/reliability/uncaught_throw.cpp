// A program in which one image fails while the others wait in a collective: with
// `--throw` image 1 throws an exception nobody catches, with `--kill` it kills itself, with
// `--rpc-throw` a function image 0 sent it with rpc_ff throws there, with `--swap-on-one-image`
// image 0 alone swaps two arrays, so the images destroy different ones at the end of the scope,
// with `--caught-outside` image 1 throws out of the environment's scope to a handler of main's
// own, which says what it caught (as a program's top-level `catch` does), with `--exit-inside`
// image 1 calls std::exit(0) while its environment lives.
// tests/reliability/check_failure_ends_job.cmake checks that the whole job ends, non-zero,
// within 10 seconds, leaving no process behind.
#include <pgas/pgas.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

int run(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bool kill_instead = argc > 1 && std::strcmp(argv[1], "--kill") == 0;
  const bool exit_instead = argc > 1 && std::strcmp(argv[1], "--exit-inside") == 0;
  const bool in_a_call = argc > 1 && std::strcmp(argv[1], "--rpc-throw") == 0;
  pgas::array<int> a(16);
  if (argc > 1 && std::strcmp(argv[1], "--swap-on-one-image") == 0) {
    pgas::array<int> b(16);
    if (pgas::this_image() == 0)
      std::swap(a, b);
    return 0;  // b, then a, go: a different window on image 0 than on the others
  }
  if (in_a_call) {
    if (pgas::this_image() == 0) {
      pgas::rpc_ff(
          1 % pgas::num_images(),
          [](int x) { throw std::runtime_error("a remote call gives up at " + std::to_string(x)); },
          42);
    }
    pgas::sync_all();  // image 1 runs the call here, and the job ends
    return 0;
  }
  if (pgas::this_image() == 1 % pgas::num_images()) {
    if (kill_instead)
      std::raise(SIGKILL);
    if (exit_instead)
      std::exit(0);  // leaves without ending the environment: MPI is not finalised
    throw std::runtime_error("image 1 gives up");  // leaves run()
  }
  pgas::sync_all();  // the other images wait here for an image that will never come
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--caught-outside") == 0) {
    try {
      return run(argc, argv);
    } catch (const std::exception& e) {
      // The environment is gone; the other images still wait in sync_all.
      std::fprintf(stderr, "caught outside the environment: %s\n", e.what());
      return 1;
    }
  }
  return run(argc, argv);
}
