// Writing through a const iterator must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::array<int> a(4);
  auto it = a.cbegin();
  int v = *it;
#ifdef PGAS_COMPILE_FAIL
  *it = 1;
#endif
  return v;
}
