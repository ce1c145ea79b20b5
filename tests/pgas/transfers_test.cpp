// One image moving many elements alone: pgas::get / put / async_get / async_put, strided,
// gather / scatter / scatter_accumulate, over block, cyclic, block_cyclic(7) and vector, on
// ranges that start and end on every kind of boundary, empty ranges and lists, and coarray
// image parts. Also registered with PGAS_SHARED_MEMORY=0, where every peer goes through MPI
// with derived datatypes.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <utility>
#include <vector>

namespace {

using pgas_test::images;
using pgas_test::me;

long value_at(std::size_t i) {
  return 3 * static_cast<long>(i) + 1;
}

// Each kind of container the transfers accept, made with n elements of value_at(i).
struct block_array {
  using type = pgas::array<long, pgas::block>;
  static type make(std::size_t n) { return type(n); }
};
struct cyclic_array {
  using type = pgas::array<long, pgas::cyclic>;
  static type make(std::size_t n) { return type(n); }
};
struct block_cyclic_array {
  using type = pgas::array<long, pgas::block_cyclic>;
  static type make(std::size_t n) { return type(n, pgas::block_cyclic(7)); }
};
struct growable_vector {
  using type = pgas::vector<long>;
  static type make(std::size_t n) { return type(n); }
};

template <class Maker>
typename Maker::type filled(std::size_t n) {
  auto c = Maker::make(n);
  auto mine = c.local();
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = value_at(c.global_index(k));
  pgas::sync_all();
  return c;
}

template <class Maker>
class Transfers : public ::testing::Test {};
using Containers = ::testing::Types<block_array, cyclic_array, block_cyclic_array, growable_vector>;
TYPED_TEST_SUITE(Transfers, Containers);

const std::vector<std::size_t> sizes = {0, 1, 5, 37, 200};

// Where ranges start and end: both ends, and each side of every place the owner changes.
template <class C>
std::vector<std::size_t> boundaries(const C& c) {
  std::set<std::size_t> out{0, c.size()};
  if (c.size() > 0)
    out.insert(c.size() - 1);
  for (const pgas::segment& s : c.segments()) {
    for (std::size_t b : {s.global_begin, s.global_begin + 1, s.global_begin + s.size - 1}) {
      if (b <= c.size())
        out.insert(b);
    }
  }
  return {out.begin(), out.end()};
}

// The ranges [a, b) to read: every pair of boundaries, or, where there are too many for that
// (cyclic: every index is one, a quadratic count), every range that starts at one of the first
// boundaries or ends at one of the last — each start owner, end owner and length still occurs.
template <class C>
std::vector<std::pair<std::size_t, std::size_t>> ranges_between_boundaries(const C& c) {
  constexpr std::size_t all_pairs_up_to = 64;
  constexpr std::size_t kept_at_each_end = 6;
  const auto ends = boundaries(c);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < ends.size(); ++i) {
    for (std::size_t j = i; j < ends.size(); ++j) {
      if (ends.size() <= all_pairs_up_to || i < kept_at_each_end ||
          j + kept_at_each_end >= ends.size())
        out.emplace_back(ends[i], ends[j]);
    }
  }
  return out;
}

TYPED_TEST(Transfers, get_of_every_range_between_boundaries_matches) {
  for (std::size_t n : sizes) {
    const auto c = filled<TypeParam>(n);
    for (const auto& [a, b] : ranges_between_boundaries(c)) {
      std::vector<long> got(b - a, -1);
      pgas::get(c, a, std::span<long>(got));
      for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k], value_at(a + k))
            << "n=" << n << " range [" << a << ", " << b << ") k=" << k;
      }
      std::vector<long> later(b - a, -1);
      auto f = pgas::async_get(c, a, std::span<long>(later));
      f.wait();
      EXPECT_EQ(later, got);
    }
    pgas::sync_all();
  }
}

