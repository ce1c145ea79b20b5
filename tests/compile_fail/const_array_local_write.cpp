// Writing through a const array's local span must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::array<int> a(4);
  int v = a.local().empty() ? 0 : a.local()[0];
#ifdef PGAS_COMPILE_FAIL
  a.local()[0] = 1;
#endif
  return v;
}
