// Fortran 2018's collectives on arrays, in place: co_sum / co_min / co_max / co_reduce with and
// without a result image, co_broadcast from any image, the started (async_) forms, and the
// agreement checks (lengths and images the same everywhere).
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <cstdint>
#include <span>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::me;

std::vector<double> values_of(std::size_t img) {
  return {static_cast<double>(img), 10.0 + static_cast<double>(img), -static_cast<double>(img)};
}

// As values_of, and as many more as make the array too long to travel with the collective's
// argument check (runtime::agreed_values_bytes): the collectives' other path.
std::vector<double> long_values_of(std::size_t img) {
  std::vector<double> v = values_of(img);
  for (std::size_t k = 0; k < pgas::runtime::agreed_values_bytes / sizeof(double); ++k)
    v.push_back(static_cast<double>(img * 1000 + k));
  return v;
}

TEST(ArrayCollectives, sum_min_max_on_every_image) {
  const double p = static_cast<double>(images());
  auto v = values_of(me());
  pgas::co_sum(std::span<double>(v));
  EXPECT_DOUBLE_EQ(v[0], p * (p - 1) / 2);
  EXPECT_DOUBLE_EQ(v[1], 10 * p + p * (p - 1) / 2);
  auto lo = values_of(me());
  pgas::co_min(std::span<double>(lo));
  EXPECT_DOUBLE_EQ(lo[2], -(p - 1));
  auto hi = values_of(me());
  pgas::co_max(std::span<double>(hi));
  EXPECT_DOUBLE_EQ(hi[0], p - 1);
  std::vector<std::int64_t> bits{std::int64_t{1} << me()};
  pgas::co_reduce(std::span<std::int64_t>(bits), pgas::reduce_op::bor);
  EXPECT_EQ(bits[0], (std::int64_t{1} << images()) - 1);
}

TEST(ArrayCollectives, a_result_image_gets_the_result_and_the_others_keep_theirs) {
  for (const auto make : {values_of, long_values_of}) {
    for (std::size_t result = 0; result < images(); ++result) {
      auto v = make(me());
      pgas::co_sum(std::span<double>(v), result);
      const double p = static_cast<double>(images());
      if (me() == result) {
        EXPECT_DOUBLE_EQ(v[0], p * (p - 1) / 2);
        EXPECT_DOUBLE_EQ(v.back(), make(images() - 1).back() * p / 2 + make(0).back() * p / 2);
      } else {
        EXPECT_EQ(v, make(me()));
      }
    }
  }
}

TEST(ArrayCollectives, broadcast_from_each_image) {
  for (const auto make : {values_of, long_values_of}) {
    for (std::size_t source = 0; source < images(); ++source) {
      auto v = make(me());
      pgas::co_broadcast(std::span<double>(v), source);
      EXPECT_EQ(v, make(source));
      double one = static_cast<double>(me());
      EXPECT_EQ(pgas::co_broadcast(one, source), static_cast<double>(source));
    }
  }
}

TEST(ArrayCollectives, started_forms_complete_with_the_same_results) {
  auto v = values_of(me());
  auto w = values_of(me());
  auto b = values_of(me());
  auto sum = pgas::async_co_sum(std::span<double>(v));
  auto most = pgas::async_co_max(std::span<double>(w));
  auto from_last = pgas::async_co_broadcast(std::span<double>(b), images() - 1);
  pgas::when_all(std::move(sum), std::move(most), std::move(from_last)).wait();
  const double p = static_cast<double>(images());
  EXPECT_DOUBLE_EQ(v[1], 10 * p + p * (p - 1) / 2);
  EXPECT_DOUBLE_EQ(w[1], 10 + p - 1);
  EXPECT_EQ(b, values_of(images() - 1));
}

TEST(ArrayCollectives, empty_arrays_are_fine) {
  std::vector<double> none;
  EXPECT_NO_THROW(pgas::co_sum(std::span<double>(none)));
  EXPECT_NO_THROW(pgas::co_broadcast(std::span<double>(none), 0));
  // Every image took part in both alike: the next collective pairs up as usual.
  std::vector<double> one{static_cast<double>(pgas::this_image())};
  pgas::co_sum(std::span<double>(one));
  const double p = static_cast<double>(pgas::num_images());
  EXPECT_EQ(one[0], p * (p - 1) / 2);
}

}  // namespace
