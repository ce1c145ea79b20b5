// Coarrays: this image's copy, remote copies, a ring, neighbour exchange, collectives.
#include <pgas/pgas.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/rma.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::left;
using pgas_test::me;
using pgas_test::right;

TEST(Coarray, local_copy_and_remote_copies) {
  pgas::coarray<int> x(3);
  EXPECT_EQ(*x, 3);
  *x = 10 * static_cast<int>(me());
  pgas::sync_all();
  for (std::size_t img = 0; img < images(); ++img)
    EXPECT_EQ(static_cast<int>(x(img)), 10 * static_cast<int>(img));
  pgas::sync_all();
}

TEST(Coarray, a_token_goes_around_the_ring_with_sync_images) {
  pgas::coarray<long> token(0);
  // Image 0 starts; each image waits for its left neighbour, adds its number and passes on;
  // image 0 gets the token back from the last image.
  if (me() == 0) {
    token(right()) = 1;
    if (images() > 1) {
      pgas::sync_images({right()});
      pgas::sync_images({left()});
    }
  } else {
    pgas::sync_images({left()});
    token(right()) = *token + static_cast<long>(me());
    pgas::sync_images({right()});
  }
  // Image k > 0 holds what its left neighbour passed: 1 + 1 + 2 + ... + (k - 1); image 0 the
  // whole sum back from the last image.
  const std::size_t k = me() == 0 ? images() : me();
  EXPECT_EQ(*token, 1 + static_cast<long>(k * (k - 1) / 2));
  pgas::sync_all();
}

TEST(Coarray, neighbour_exchange_of_arrays) {
  pgas::coarray<double[8]> halo;
  std::array<double, 8> mine{};
  std::iota(mine.begin(), mine.end(), 100.0 * static_cast<double>(me()));
  halo(right()) = mine;  // one transfer of 8 doubles
  pgas::sync_all();
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_DOUBLE_EQ(halo[k], 100.0 * static_cast<double>(left()) + static_cast<double>(k));
  }
  const std::array<double, 8> from_right = halo(right()).get();
  EXPECT_DOUBLE_EQ(from_right[7], 100.0 * static_cast<double>(me()) + 7.0);
  EXPECT_DOUBLE_EQ(halo(left())[2].get(),
                   100.0 * static_cast<double>((left() + images() - 1) % images()) + 2.0);
  EXPECT_EQ(halo.local().size(), 8u);
  EXPECT_EQ(pgas::coarray<double[8]>::extent(), 8u);
  pgas::sync_all();
}

TEST(RunTimeSizedCoarray, a_long_put_leaves_its_buffer_free_and_a_later_put_wins) {
  // Longer than completed_remotely_bytes: through MPI alone (off node, PGAS_SHARED_MEMORY=0)
  // such a put completes at the target before it returns; to a mapped peer it is a copy.
  // Either way the buffer may change at once, and a later put to its first elements wins.
  const std::size_t n = 3 * pgas::runtime::completed_remotely_bytes / sizeof(long) / 2;
  pgas::coarray<long[]> c(n, -1);
  std::vector<long> buffer(n);
  std::iota(buffer.begin(), buffer.end(), static_cast<long>(1000 * me()));
  c(right()).put(std::span<const long>(buffer));
  std::fill(buffer.begin(), buffer.end(), -7L);
  const std::array<long, 2> first{-5, -6};
  c(right()).put(std::span<const long>(first));
  pgas::sync_all();
  EXPECT_EQ(c[0], -5);
  EXPECT_EQ(c[1], -6);
  std::size_t wrong = 0;
  for (std::size_t k = 2; k < n; ++k)
    wrong += c[k] == static_cast<long>(1000 * left() + k) ? 0U : 1U;
  EXPECT_EQ(wrong, 0u);
  pgas::sync_all();
}

TEST(RunTimeSizedCoarray, local_remote_and_whole_copy_transfers) {
  const std::size_t n = 3 + images();  // chosen at run time, the same everywhere
  pgas::coarray<long[]> c(n, -1);
  EXPECT_EQ(c.extent(), n);
  ASSERT_EQ(c.local().size(), n);
  for (std::size_t k = 0; k < n; ++k) c[k] = static_cast<long>(100 * me() + k);
  pgas::sync_all();
  const std::size_t right = (me() + 1) % images();
  EXPECT_EQ(c(right)[n - 1].get(), static_cast<long>(100 * right + n - 1));
  std::vector<long> all(n);
  c(right).get(std::span<long>(all));
  for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(all[k], static_cast<long>(100 * right + k));
  pgas::sync_all();
  std::vector<long> two{7, 8};
  c(right).put(std::span<const long>(two));  // the first two elements only
  std::vector<long> part(2);
  pgas::get(c(right), n - 2, std::span<long>(part));  // the free transfer functions work too
  pgas::sync_all();
  EXPECT_EQ(c[0], 7);
  EXPECT_EQ(c[1], 8);
  EXPECT_EQ(c[2], static_cast<long>(100 * me() + 2));
  EXPECT_EQ(part[1], static_cast<long>(100 * right + n - 1));
  const pgas::coarray<long[]>& view = c;
  EXPECT_EQ(view(right)[0].get(), 7);
  pgas::sync_all();
}