// Cuts [0, n) into one piece per image, each starting one past where an even cut would, so
// pieces cross owners' boundaries; image r writes the piece of image (r + 1) % p's number.
std::pair<std::size_t, std::size_t> piece_written_by(std::size_t image, std::size_t n) {
  const std::size_t p = images();
  const std::size_t r = (image + 1) % p;
  const auto cut = [n, p](std::size_t k) {
    return k == 0 ? 0 : (k == p ? n : std::min(n, k * n / p + 1));
  };
  return {cut(r), std::max(cut(r), cut(r + 1))};
}

TYPED_TEST(Transfers, put_and_async_put_of_pieces_crossing_owners_land_after_a_sync_point) {
  for (std::size_t n : sizes) {
    for (bool async : {false, true}) {
      auto c = filled<TypeParam>(n);
      const auto [lo, hi] = piece_written_by(me(), n);
      std::vector<long> values(hi - lo);
      for (std::size_t k = 0; k < values.size(); ++k) values[k] = -value_at(lo + k);
      if (async) {
        auto f = pgas::async_put(c, lo, std::span<const long>(values));
        f.wait();
        std::fill(values.begin(), values.end(), 0);  // reusable once the future is ready
      } else {
        pgas::put(c, lo, std::span<const long>(values));
        std::fill(values.begin(), values.end(), 0);  // reusable at once
      }
      pgas::sync_all();
      std::vector<long> all(n);
      pgas::get(c, 0, std::span<long>(all));
      for (std::size_t i = 0; i < n; ++i)
        EXPECT_EQ(all[i], -value_at(i)) << "n=" << n << " i=" << i;
      pgas::sync_all();
    }
  }
}

TYPED_TEST(Transfers, an_image_reads_its_own_range_writes_at_once) {
  auto c = filled<TypeParam>(40);
  if (me() == 0) {
    std::vector<long> values(30, 9);
    pgas::put(c, 5, std::span<const long>(values));
    std::vector<long> got(32);
    pgas::get(c, 4, std::span<long>(got));
    EXPECT_EQ(got.front(), value_at(4));
    EXPECT_EQ(got[1], 9);
    EXPECT_EQ(got[30], 9);
    EXPECT_EQ(got.back(), value_at(35));
  }
  pgas::sync_all();
}

TYPED_TEST(Transfers, strided_reads_and_writes_every_stride) {
  // 1000 too: runs of 64 and more elements of one owner go as one vector-type get each.
  std::vector<std::size_t> strided_sizes = sizes;
  strided_sizes.push_back(1000);
  for (std::size_t n : strided_sizes) {
    auto c = filled<TypeParam>(n);
    for (std::size_t stride :
         {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, n + 1}) {
      for (std::size_t first : {std::size_t{0}, std::size_t{1}, n / 2}) {
        if (first >= n)
          continue;
        const std::size_t count = (n - 1 - first) / stride + 1;
        std::vector<long> got(count);
        pgas::get_strided(c, first, stride, std::span<long>(got));
        for (std::size_t k = 0; k < count; ++k) {
          EXPECT_EQ(got[k], value_at(first + k * stride)) << "n=" << n << " stride=" << stride;
        }
      }
    }
    pgas::sync_all();
    // Image r writes r, r + p, r + 2p, ...: every element exactly once over all images.
    if (me() < n) {
      const std::size_t count = (n - 1 - me()) / images() + 1;
      std::vector<long> values(count);
      for (std::size_t k = 0; k < count; ++k)
        values[k] = 1000 * static_cast<long>(me()) + static_cast<long>(k);
      pgas::put_strided(c, me(), images(), std::span<const long>(values));
    }
    pgas::sync_all();
    std::vector<long> all(n);
    pgas::get(c, 0, std::span<long>(all));
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(all[i], 1000 * static_cast<long>(i % images()) + static_cast<long>(i / images()))
          << i;
    }
    pgas::sync_all();
  }
}

