// A map key with padding and no operator== must not compile: compared byte by byte, two equal
// keys could differ in their padding.
#include <pgas/pgas.hpp>

#include <cstddef>
#include <cstdint>

struct padded {
  char tag;
  std::int64_t id;  // 7 bytes of padding before it
};
struct packed {
  std::int64_t id;
  std::int64_t other;  // no padding: bytes compare like members
};
// Any hash the same on every image; it sees only the id.
struct by_id {
  template <class Key>
  std::size_t operator()(const Key& k) const {
    return static_cast<std::size_t>(k.id);
  }
};

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::unordered_map<packed, long, by_id> fine;
  fine.commit();
#ifdef PGAS_COMPILE_FAIL
  pgas::unordered_map<padded, long, by_id> refused;
#endif
  return 0;
}
