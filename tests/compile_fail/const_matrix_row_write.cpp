// Writing through a row pointer of a const matrix must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::matrix<int> m(4, 4);
  int v = m.local_rows() == 0 ? 0 : m.local().row(0)[0];  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  m.local().row(0)[0] = 1;
#endif
  return v;
}
