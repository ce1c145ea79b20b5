// A program in which one image fails while the others wait in a collective: with
// `--throw` image 1 throws an exception nobody catches, with `--kill` it kills itself.
// tests/reliability/check_failure_ends_job.cmake checks that the whole job ends, non-zero,
// within 10 seconds, leaving no process behind.
#include <pgas/pgas.hpp>

#include <csignal>
#include <cstring>
#include <stdexcept>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bool kill_instead = argc > 1 && std::strcmp(argv[1], "--kill") == 0;
  pgas::array<int> a(16);
  if (pgas::this_image() == 1 % pgas::num_images()) {
    if (kill_instead) std::raise(SIGKILL);
    throw std::runtime_error("image 1 gives up");  // escapes main: nobody catches it
  }
  pgas::sync_all();  // the other images wait here for an image that will never come
  return 0;
}
