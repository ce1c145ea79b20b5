// An element type that cannot travel as bytes must be refused with a clear message.
#include <pgas/pgas.hpp>

#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
#ifdef PGAS_COMPILE_FAIL
  pgas::array<std::string> a(4);
#else
  pgas::array<char> a(4);
#endif
  return static_cast<int>(a.size()) - 4;
}
