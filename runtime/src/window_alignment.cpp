#include "window_alignment.hpp"

#include <pgas/runtime/error.hpp>

#include <cstdint>
#include <numeric>

namespace pgas::runtime {

std::size_t alignment_padding(int disp_unit) noexcept {
  const auto unit = static_cast<std::size_t>(disp_unit);
  if (unit == 0 || unit > window_alignment) return 0;
  // Shifts by k units cycle through window_alignment / gcd residues: the last one worth trying
  // is one short of that.
  return (window_alignment / std::gcd(unit, window_alignment) - 1) * unit;
}

std::size_t allocation_bytes(std::size_t exposed, int disp_unit) noexcept {
  const std::size_t padded = exposed + alignment_padding(disp_unit);
  return (padded + window_alignment - 1) / window_alignment * window_alignment;
}

std::size_t agreed_alignment_shift(MPI_Comm comm, const void* allocated, int disp_unit) {
  const std::size_t padding = alignment_padding(disp_unit);
  const auto address = reinterpret_cast<std::uintptr_t>(allocated);
  long long mine = 0;
  for (std::size_t shift = 0; shift <= padding; shift += static_cast<std::size_t>(disp_unit)) {
    if ((address + shift) % window_alignment == 0) {
      mine = static_cast<long long>(shift);
      break;
    }
  }
  // The largest and the negated smallest shift, and the same for disp_unit: one allreduce says
  // whether every process shifts alike, in units of one size, so a displacement on any target
  // translates by one constant.
  long long extremes[4] = {mine, -mine, disp_unit, -static_cast<long long>(disp_unit)};
  check(MPI_Allreduce(MPI_IN_PLACE, extremes, 4, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
  const bool alike = extremes[0] == -extremes[1] && extremes[2] == -extremes[3];
  return alike ? static_cast<std::size_t>(mine) : 0;
}

}  // namespace pgas::runtime