TYPED_TEST(Transfers, gather_by_index_list_with_repeats_in_any_order) {
  for (std::size_t n : sizes) {
    const auto c = filled<TypeParam>(n);
    std::mt19937_64 gen(17 + me());
    std::vector<std::size_t> indices(n == 0 ? 0 : 3 * n + 5);
    for (auto& i : indices) i = gen() % n;
    std::vector<long> got(indices.size(), -1);
    pgas::gather(c, indices, std::span<long>(got));
    for (std::size_t k = 0; k < indices.size(); ++k) EXPECT_EQ(got[k], value_at(indices[k]));
    std::vector<long> later(indices.size(), -1);
    auto f = pgas::async_gather(c, indices, std::span<long>(later));
    f.wait();
    EXPECT_EQ(later, got);
    // An empty list moves nothing.
    pgas::gather(c, std::span<const std::size_t>(), std::span<long>());
    pgas::sync_all();
  }
}

TYPED_TEST(Transfers, a_long_gather_fills_many_requests_to_every_owner) {
  // Far more indices than one request to an owner carries (a few thousand): requests go while
  // the list is read, this image's own elements are copied in batches, and answers arrive in
  // any order, each into its own positions.
  const std::size_t n = 1000;
  const auto c = filled<TypeParam>(n);
  std::mt19937_64 gen(29 + me());
  std::vector<std::size_t> indices(40000);
  for (auto& i : indices) i = gen() % n;
  std::vector<long> got(indices.size(), -1);
  pgas::gather(c, indices, std::span<long>(got));
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < indices.size(); ++k)
    wrong += got[k] == value_at(indices[k]) ? 0U : 1U;
  EXPECT_EQ(wrong, 0u);
  std::vector<long> later(indices.size(), -1);
  auto f = pgas::async_gather(c, indices, std::span<long>(later));
  f.wait();
  EXPECT_EQ(later, got);
  pgas::sync_all();
}

TYPED_TEST(Transfers, a_gather_sees_this_images_own_earlier_writes_and_async_ones_complete) {
  // Without shared memory the owners answer gathers (runtime/owner_reads.hpp): a request must
  // follow this image's puts to the owner, and a future's ready() must serve other images.
  auto c = filled<TypeParam>(300);
  // The indices image img writes: some with i % images() == img, so no two images write one.
  const auto written_by = [](std::size_t img) {
    std::mt19937_64 gen(5 + img);
    std::vector<std::size_t> w;
    for (int k = 0; k < 100; ++k) w.push_back((gen() % (300 / images())) * images() + img);
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    return w;
  };
  const std::vector<std::size_t> mine = written_by(me());
  std::vector<long> values(mine.size());
  for (std::size_t k = 0; k < mine.size(); ++k) values[k] = -static_cast<long>(mine[k]);
  pgas::scatter(c, mine, std::span<const long>(values));
  std::vector<long> got(mine.size(), 0);
  pgas::gather(c, mine, std::span<long>(got));
  EXPECT_EQ(got, values);
  pgas::sync_all();
  // Every image gathers every index, in reverse, through futures polled with ready().
  std::vector<std::size_t> all(300);
  std::iota(all.rbegin(), all.rend(), std::size_t{0});
  std::vector<long> later(all.size(), 0);
  auto f = pgas::async_gather(c, all, std::span<long>(later));
  while (!f.ready()) {
  }
  std::set<std::size_t> written;
  for (std::size_t img = 0; img < images(); ++img) {
    for (std::size_t i : written_by(img)) written.insert(i);
  }
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const std::size_t i = all[k];
    wrong += later[k] == (written.count(i) ? -static_cast<long>(i) : value_at(i)) ? 0u : 1u;
  }
  EXPECT_EQ(wrong, 0u);
  pgas::sync_all();
}

