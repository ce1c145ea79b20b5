// Using the library after the environment ended is a usage_error, not a crash: exits 0 only if
// every misuse was refused cleanly.
#include <pgas/pgas.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  {
    pgas::environment env(argc, argv);
    pgas::array<int> a(4);
    pgas::sync_all();
  }
  int refused = 0;
  try {
    (void)pgas::this_image();
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  try {
    pgas::sync_all();
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  try {
    pgas::array<int> b(4);
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  try {
    pgas::environment again;
  } catch (const pgas::usage_error&) {
    ++refused;
  }
  std::printf("%d of 4 misuses after the environment ended were refused\n", refused);
  return refused == 4 ? 0 : 1;
}
