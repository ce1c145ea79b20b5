#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/transpose_route_setting.hpp>

#include <cstdlib>
#include <span>
#include <string>

namespace pgas::runtime {

namespace {

transpose_route_setting read_setting() {
  const char* v = std::getenv("PGAS_TRANSPOSE_ROUTE");
  if (v == nullptr || *v == '\0')
    return transpose_route_setting::measure;
  const std::string value = v;
  if (value == "measure")
    return transpose_route_setting::measure;
  if (value == "gets")
    return transpose_route_setting::gets;
  if (value == "sends")
    return transpose_route_setting::sends;
  throw usage_error(
      "PGAS_TRANSPOSE_ROUTE must be measure, gets or sends (how a transpose moves "
      "the blocks it reads through MPI), not \"" +
      value + "\"");
}

}  // namespace

transpose_route_setting transpose_route_from_environment() {
  static const transpose_route_setting setting = read_setting();
  return setting;
}

void check_transpose_route_setting() {
  (void)read_setting();
}

void refuse_unless_transpose_route_agreed(MPI_Comm world) {
  const long long mine = static_cast<long long>(transpose_route_from_environment());
  if (!same_everywhere(std::span(&mine, 1), world))
    throw usage_error(
        "PGAS_TRANSPOSE_ROUTE must be the same on every image (they take a transpose's route "
        "together); it differs between images");
}

}  // namespace pgas::runtime
