// HDF5 files hold elements of types with a native HDF5 type; an array of structs must not
// compile into a write.
#include <pgas/hdf5.hpp>
#include <pgas/pgas.hpp>

struct point {
  int x;
  int y;
};

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::array<double> fine(4);
  pgas::hdf5::write(fine, "fine.h5", "/a");
#ifdef PGAS_COMPILE_FAIL
  pgas::array<point> a(4);
  pgas::hdf5::write(a, "points.h5", "/a");
#endif
  return 0;
}
