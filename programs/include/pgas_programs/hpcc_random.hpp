#pragma once
// The HPCC RandomAccess random stream, shared by the gups example and benchmark.

#include <cstdint>

namespace hpcc {

inline constexpr std::uint64_t poly = 0x0000000000000007ULL;
inline constexpr std::uint64_t period = 1317624576693539401ULL;

/// The HPCC generator's n-th value (HPCC_starts).
inline std::uint64_t starts(std::int64_t n) {
  while (n < 0) n += static_cast<std::int64_t>(period);
  while (n > static_cast<std::int64_t>(period)) n -= static_cast<std::int64_t>(period);
  if (n == 0)
    return 0x1;
  std::uint64_t m2[64];
  std::uint64_t temp = 0x1;
  for (auto& m : m2) {
    m = temp;
    temp = (temp << 1) ^ (static_cast<std::int64_t>(temp) < 0 ? poly : 0);
    temp = (temp << 1) ^ (static_cast<std::int64_t>(temp) < 0 ? poly : 0);
  }
  int i = 62;
  for (; i >= 0; --i) {
    if ((n >> i) & 1)
      break;
  }
  std::uint64_t ran = 0x2;
  while (i > 0) {
    temp = 0;
    for (int j = 0; j < 64; ++j) {
      if ((ran >> j) & 1)
        temp ^= m2[j];
    }
    ran = temp;
    --i;
    if ((n >> i) & 1)
      ran = (ran << 1) ^ (static_cast<std::int64_t>(ran) < 0 ? poly : 0);
  }
  return ran;
}

/// The value after ran in the stream.
inline std::uint64_t next(std::uint64_t ran) {
  return (ran << 1) ^ (static_cast<std::int64_t>(ran) < 0 ? poly : 0);
}

}  // namespace hpcc
