// Writing another image's copy through a const coarray must not compile.
#include <pgas/pgas.hpp>

#include <array>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::coarray<int[2]> x;
  int v = x(0).get()[0] + x(0)[1];  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  x(0) = std::array<int, 2>{1, 2};
#endif
  return v;
}
