// Writing a global element of a const ndarray must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::ndarray<double, 2> a({4, 4});
  const double v = a(0, 0);  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  a(0, 0) = 1.0;
#endif
  return v == 0.0 ? 0 : 1;
}