TYPED_TEST(Transfers, scatter_lets_the_later_of_two_writes_to_one_index_win) {
  for (std::size_t n : sizes) {
    auto c = filled<TypeParam>(n);
    // Image r owns the indices i with i % p == r in this test; it writes each twice, in a
    // shuffled order, and the second value (listed later) must win.
    std::vector<std::size_t> indices;
    std::vector<long> values;
    for (std::size_t i = me(); i < n; i += images()) {
      indices.push_back(i);
      values.push_back(-1);
    }
    std::mt19937_64 gen(5 + me());
    std::shuffle(indices.begin(), indices.end(), gen);
    const std::size_t once = indices.size();
    for (std::size_t k = 0; k < once; ++k) {
      indices.push_back(indices[k]);
      values.push_back(7 * static_cast<long>(indices[k]));
    }
    pgas::scatter(c, indices, values);
    pgas::sync_all();
    std::vector<long> all(n);
    pgas::get(c, 0, std::span<long>(all));
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(all[i], 7 * static_cast<long>(i)) << "n=" << n;
    pgas::sync_all();
  }
}

TYPED_TEST(Transfers, scatter_accumulate_from_every_image_is_exact) {
  for (std::size_t n : sizes) {
    auto c = TypeParam::make(n);  // zeros
    pgas::sync_all();
    const auto updates_of = [n](std::size_t image, std::vector<std::size_t>& idx,
                                std::vector<long>& val) {
      std::mt19937_64 gen(101 + image);
      idx.resize(n == 0 ? 0 : 4 * n);
      val.resize(idx.size());
      for (std::size_t k = 0; k < idx.size(); ++k) {
        idx[k] = gen() % n;
        val[k] = static_cast<long>(gen() % 1000);
      }
    };
    std::vector<std::size_t> idx;
    std::vector<long> val;
    updates_of(me(), idx, val);
    pgas::scatter_accumulate(c, idx, val, pgas::reduce_op::sum);
    pgas::sync_all();
    std::vector<long> want(n, 0);
    for (std::size_t img = 0; img < images(); ++img) {
      updates_of(img, idx, val);
      for (std::size_t k = 0; k < idx.size(); ++k) want[idx[k]] += val[k];
    }
    std::vector<long> all(n);
    pgas::get(c, 0, std::span<long>(all));
    EXPECT_EQ(all, want) << "n=" << n;
    pgas::sync_all();
  }
}

TEST(TransfersXor, scatter_accumulate_with_xor_replays_exactly_from_every_image) {
  pgas::array<std::uint64_t, pgas::cyclic> table(1 << 12);
  for (std::size_t k = 0; k < table.local().size(); ++k) table.local()[k] = table.global_index(k);
  pgas::sync_all();
  const auto stream = [](std::size_t image) {
    std::mt19937_64 gen(7 + image);
    std::vector<std::size_t> idx(5000);
    std::vector<std::uint64_t> val(idx.size());
    for (std::size_t k = 0; k < idx.size(); ++k) {
      val[k] = gen();
      idx[k] = val[k] % (1 << 12);
    }
    return std::pair{idx, val};
  };
  // After one pass each element is its index XOR every value any image sent it: replayed here,
  // serially, from every image's stream.
  std::vector<std::uint64_t> want(1 << 12);
  std::iota(want.begin(), want.end(), std::uint64_t{0});
  for (std::size_t img = 0; img < images(); ++img) {
    const auto [idx, val] = stream(img);
    for (std::size_t k = 0; k < idx.size(); ++k) want[idx[k]] ^= val[k];
  }
  for (int pass = 0; pass < 2; ++pass) {
    const auto [idx, val] = stream(me());
    pgas::scatter_accumulate(table, idx, val, pgas::reduce_op::bxor);
    pgas::sync_all();
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < table.local().size(); ++k) {
      const std::size_t i = table.global_index(k);
      wrong += table.local()[k] != (pass == 0 ? want[i] : i) ? 1U : 0U;
    }
    // Pass 0 against the replay; pass 1, XOR twice being nothing, against the indices.
    EXPECT_EQ(wrong, 0U) << "pass " << pass;
    pgas::sync_all();
  }
}

