#include <pgas/runtime/error.hpp>

#include <mpi.h>

#include <array>
#include <string>

namespace pgas {

int mpi_error::error_class() const noexcept {
  int cls = code_;
  MPI_Error_class(code_, &cls);
  return cls;
}

namespace runtime {
namespace {

// The calling process's rank in MPI_COMM_WORLD, or -1 when MPI is not running.
int world_rank_or_minus_one() noexcept {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = -1;
  if (initialized != 0 && finalized == 0)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

}  // namespace

static_assert(MPI_SUCCESS == 0, "check() tests a return code against 0");

void throw_mpi_error(int code, const char* call) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  if (MPI_Error_string(code, text.data(), &length) != MPI_SUCCESS)
    length = 0;
  throw mpi_error(code, call,
                  std::string(call) + " failed on image " +
                      std::to_string(world_rank_or_minus_one()) + ": " +
                      std::string(text.data(), static_cast<std::size_t>(length)));
}

void throw_out_of_range(const char* what, std::size_t index, std::size_t size) {
  throw out_of_range(std::string(what) + " " + std::to_string(index) +
                     " is out of range for size " + std::to_string(size) + " (image " +
                     std::to_string(world_rank_or_minus_one()) + ")");
}

}  // namespace runtime
}  // namespace pgas
