// Writing an element of a const vector must not compile.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const pgas::vector<int> v(4);
  const int first = v[0];  // reading is fine
#ifdef PGAS_COMPILE_FAIL
  v[0] = 1;
#endif
  return first;
}
