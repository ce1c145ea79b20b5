// A program cannot reach the MPI window behind a container: its epochs and building members are
// the library's (containers show their team instead).
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::array<long> a(8);
  const bool ok = a.team() == pgas::current_team();  // the public way to ask who holds it
#ifdef PGAS_COMPILE_FAIL
  (void)a.window();
#endif
  return ok ? 0 : 1;
}
