// A program outside the pgas tree: it only sees the installed headers and library.
#include <pgas/pgas.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::array<long> a(100);
  for (std::size_t i = pgas::this_image(); i < a.size(); i += pgas::num_images()) a[i] = 2 * static_cast<long>(i);
  pgas::sync_all();
  long sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i];
  pgas::sync_all();
  if (sum != 9900) {
    std::fprintf(stderr, "consumer: wrong sum %ld\n", sum);
    return 1;
  }
  if (pgas::this_image() == 0) std::printf("consumer: ok on %zu images\n", pgas::num_images());
  return 0;
}
