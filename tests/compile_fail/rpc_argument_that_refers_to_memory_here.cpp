// A view or a global_ptr is trivially copyable, but its bytes are an address of the image that
// holds it: a remote call refuses it instead of carrying the address to another image.
#include <pgas/pgas.hpp>

#include <string>
#include <string_view>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const std::string key = "key";
  pgas::rpc_ff(
      0, [](const std::string& k) { (void)k; }, key);  // the string itself is fine
#ifdef PGAS_COMPILE_FAIL
  pgas::rpc_ff(
      0, [](std::string_view k) { (void)k; }, std::string_view(key));
#endif
  pgas::sync_all();
  return 0;
}
