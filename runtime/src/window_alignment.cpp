#include "window_alignment.hpp"

#include <pgas/runtime/collective.hpp>

#include <cstdint>
#include <numeric>

namespace pgas::runtime {

namespace {

// The bytes beyond the exposure a shift of whole disp_units may need: shifts by k units cycle
// through window_alignment / gcd residues, so the last one worth trying is one short of that.
std::size_t alignment_padding(int disp_unit) noexcept {
  const auto unit = static_cast<std::size_t>(disp_unit);
  if (unit == 0 || unit > window_alignment)
    return 0;
  return (window_alignment / std::gcd(unit, window_alignment) - 1) * unit;
}

}  // namespace

std::size_t allocation_bytes(std::size_t exposed, int disp_unit) noexcept {
  const std::size_t padded = exposed + alignment_padding(disp_unit);
  return (padded + window_alignment - 1) / window_alignment * window_alignment;
}

MPI_Aint agreed_alignment_shift(MPI_Comm comm, const void* allocated, int disp_unit) {
  const auto address = reinterpret_cast<std::uintptr_t>(allocated);
  const auto unit = static_cast<std::size_t>(disp_unit);
  long long units = 0;
  for (std::size_t shift = 0; shift <= alignment_padding(disp_unit); shift += unit) {
    if ((address + shift) % window_alignment == 0) {
      units = static_cast<long long>(shift / unit);
      break;
    }
  }
  // Alike on every process, in units of one size: a displacement on any target then
  // translates by one constant.
  const long long mine[2] = {units, disp_unit};
  return same_everywhere(mine, comm) ? static_cast<MPI_Aint>(units) : 0;
}

}  // namespace pgas::runtime
