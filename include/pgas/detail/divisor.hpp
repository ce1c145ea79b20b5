#pragma once
// Division by a number fixed when a distribution is bound, done as a multiplication and a shift
// (libdivide) instead of a hardware division: every owner() and local_offset() divides by the
// block size or the image count, which the compiler cannot see, and a 64-bit division costs
// tens of cycles on the paths that map one index after another (gather, scatter, aggregators,
// histograms, element access).

#include <cstddef>
#include <cstdint>
#include <libdivide.h>

namespace pgas::detail {

class divisor {
 public:
  divisor() noexcept : divisor(1) {}
  /// Dividing by `d`; 0 is taken as 1 (a distribution's empty blocks never divide).
  explicit divisor(std::size_t d) noexcept : value_{d == 0 ? 1 : d}, fast_{value_} {}
  [[nodiscard]] std::size_t value() const noexcept { return value_; }
  friend std::size_t operator/(std::size_t n, const divisor& d) noexcept {
    return static_cast<std::size_t>(d.fast_.divide(n));
  }
  friend std::size_t operator%(std::size_t n, const divisor& d) noexcept {
    return n - (n / d) * d.value_;
  }
  friend bool operator==(const divisor& a, const divisor& b) noexcept {
    return a.value_ == b.value_;
  }

 private:
  std::uint64_t value_;
  libdivide::divider<std::uint64_t> fast_;
};

}  // namespace pgas::detail
