// Values that are not trivially copyable travel serialized; a type that cannot be serialized
// must not compile into a collective.
#include <pgas/pgas.hpp>
#include <pgas/serialization.hpp>

#include <string>

struct no_serialize {
  std::string name;
};

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const std::string fine = pgas::co_broadcast(std::string("ok"), 0);
#ifdef PGAS_COMPILE_FAIL
  const no_serialize x = pgas::co_broadcast(no_serialize{"x"}, 0);
#endif
  return fine.empty() ? 1 : 0;
}
