// Atomic accumulates exist only for types MPI can combine; a struct must not compile.
#include <pgas/pgas.hpp>

struct point {
  int x;
  int y;
};

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::array<point> a(4);
  a[0] = point{1, 2};  // plain writes of structs are fine
#ifdef PGAS_COMPILE_FAIL
  a[0] += point{1, 2};
#endif
  return 0;
}
