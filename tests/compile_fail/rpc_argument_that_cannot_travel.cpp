// Remote calls carry their arguments as bytes: a std::map cannot travel and must not compile.
#include <pgas/pgas.hpp>

#include <map>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  pgas::rpc_ff(
      0, [](int x) { (void)x; }, 1);  // a trivially copyable argument is fine
#ifdef PGAS_COMPILE_FAIL
  const std::map<int, int> table{{1, 2}};
  pgas::rpc_ff(
      0, [](const std::map<int, int>& m) { (void)m; }, table);
#endif
  pgas::sync_all();
  return 0;
}
