// Writing into the whole local block (ghosts included) of a const matrix must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::matrix<int> m(4, 4);
  int v = m.local().with_halo().empty() ? 0 : m.local().with_halo()[0];  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  m.local().with_halo()[0] = 1;
#endif
  return v;
}
