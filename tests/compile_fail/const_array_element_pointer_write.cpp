// Writing through the global_ptr a const array hands out must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::array<int> a(4);
  int v = *a.element(0);  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  *a.element(0) = 1;
#endif
  return v;
}
