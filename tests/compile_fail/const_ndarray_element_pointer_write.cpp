// Writing through the global pointer a const ndarray hands out must not compile: element() of a
// const ndarray points to const elements.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::ndarray<double, 2> a({4, 4});
  const double v = *a.element({0, 0});  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  *a.element({0, 0}) = 1.0;
#endif
  return v == 0.0 ? 0 : 1;
}
