#include "window_alignment.hpp"

#include <pgas/runtime/collective.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

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

alignment_shift::alignment_shift(MPI_Comm comm, const void* allocated, int disp_unit) {
  const auto address = reinterpret_cast<std::uintptr_t>(allocated);
  const auto unit = static_cast<std::size_t>(disp_unit);
  long long units = 0;
  for (std::size_t shift = 0; shift <= alignment_padding(disp_unit); shift += unit) {
    if ((address + shift) % window_alignment == 0) {
      units = static_cast<long long>(shift / unit);
      break;
    }
  }
  same_ = static_cast<MPI_Aint>(units);
  if (same_everywhere(std::span<const long long>(&units, 1), comm))
    return;
  const std::vector<std::byte> all = allgather_bytes(&same_, sizeof same_, comm);
  by_rank_.resize(all.size() / sizeof(MPI_Aint));
  std::memcpy(by_rank_.data(), all.data(), all.size());
}

}  // namespace pgas::runtime
