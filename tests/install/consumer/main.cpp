// A program outside the pgas tree: it only sees the installed headers and library.
#include <pgas/pgas.hpp>
#ifdef CONSUMER_USES_HDF5
#include <pgas/hdf5.hpp>
#endif

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::array<long> a(100);
  for (std::size_t i = pgas::this_image(); i < a.size(); i += pgas::num_images())
    a[i] = 2 * static_cast<long>(i);
  pgas::sync_all();
  long sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i];
  pgas::sync_all();
  if (sum != 9900) {
    std::fprintf(stderr, "consumer: wrong sum %ld\n", sum);
    return 1;
  }
  std::string with = "";
#ifdef CONSUMER_USES_HDF5
  const std::filesystem::path file =
      std::filesystem::path(argc > 1 ? argv[1] : ".") / "consumer.h5";
  pgas::hdf5::write(a, file, "/a");
  pgas::array<long, pgas::cyclic> b(100);
  pgas::hdf5::read(b, file, "/a");
  for (std::size_t k = 0; k < b.local().size(); ++k) {
    if (b.local()[k] != 2 * static_cast<long>(b.global_index(k))) {
      std::fprintf(stderr, "consumer: wrong value read back at %zu\n", b.global_index(k));
      return 1;
    }
  }
  with = " (with pgas::hdf5)";
#endif
  if (pgas::this_image() == 0)
    std::printf("consumer: ok on %zu images%s\n", pgas::num_images(), with.c_str());
  return 0;
}