TEST(TransfersLarge, many_runs_per_owner_go_as_several_operations) {
  // Cyclic: every element is its own run in this image's buffer, so a whole-array get carries
  // more runs per owner than one datatype may; it goes in several operations.
  const std::size_t n = 2 * pgas::detail::max_runs_per_operation * images() + 3;
  pgas::array<int, pgas::cyclic> a(n);
  for (std::size_t k = 0; k < a.local().size(); ++k)
    a.local()[k] = static_cast<int>(a.global_index(k));
  pgas::sync_all();
  std::vector<int> all(n);
  pgas::get(a, 0, std::span<int>(all));
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(all[i], static_cast<int>(i));
  pgas::sync_all();
}

// Counts past MPI's int go as one derived datatype (or, for reductions, in pieces). The
// largest count is lowered to 7 here, so arrays of a few hundred elements take the path of
// transfers of 2^31 and more; every value must arrive where it belongs.
TEST(TransfersLarge, transfers_past_the_largest_count_arrive_whole) {
  const std::size_t n = 61 * images() + 5;
  pgas::array<long> a(n);
  pgas::runtime::testing::set_largest_count(7);
  std::vector<long> values(n);
  std::iota(values.begin(), values.end(), 1000L);
  if (me() == images() - 1)
    pgas::put(a, 0, std::span<const long>(values));
  pgas::sync_all();
  std::vector<long> got(n, -1);
  pgas::get(a, 0, std::span<long>(got));
  EXPECT_EQ(got, values);
  std::vector<long> later(n - 3, -1);
  pgas::async_get(a, 3, std::span<long>(later)).get();
  EXPECT_TRUE(std::equal(later.begin(), later.end(), values.begin() + 3));
  pgas::sync_all();
  std::vector<long> sums(n, static_cast<long>(me()) + 1);
  pgas::co_sum(std::span<long>(sums));
  const long expected = static_cast<long>(images() * (images() + 1) / 2);
  EXPECT_TRUE(std::all_of(sums.begin(), sums.end(), [&](long x) { return x == expected; }));
  std::vector<double> broadcast(n, me() == 0 ? 2.5 : 0.0);
  pgas::co_broadcast(std::span<double>(broadcast), 0);
  EXPECT_TRUE(std::all_of(broadcast.begin(), broadcast.end(), [](double x) { return x == 2.5; }));
  pgas::runtime::testing::set_largest_count(0);  // back to MPI's own limit
  pgas::sync_all();
}

TEST(TransfersCoarray, image_parts_read_and_write_in_one_call) {
  pgas::coarray<int[6]> x;
  for (std::size_t k = 0; k < 6; ++k) x[k] = static_cast<int>(10 * me() + k);
  pgas::sync_all();
  const std::size_t right = (me() + 1) % images();
  std::vector<int> got(4);
  pgas::get(x(right), 2, std::span<int>(got));
  EXPECT_EQ(got,
            (std::vector<int>{static_cast<int>(10 * right + 2), static_cast<int>(10 * right + 3),
                              static_cast<int>(10 * right + 4), static_cast<int>(10 * right + 5)}));
  pgas::sync_all();
  const std::vector<int> mine{-1, -2};
  pgas::put(x(right), 1, std::span<const int>(mine));
  pgas::sync_all();
  EXPECT_EQ(x[1], -1);
  EXPECT_EQ(x[2], -2);
  EXPECT_EQ(x[3], static_cast<int>(10 * me() + 3));
  EXPECT_THROW(pgas::get(x(right), 5, std::span<int>(got)), pgas::out_of_range);
  pgas::sync_all();
}

TEST(TransfersView, an_array_view_over_caller_memory_takes_the_same_calls) {
  const std::size_t n = 10 * images() + 3;
  const std::size_t share = pgas::block{}.bind(n, images()).local_size(me());
  std::vector<double> memory(share, static_cast<double>(me()));
  pgas::array_view<double> v(std::span<double>(memory), n);
  std::vector<double> all(n);
  pgas::get(v, 0, std::span<double>(all));
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(all[i], static_cast<double>(v.owner(i)));
  pgas::sync_all();
}

}  // namespace
