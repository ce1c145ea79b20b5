// Writing through a const array's element must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::array<int> a(4);
  int v = a[0];  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  a[0] = 1;
#endif
  return v;
}
