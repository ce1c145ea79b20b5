#pragma once
// The HPCC RandomAccess random stream, shared by the gups example and benchmark.

#include <cstddef>
#include <cstdint>
#include <vector>

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

/// One image's share of the stream: the `count` values after the `image * count`-th, made as
/// they are used (as HPCC's and PRK's programs do), so reading them costs no memory traffic.
struct image_stream {
  std::int64_t first;  // the position of the value before the first
  std::size_t count;

  image_stream(std::size_t image, std::size_t per_image)
      : first{static_cast<std::int64_t>(per_image * image)}, count{per_image} {}
  /// f(value) for each value in order.
  template <class F>
  void for_each(F&& f) const {
    std::uint64_t ran = starts(first);
    for (std::size_t u = 0; u < count; ++u) f(ran = next(ran));
  }
  /// The stream cut into n runs of count / n values, as PRK cuts its own: the value before each
  /// run's first. Stepping every run in turn yields the same values (the rest, count % n, come
  /// last), so the same table, and no step waits for the one before it.
  [[nodiscard]] std::vector<std::uint64_t> lanes(std::size_t n) const {
    std::vector<std::uint64_t> out(n);
    for (std::size_t j = 0; j < n; ++j)
      out[j] = starts(first + static_cast<std::int64_t>(j * (count / n)));
    return out;
  }
  /// f(value) for each value, by runs: one value of every lane in turn, then the rest.
  template <class F>
  void for_each_by_lanes(std::vector<std::uint64_t> ran, F&& f) const {
    const std::size_t steps = count / ran.size();
    for (std::size_t s = 0; s < steps; ++s) {
      for (auto& r : ran) f(r = next(r));
    }
    rest(ran.size()).for_each(f);
  }
  /// The values the lanes of n runs leave over.
  [[nodiscard]] image_stream rest(std::size_t n) const {
    image_stream out = *this;
    out.first += static_cast<std::int64_t>(count - count % n);
    out.count = count % n;
    return out;
  }
};

}  // namespace hpcc