TEST(Collectives, sum_min_max_reduce_broadcast) {
  const int v = static_cast<int>(me()) + 1;
  const int n = static_cast<int>(images());
  EXPECT_EQ(pgas::co_sum(v), n * (n + 1) / 2);
  EXPECT_EQ(pgas::co_min(v), 1);
  EXPECT_EQ(pgas::co_max(v), n);
  EXPECT_DOUBLE_EQ(pgas::co_sum(0.5), 0.5 * n);
  EXPECT_EQ(pgas::co_broadcast(v * 7, images() - 1), n * 7);
  // A non-commutative op is folded in image order: string-like concatenation of digits.
  const long digits =
      pgas::co_reduce(static_cast<long>(me() + 1), [](long a, long b) { return a * 10 + b; });
  long want = 0;
  for (int img = 1; img <= n; ++img) want = want * 10 + img;
  EXPECT_EQ(digits, want);
  struct pair {
    int lo;
    int hi;
  };
  const pair range = pgas::co_reduce(pair{v, v}, [](pair a, pair b) {
    return pair{std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
  });
  EXPECT_EQ(range.lo, 1);
  EXPECT_EQ(range.hi, n);
}

// The check that the images pass the same arguments (sizes, roots, type digests, any value):
// a few values go as one record, many as an allreduce; in both a difference in the last value
// of the last image is found, and the least and greatest long long are values like any other.
TEST(Collectives, images_find_whether_they_pass_the_same_values) {
  const MPI_Comm comm = pgas::runtime::current_comm();
  // Past the record: each value travels with its complement, 16 bytes.
  const std::size_t many = pgas::runtime::max_reduced_record_bytes / 16 + 1;
  for (const std::size_t n : {std::size_t{3}, many}) {
    std::vector<long long> values(n, LLONG_MIN);
    values.front() = LLONG_MAX;
    EXPECT_TRUE(pgas::runtime::same_everywhere(values, comm));
    if (me() == images() - 1)
      values.back() = LLONG_MIN + 1;
    EXPECT_EQ(pgas::runtime::same_everywhere(values, comm), images() == 1);
  }
}

// A sum whose rounding depends on the order of its terms (1e16 swallows a 1.0 added to it
// alone, not two added first) must come out bit for bit the same on every image, at every
// count of images, including those that are not a power of two.
TEST(Collectives, a_scalar_sum_gives_every_image_the_same_bits) {
  const double terms[] = {1.0, 1e16, 1.0, -1e16};
  const double sum = pgas::co_sum(terms[me() % 4]);
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(sum);
  EXPECT_EQ(pgas::co_min(bits), pgas::co_max(bits));
  long double exact = 0.0L;  // x86's long double holds 1e16 + 2 exactly
  for (std::size_t img = 0; img < images(); ++img) exact += terms[img % 4];
  EXPECT_LE(std::abs(static_cast<long double>(sum) - exact), 2.0L);
  // Image 1 of three is folded into another's record before the doubling starts.
  EXPECT_EQ(pgas::co_sum(static_cast<long>(me() % 4 == 1 ? 3 : 1)),
            static_cast<long>(images() + 2 * ((images() + 2) / 4)));
}

// An image waiting in a scalar reduction serves the calls of images that have not reached it:
// the last image is in co_sum while image 0 waits for its call to run there first.
TEST(Collectives, an_image_in_a_scalar_reduction_serves_calls) {
  const std::size_t last = images() - 1;
  pgas::dist_object<long> calls(0L);
  if (me() == 0) {
    EXPECT_EQ(pgas::rpc(
                  last, [](pgas::dist_object<long>& d) { return ++*d; }, calls)
                  .get(),
              1L);
  }
  EXPECT_EQ(pgas::co_sum(1L), static_cast<long>(images()));
  EXPECT_EQ(pgas::co_max(*calls), 1L);
}

}  // namespace
