// The bad-input catalogue: every misuse of the public API a user can make at run time, one test
// each, run at 1–4 images. Each misuse must give pgas::out_of_range or pgas::usage_error (on
// every image when the call is collective), and afterwards the program goes on: the fixture
// writes a witness array across images before each test and checks after it that every image
// is still in step and nothing already written was lost. docs/errors.md lists the catalogue.
// Misuses that end the environment (tests/reliability/after_environment.cpp) or fail to
// compile (tests/compile_fail/) live beside it.
#include <pgas/algorithms.hpp>
#include <pgas/runtime/window.hpp>

#include <gtest/gtest.h>

#include "../support/under_asan.hpp"
#include "bad_input_fixture.hpp"
#include <algorithm>
#include <array>
#include <complex>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

using bad_input::BadInput;
using bad_input::images;
using bad_input::me;

// ---- indices past the end, on every container ----

TEST_F(BadInput, array_index_past_the_end_names_index_size_and_image) {
  pgas::array<int> a(10);
  try {
    (void)a[10];
    ADD_FAILURE() << "no exception";
  } catch (const pgas::out_of_range& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("10"), std::string::npos) << what;
    EXPECT_NE(what.find("image " + std::to_string(me())), std::string::npos) << what;
  }
  EXPECT_THROW((void)a.owner(11), pgas::out_of_range);
  EXPECT_THROW(a[static_cast<std::size_t>(-1)] = 1, pgas::out_of_range);
  EXPECT_THROW((void)a.begin()[10].get(), pgas::out_of_range);
  EXPECT_THROW((void)(*(a.begin() - 1)).get(), pgas::out_of_range);
  if (me() == 0)
    a[9] = 5;  // the array still works
  pgas::sync_all();
  EXPECT_EQ(static_cast<int>(a[9]), 5);
}

TEST_F(BadInput, element_address_past_the_end_even_when_blocks_are_empty) {
  // Fewer elements than images: block's share is 0 for most, which index arithmetic on a bad
  // index would divide by; the check comes first.
  pgas::array<int> few(1);
  pgas::array<int, pgas::block_cyclic> dealt(3, pgas::block_cyclic(2));
  EXPECT_THROW((void)few.element(1), pgas::out_of_range);
  EXPECT_THROW((void)few.element(static_cast<std::size_t>(-1)), pgas::out_of_range);
  EXPECT_THROW((void)std::as_const(few).element(5 * images()), pgas::out_of_range);
  EXPECT_THROW((void)dealt.element(3), pgas::out_of_range);
  if (me() == 0)
    *few.element(0) = 7;
  pgas::sync_all();
  EXPECT_EQ(static_cast<int>(*std::as_const(few).element(0)), 7);
}

TEST_F(BadInput, coarray_image_or_element_past_the_end) {
  pgas::coarray<int> x;
  pgas::coarray<int[4]> y;
  EXPECT_THROW((void)x(images()), pgas::out_of_range);
  EXPECT_THROW((void)y(images()), pgas::out_of_range);
  EXPECT_THROW((void)y[4], pgas::out_of_range);
  EXPECT_THROW((void)y(0)[4], pgas::out_of_range);
  pgas::sync_all();
}

TEST_F(BadInput, run_time_sized_coarray_with_sizes_that_differ_or_past_its_extent) {
  if (images() > 1) {  // alone, an image agrees with itself
    EXPECT_THROW(pgas::coarray<double[]>(me() == 0 ? 5 : 4), pgas::usage_error);
  }
  pgas::coarray<double[]> z(4, 1.5);
  EXPECT_THROW((void)z[4], pgas::out_of_range);
  EXPECT_THROW((void)z(images()), pgas::out_of_range);
  EXPECT_THROW((void)z(0)[4], pgas::out_of_range);
  std::vector<double> five(5, 9.0);
  EXPECT_THROW(z(0).put(std::span<const double>(five)), pgas::out_of_range);
  EXPECT_THROW(z(0).get(std::span<double>(five)), pgas::out_of_range);
  pgas::sync_all();
  EXPECT_EQ(z(0)[0].get(), 1.5);  // nothing was written
  pgas::sync_all();
}

TEST_F(BadInput, matrix_row_or_column_past_the_end) {
  pgas::matrix<int> m(2 * images(), 3, 1);
  EXPECT_THROW((void)m(2 * images(), 0), pgas::out_of_range);
  EXPECT_THROW((void)m(0, 3), pgas::out_of_range);
  pgas::sync_all();
}

TEST_F(BadInput, vector_index_past_the_committed_size) {
  pgas::vector<int> v(images());
  v.push_back(1);  // pushed but not committed: still outside
  EXPECT_THROW((void)v[images()], pgas::out_of_range);
  v.commit();
  EXPECT_EQ(v.size(), 2 * images());
  EXPECT_EQ(pgas::reduce(v), static_cast<int>(images()));
  EXPECT_THROW((void)v[v.size()], pgas::out_of_range);
  pgas::sync_all();
}

// ---- sizes ----

TEST_F(BadInput, negative_sizes_are_refused_on_every_image) {
  const auto minus_five = static_cast<std::size_t>(-5);
  EXPECT_THROW((void)pgas::array<int>(minus_five), pgas::usage_error);
  EXPECT_THROW((void)pgas::vector<int>(minus_five), pgas::usage_error);
  EXPECT_THROW((void)pgas::matrix<int>(minus_five, 4, 1), pgas::usage_error);
}

TEST_F(BadInput, sizes_that_overflow_when_multiplied_are_refused) {
  // rows * cols wraps around size_t; the element count in bytes wraps for the array.
  EXPECT_THROW((void)pgas::matrix<int>(std::size_t{1} << 33, std::size_t{1} << 33, 1),
               pgas::usage_error);
  EXPECT_THROW((void)pgas::array<long>(std::size_t{1} << 62), pgas::usage_error);
}

TEST_F(BadInput, a_size_no_machine_could_hold_throws_on_every_image_instead_of_hanging) {
  // 2^40 longs (8 TiB) and 2^42 doubles (32 TiB): past RAM and swap, below size_t overflow.
  EXPECT_THROW((void)pgas::array<long>(std::size_t{1} << 40), pgas::usage_error);
  EXPECT_THROW((void)pgas::matrix<double>(std::size_t{1} << 22, std::size_t{1} << 20),
               pgas::usage_error);
  pgas::array<long> ok(4);  // every image left the failed constructions together
  ok[me() % 4] = 1;
  pgas::sync_all();
}

// ---- collective calls whose arguments differ between images ----

TEST_F(BadInput, array_sizes_differ_between_images) {
  if (images() == 1)
    GTEST_SKIP() << "needs two images to disagree";
  EXPECT_THROW((void)pgas::array<int>(me() == 0 ? 10 : 11), pgas::usage_error);
  pgas::array<int> ok(4);  // nothing was left half-built
}

TEST_F(BadInput, array_distributions_differ_between_images) {
  if (images() == 1)
    GTEST_SKIP() << "needs two images to disagree";
  using bc_array = pgas::array<int, pgas::block_cyclic>;
  EXPECT_THROW((void)bc_array(10, pgas::block_cyclic(me() == 0 ? 2 : 3)), pgas::usage_error);
}

TEST_F(BadInput, array_element_types_differ_between_images) {
  if (images() == 1)
    GTEST_SKIP() << "needs two images to disagree";
  if (me() == 0) {
    EXPECT_THROW((void)pgas::array<int>(8), pgas::usage_error);
  } else {
    EXPECT_THROW((void)pgas::array<long>(8), pgas::usage_error);
  }
}

TEST_F(BadInput, vector_resize_or_reserve_differs_between_images_and_changes_nothing) {
  pgas::vector<int> v(4);
  if (images() == 1)
    GTEST_SKIP() << "needs two images to disagree";
  EXPECT_THROW(v.resize(me() == 0 ? 5 : 6), pgas::usage_error);
  EXPECT_THROW(v.reserve(me() == 0 ? 5 : 6), pgas::usage_error);
  EXPECT_EQ(v.size(), 4u);
  v.resize(8);
  EXPECT_EQ(v.size(), 8u);
}

TEST_F(BadInput, array_view_over_memory_that_is_not_this_images_share) {
  const auto d = pgas::block{}.bind(10, images());
  std::size_t mine = d.local_size(me());
  if (me() + 1 == images())
    ++mine;
  std::vector<int> memory(mine);
  EXPECT_THROW((void)pgas::array_view<int>(memory, 10), pgas::usage_error);
}

TEST_F(BadInput, matrix_with_fewer_rows_per_image_than_the_halo) {
  if (images() < 2)
    GTEST_SKIP() << "one image always owns every row";
  EXPECT_THROW((void)pgas::matrix<double>(images() + 1, 4, 2), pgas::usage_error);
}

// ---- moved-from containers ----

TEST_F(BadInput, moved_from_array_says_so_and_can_be_assigned_again) {
  pgas::array<int> a(4);
  pgas::array<int> b(std::move(a));
  EXPECT_THROW((void)a.size(), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW((void)a[0], pgas::usage_error);      // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.size(), 4u);
  a = std::move(b);
  EXPECT_EQ(a.size(), 4u);
  pgas::sync_all();
}

TEST_F(BadInput, moved_from_vector_says_so) {
  pgas::vector<int> v(4);
  pgas::vector<int> w(std::move(v));
  EXPECT_THROW((void)v.size(), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW(v.push_back(1), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(w.size(), 4u);
  pgas::sync_all();
}

// Every member that reaches the container's state, on every kind of container: a moved-from
// one says so on each, never crashes or answers from nothing. (Sizes and counters held outside
// the state, like vector::capacity(), answer 0.)
TEST_F(BadInput, moved_from_containers_refuse_every_member) {
  // NOLINTBEGIN(bugprone-use-after-move)
  pgas::array<int> a(4 * images());
  const pgas::array<int> a2(std::move(a));
  const pgas::array<int>& ca = a;
  EXPECT_THROW((void)a.size(), pgas::usage_error);
  EXPECT_THROW((void)a.empty(), pgas::usage_error);
  EXPECT_THROW((void)a.distribution(), pgas::usage_error);
  EXPECT_THROW((void)a.owner(0), pgas::usage_error);
  EXPECT_THROW((void)a.local(), pgas::usage_error);
  EXPECT_THROW((void)ca.local(), pgas::usage_error);
  EXPECT_THROW((void)a.local_size_of(0), pgas::usage_error);
  EXPECT_THROW((void)a.global_index(0), pgas::usage_error);
  EXPECT_THROW((void)a.layout(), pgas::usage_error);
  EXPECT_THROW((void)a.segments(), pgas::usage_error);
  EXPECT_THROW((void)a[0], pgas::usage_error);
  EXPECT_THROW((void)ca[0], pgas::usage_error);
  EXPECT_THROW((void)a.at(0), pgas::usage_error);
  EXPECT_THROW((void)a.end(), pgas::usage_error);
  EXPECT_THROW((void)a.element(0), pgas::usage_error);
  EXPECT_THROW((void)a.team(), pgas::usage_error);

  pgas::vector<int> v(4);
  const pgas::vector<int> v2(std::move(v));
  EXPECT_THROW((void)v.size(), pgas::usage_error);
  EXPECT_THROW((void)v[0], pgas::usage_error);
  EXPECT_THROW((void)v.local(), pgas::usage_error);
  EXPECT_THROW(v.push_back(1), pgas::usage_error);
  EXPECT_THROW(v.commit(), pgas::usage_error);
  EXPECT_THROW(v.resize(8), pgas::usage_error);
  EXPECT_THROW(v.reserve(8), pgas::usage_error);
  EXPECT_THROW(v.clear(), pgas::usage_error);
  EXPECT_THROW(v.shrink_to_fit(), pgas::usage_error);
  EXPECT_THROW((void)v.team(), pgas::usage_error);
  EXPECT_THROW((void)v.uncommitted(), pgas::usage_error);
  EXPECT_THROW((void)v.capacity(), pgas::usage_error);

  pgas::unordered_map<int, long> m;
  pgas::unordered_map<int, long> m2(std::move(m));
  EXPECT_THROW(m.insert(1, 1), pgas::usage_error);
  EXPECT_THROW(m.insert_or_assign(1, 1), pgas::usage_error);
  EXPECT_THROW(m.erase(1), pgas::usage_error);
  EXPECT_THROW((void)m.find(1), pgas::usage_error);
  EXPECT_THROW((void)m.contains(1), pgas::usage_error);
  EXPECT_THROW((void)m.size(), pgas::usage_error);
  EXPECT_THROW((void)m.local_size(), pgas::usage_error);
  EXPECT_THROW((void)m.uncommitted(), pgas::usage_error);
  EXPECT_THROW(m.commit(), pgas::usage_error);

  pgas::ndarray<double, 2> nd({2 * images(), 3}, pgas::grid<2>({images(), 1}), 1);
  pgas::ndarray<double, 2> nd2(std::move(nd));
  EXPECT_THROW((void)nd.extents(), pgas::usage_error);
  EXPECT_THROW((void)nd.extent(0), pgas::usage_error);
  EXPECT_THROW((void)nd.size(), pgas::usage_error);
  EXPECT_THROW((void)nd.grid(), pgas::usage_error);
  EXPECT_THROW((void)nd.halo(0), pgas::usage_error);
  EXPECT_THROW((void)nd.edges(), pgas::usage_error);
  EXPECT_THROW((void)nd.owner(0, 0), pgas::usage_error);
  EXPECT_THROW((void)nd(0, 0), pgas::usage_error);
  EXPECT_THROW((void)nd.local(), pgas::usage_error);
  EXPECT_THROW((void)nd.local_origin(), pgas::usage_error);
  EXPECT_THROW(nd.exchange_halo(), pgas::usage_error);
  EXPECT_THROW((void)nd.exchange_halo_begin(), pgas::usage_error);
  EXPECT_THROW((void)nd.team(), pgas::usage_error);
  // NOLINTEND(bugprone-use-after-move)
  v2.team().barrier();
  m2.commit();
  nd2.exchange_halo();
  EXPECT_EQ(a2.size() + v2.size() + nd2.size(), 4 * images() + 4 + 6 * images());
  pgas::sync_all();
}

// ---- n-dimensional arrays on a process grid ----

TEST_F(BadInput, ndarray_extents_whose_product_overflows_are_refused_on_every_image) {
  using shape = std::array<std::size_t, 3>;
  using int3 = pgas::ndarray<int, 3>;
  const shape huge{std::size_t{1} << 22, std::size_t{1} << 22, std::size_t{1} << 22};
  EXPECT_THROW((void)int3(huge), pgas::usage_error);
  const shape negative{static_cast<std::size_t>(-3), 4, 4};
  EXPECT_THROW((void)int3(negative), pgas::usage_error);
}

TEST_F(BadInput, ndarray_grid_that_does_not_hold_the_team_is_refused) {
  using shape = std::array<std::size_t, 2>;
  using int2 = pgas::ndarray<int, 2>;
  const shape e{8, 8};
  const pgas::grid<2> too_big({images(), 2});
  const pgas::grid<2> with_zero({0, images()});
  try {
    (void)int2(e, too_big);
    ADD_FAILURE() << "no exception";
  } catch (const pgas::usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("the team has " + std::to_string(images())),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW((void)int2(e, with_zero), pgas::usage_error);
  // Images that disagree on the grid: a usage_error everywhere, not a hang.
  if (images() == 4) {
    const pgas::grid<2> mine = me() == 0 ? pgas::grid<2>({2, 2}) : pgas::grid<2>({4, 1});
    EXPECT_THROW((void)int2(e, mine), pgas::usage_error);
  }
}

TEST_F(BadInput, ndarray_halo_wider_than_a_tile_is_refused_on_every_image) {
  using shape = std::array<std::size_t, 2>;
  using dbl2 = pgas::ndarray<double, 2>;
  // Columns split over every image, 2 per tile at most, and a halo of 3.
  const shape e{4, 2 * images()};
  const pgas::grid<2> columns({1, images()});
  EXPECT_THROW((void)dbl2(e, columns, 3), pgas::usage_error);
  const shape per_dimension{3, 2 * images()};
  EXPECT_THROW((void)dbl2(per_dimension, columns, shape{4, 1}), pgas::usage_error);
}

TEST_F(BadInput, ndarray_algorithms_across_grids_and_rows_of_split_columns_are_refused) {
  using shape = std::array<std::size_t, 2>;
  pgas::ndarray<long, 2> by_rows(shape{6, 4}, pgas::grid<2>({images(), 1}), 0,
                                 pgas::boundary::fixed, 3L);
  pgas::ndarray<long, 2> by_columns(shape{6, 4}, pgas::grid<2>({1, images()}), 0,
                                    pgas::boundary::fixed, 5L);
  if (images() > 1) {
    // Other tiles: no cell pairs with its partner; nothing is written.
    EXPECT_THROW(pgas::transform(by_rows, by_columns, [](long x) { return x; }), pgas::usage_error);
    EXPECT_THROW((void)pgas::views::rows(by_columns), pgas::usage_error);
  }
  EXPECT_EQ(pgas::count(by_columns, 5L), 24U);
  EXPECT_EQ(pgas::count_if(pgas::views::rows(by_rows),
                           [](std::span<const long> row) { return row[0] == 3L; }),
            6U);
}

TEST_F(BadInput, ndarray_index_patch_or_view_index_outside_is_refused_and_nothing_moves) {
  using shape = std::array<std::size_t, 2>;
  pgas::ndarray<int, 2> a(shape{5, 3}, pgas::grid<2>({images(), 1}), 1, pgas::boundary::fixed, 7);
  EXPECT_THROW((void)a(5, 0), pgas::out_of_range);
  EXPECT_THROW((void)a(0, 3), pgas::out_of_range);
  EXPECT_THROW((void)a.owner(-1, 0), pgas::out_of_range);
  std::vector<int> out(6, -1);
  EXPECT_THROW(pgas::get_patch(a, {4, 0}, {2, 3}, out), pgas::out_of_range);  // leaves the array
  EXPECT_THROW(pgas::get_patch(a, {0, 1}, {2, 3}, out), pgas::out_of_range);
  EXPECT_THROW(pgas::put_patch(a, {0, 0}, {2, 2}, std::span<const int>(out)),
               pgas::usage_error);  // 4 != 6
  EXPECT_THROW(pgas::accumulate_patch(a, {4, 2}, {2, 1}, std::span<const int>(out).first(2),
                                      pgas::reduce_op::sum),
               pgas::out_of_range);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](int x) { return x == -1; }));
  pgas::sync_all();
  EXPECT_EQ(a(4, 2).get(), 7);  // nothing was written
  const auto v = a.local();
  if (v.size() > 0) {
    EXPECT_THROW((void)v.at(-2, 0), pgas::out_of_range);
    EXPECT_THROW((void)v.at(0, static_cast<long>(v.extent(1)) + 1), pgas::out_of_range);
    EXPECT_EQ(v.at(-1, -1), 7);  // a ghost cell is inside tile + halo
  }
  pgas::sync_all();
}

TEST_F(BadInput,
       transpose_of_mismatched_shapes_or_one_array_is_refused_before_anything_is_written) {
  using shape = std::array<std::size_t, 2>;
  pgas::ndarray<double, 2> a(shape{4, 6}, pgas::grid<2>{}, 0, pgas::boundary::fixed, 1.0);
  pgas::ndarray<double, 2> square(shape{4, 4}, pgas::grid<2>{}, 0, pgas::boundary::fixed, 2.0);
  pgas::ndarray<double, 2> same(shape{4, 6}, pgas::grid<2>{}, 0, pgas::boundary::fixed, 3.0);
  EXPECT_THROW(pgas::transpose(square, a), pgas::usage_error);
  EXPECT_THROW(pgas::transpose(same, a), pgas::usage_error);  // 4 x 6 is not 6 x 4
  EXPECT_THROW(pgas::transpose(square, square), pgas::usage_error);
  EXPECT_EQ(square(3, 3).get(), 2.0);
  EXPECT_EQ(same(0, 5).get(), 3.0);
  pgas::sync_all();
}

TEST_F(BadInput, moved_from_matrix_says_so) {
  pgas::matrix<int> m(2 * images(), 3, 1);
  pgas::matrix<int> n(std::move(m));
  EXPECT_THROW((void)m(0, 0), pgas::usage_error);      // NOLINT(bugprone-use-after-move)
  EXPECT_THROW(m.exchange_halo(), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(n.rows(), 2 * images());
  pgas::sync_all();
}

TEST_F(BadInput, moved_from_unordered_map_says_so) {
  pgas::unordered_map<int, long> m;
  m.insert(static_cast<int>(me()), 1);
  pgas::unordered_map<int, long> n(std::move(m));
  EXPECT_THROW(m.insert(1, 1), pgas::usage_error);   // NOLINT(bugprone-use-after-move)
  EXPECT_THROW(m.commit(), pgas::usage_error);       // NOLINT(bugprone-use-after-move)
  EXPECT_THROW((void)m.find(1), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW((void)m.size(), pgas::usage_error);   // NOLINT(bugprone-use-after-move)
  n.commit();  // the operation queued before the move went with the map
  EXPECT_EQ(n.size(), images());
}

// ---- environment, synchronisation, runtime ----

TEST_F(BadInput, a_second_environment) {
  EXPECT_THROW(pgas::environment second, pgas::usage_error);
}

TEST_F(BadInput, sync_images_with_an_image_that_does_not_exist_or_named_twice) {
  EXPECT_THROW(pgas::sync_images({images()}), pgas::usage_error);
  EXPECT_THROW(pgas::sync_images({static_cast<std::size_t>(-1)}), pgas::usage_error);
  if (images() > 1) {
    const std::size_t next = (me() + 1) % images();
    EXPECT_THROW(pgas::sync_images({next, next}), pgas::usage_error);
  }
}

TEST_F(BadInput, detach_of_a_region_never_attached_or_twice) {
  auto w = pgas::runtime::window::create_dynamic(pgas::runtime::world_comm());
  long stray = 0;
  EXPECT_THROW(w.detach(&stray), pgas::usage_error);
  std::vector<long> region(4);
  w.attach(region.data(), sizeof(long) * region.size());
  EXPECT_THROW(w.detach(region.data() + 1), pgas::usage_error);
  w.detach(region.data());
  EXPECT_THROW(w.detach(region.data()), pgas::usage_error);
}

TEST_F(BadInput, co_broadcast_from_an_image_that_does_not_exist_or_different_roots) {
  EXPECT_THROW((void)pgas::co_broadcast(1, images()), pgas::usage_error);
  if (images() > 1) {
    EXPECT_THROW((void)pgas::co_broadcast(1, me() == 0 ? 0 : 1), pgas::usage_error);
  }
  EXPECT_EQ(pgas::co_broadcast(static_cast<int>(me()), 0), 0);
}

TEST_F(BadInput, collectives_containers_and_splits_whose_images_disagree_on_the_type) {
  // The odd images pass one type, the even ones another of the same size or not: every image
  // throws, none returns garbage, none hangs.
  const bool odd = me() % 2 == 1;
  if (images() > 1) {
    EXPECT_THROW(odd ? (void)pgas::co_sum(1L) : (void)pgas::co_sum(1.5), pgas::usage_error);
    EXPECT_THROW(odd ? (void)pgas::co_max(1) : (void)pgas::co_max(1L), pgas::usage_error);
    EXPECT_THROW(odd ? (void)pgas::co_min(1.0F) : (void)pgas::co_min(1), pgas::usage_error);
    // One type, two collectives: the op travels with the value and must agree too.
    EXPECT_THROW(odd ? (void)pgas::co_sum(2.0) : (void)pgas::co_max(2.0), pgas::usage_error);
    EXPECT_EQ(pgas::co_sum(2.0), 2.0 * static_cast<double>(images()));  // and then it works
    EXPECT_THROW(odd ? (void)pgas::co_broadcast(1, 0) : (void)pgas::co_broadcast(1.0F, 0),
                 pgas::usage_error);
    const auto plus = [](auto a, auto b) { return a + b; };
    EXPECT_THROW(odd ? (void)pgas::co_reduce(1, plus) : (void)pgas::co_reduce(1L, plus),
                 pgas::usage_error);
    std::vector<int> ints(3, 1);
    std::vector<float> floats(3, 1.0F);
    EXPECT_THROW(odd ? pgas::co_sum(std::span<int>(ints)) : pgas::co_sum(std::span<float>(floats)),
                 pgas::usage_error);
    EXPECT_THROW(odd ? pgas::co_broadcast(std::span<int>(ints), 0)
                     : pgas::co_broadcast(std::span<float>(floats), 0),
                 pgas::usage_error);
    EXPECT_EQ(ints, std::vector<int>(3, 1));  // nothing reduced into them
    EXPECT_THROW(odd ? (void)pgas::array<long>(8) : (void)pgas::array<double>(8),
                 pgas::usage_error);
    const auto ndarray_of = [](auto element) {
      using T = decltype(element);
      return pgas::ndarray<T, 2>(std::array<std::size_t, 2>{4, 4});
    };
    EXPECT_THROW(odd ? (void)ndarray_of(0) : (void)ndarray_of(0.0F), pgas::usage_error);
    EXPECT_THROW((void)pgas::team::world().split(odd ? -1 : 0), pgas::usage_error);
  }
  // The collectives still pair up afterwards.
  EXPECT_EQ(pgas::co_sum(1), static_cast<int>(images()));
  EXPECT_EQ(pgas::co_broadcast(static_cast<long>(me()), 0), 0L);
}

// A hash that gives a key different values on different images.
struct image_dependent_hash {
  std::size_t operator()(long k) const { return std::hash<long>{}(k) ^ (pgas::this_image() * 77); }
};

TEST_F(BadInput, map_hash_that_differs_between_images_and_sizes_past_memory_are_refused) {
  if (images() > 1) {
    EXPECT_THROW(((void)pgas::unordered_map<long, long, image_dependent_hash>()),
                 pgas::usage_error);
  }
  const std::size_t huge = std::size_t{1} << 45;
  EXPECT_THROW(((void)pgas::unordered_map<long, long>(huge)), pgas::usage_error);
  pgas::vector<long> v;
  v.push_back(static_cast<long>(me()));
  EXPECT_THROW(v.reserve(huge), pgas::usage_error);
  EXPECT_THROW(v.resize(huge), pgas::usage_error);
  v.commit();  // nothing was lost: the appended element is still there
  EXPECT_EQ(v.size(), images());
  pgas::array<long> a(images());
  EXPECT_THROW((void)pgas::aggregator(a, pgas::reduce_op::sum, std::size_t{1} << 50),
               pgas::usage_error);
  // Transfers of nothing are allowed, also into copies of no elements.
  pgas::coarray<double[]> none(0);
  std::vector<double> empty;
  none((me() + 1) % images()).put(std::span<const double>(empty));
  none((me() + 1) % images()).get(std::span<double>(empty));
  pgas::sync_all();
}

TEST_F(BadInput, waiting_on_a_future_already_taken) {
  pgas::array<long> a(images());
  a[me()] = 3;
  pgas::sync_all();
  auto f = a[(me() + 1) % images()].async_get();
  EXPECT_EQ(f.get(), 3);
  EXPECT_FALSE(f.valid());
  EXPECT_THROW(f.wait(), pgas::usage_error);
  EXPECT_THROW((void)f.get(), pgas::usage_error);
  pgas::sync_all();
}

// ---- algorithms ----

TEST_F(BadInput, transform_copy_and_scans_of_ranges_of_different_sizes) {
  pgas::array<long> a(10);
  pgas::array<long> b(11);
  EXPECT_THROW(pgas::copy(a, b), pgas::usage_error);
  EXPECT_THROW(pgas::transform(a, b, [](long x) { return x; }), pgas::usage_error);
  EXPECT_THROW(pgas::inclusive_scan(a, b), pgas::usage_error);
  EXPECT_THROW(pgas::exclusive_scan(a, b, 0L), pgas::usage_error);
  EXPECT_FALSE(pgas::equal(a, b));
}

TEST_F(BadInput, binary_algorithms_on_misaligned_ranges) {
  if (images() == 1)
    GTEST_SKIP() << "at one image every distribution is aligned";
  pgas::array<long, pgas::block> a(10);
  pgas::array<long, pgas::cyclic> b(10);
  pgas::array<long, pgas::block> out(10);
  EXPECT_THROW(pgas::transform(a, b, out, std::plus<>{}), pgas::usage_error);
  EXPECT_THROW((void)pgas::dot(a, b), pgas::usage_error);
  EXPECT_THROW((void)pgas::views::zip(a, b), pgas::usage_error);
}

TEST_F(BadInput, copy_to_or_from_a_root_that_does_not_exist_or_a_wrong_root_buffer) {
  pgas::array<long> a(10);
  std::vector<long> sink;
  EXPECT_THROW(pgas::copy(a, sink, images()), pgas::usage_error);
  std::vector<long> wrong(me() == 0 ? 3 : 10);
  EXPECT_THROW(pgas::copy(std::span<const long>(wrong), a, 0), pgas::usage_error);
  EXPECT_THROW(pgas::copy(std::span<const long>(wrong), a, images()), pgas::usage_error);
}

TEST_F(BadInput, histogram_index_outside_the_bins_on_one_image_sends_nothing) {
  pgas::array<long> bins(10);
  std::vector<std::size_t> mine{1, 2, 3};
  if (me() + 1 == images())
    mine.push_back(10);
  EXPECT_THROW(pgas::histogram(bins, mine), pgas::out_of_range);
  EXPECT_EQ(pgas::reduce(bins), 0);
}

TEST_F(BadInput, accumulate_at_with_indices_and_values_of_different_lengths) {
  pgas::array<long> x(8);
  std::vector<std::size_t> idx{0, 1, 2};
  std::vector<long> vals{1, 1, 1};
  if (me() == 0)
    idx.pop_back();
  EXPECT_THROW(pgas::accumulate_at(x, std::span<const std::size_t>(idx),
                                   std::span<const long>(vals), pgas::reduce_op::sum),
               pgas::usage_error);
  EXPECT_EQ(pgas::reduce(x), 0);
}

TEST_F(BadInput, stencil_radius_wider_than_the_halo_or_matrices_of_different_shape) {
  pgas::matrix<double> in(2 * images(), 6, 1);
  pgas::matrix<double> out(2 * images(), 6, 1);
  pgas::matrix<double> narrow(2 * images(), 5, 1);
  EXPECT_THROW(pgas::stencil_for_each(in, out, 2, [](const auto&, double&) {}), pgas::usage_error);
  EXPECT_THROW(pgas::stencil_for_each(in, narrow, 1, [](const auto&, double&) {}),
               pgas::usage_error);
}

// ---- zero-sized containers used everywhere: no exception, no hang, empty results ----

TEST_F(BadInput, zero_sized_arrays_work_with_every_algorithm) {
  pgas::array<long> e(0);
  pgas::array<long, pgas::cyclic> f(0);
  EXPECT_EQ(e.size(), 0u);
  EXPECT_TRUE(e.local().empty());
  EXPECT_EQ(e.begin(), e.end());
  EXPECT_THROW((void)e[0], pgas::out_of_range);
  EXPECT_THROW((void)e.owner(0), pgas::out_of_range);
  pgas::fill(e, 3L);
  pgas::iota(e, 0L);
  pgas::for_each(e, [](long& x) { x = 1; });
  EXPECT_EQ(pgas::reduce(e), 0);
  EXPECT_EQ(pgas::reduce(e, 5L, std::plus<>{}), 5);
  EXPECT_EQ(pgas::dot(e, e), 0);
  EXPECT_EQ(pgas::count(e, 0L), 0u);
  EXPECT_EQ(pgas::find(e, 0L), 0u);
  EXPECT_TRUE(pgas::all_of(e, [](long) { return false; }));
  EXPECT_FALSE(pgas::any_of(e, [](long) { return true; }));
  EXPECT_EQ(pgas::min_element(e).index, 0u);
  EXPECT_TRUE(pgas::equal(e, f));
  pgas::copy(e, f);
  pgas::transform(e, f, [](long x) { return x + 1; });
  pgas::inclusive_scan(e, f);
  pgas::exclusive_scan(f, e, 0L);
  pgas::sort(e);
  pgas::sort(f);
  std::vector<long> gathered{1, 2};
  pgas::copy(e, gathered, 0);
  if (me() == 0) {
    EXPECT_TRUE(gathered.empty());
  }
  pgas::copy(std::span<const long>(), e, 0);
  pgas::histogram(e, std::vector<std::size_t>{});
  EXPECT_THROW(pgas::histogram(e, std::vector<std::size_t>{0}), pgas::out_of_range);
}

TEST_F(BadInput, zero_sized_vector_matrix_and_map_work) {
  pgas::vector<int> v(0);
  EXPECT_EQ(v.size(), 0u);
  EXPECT_THROW((void)v[0], pgas::out_of_range);
  v.resize(0);
  v.commit();
  EXPECT_EQ(pgas::reduce(v), 0);
  pgas::matrix<int> m(0, 0, 1);
  EXPECT_EQ(m.local_rows(), 0u);
  m.exchange_halo();
  EXPECT_THROW((void)m(0, 0), pgas::out_of_range);
  pgas::unordered_map<int, int> map(0);
  map.commit();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_FALSE(map.contains(1));
}

// ---- phases ----

TEST_F(BadInput, fence_phase_naming_a_container_twice_or_one_already_in_a_phase) {
  pgas::array<int> a(4 * images());
  pgas::array<int> b(4 * images());
  EXPECT_THROW(pgas::fence_phase twice(a, b, a), pgas::usage_error);
  {
    pgas::fence_phase outer(a);
    // b opens first, then a refuses (it is in a phase already): b must be closed again.
    EXPECT_THROW(pgas::fence_phase nested(b, a), pgas::usage_error);
    // b is out of any phase: a blocking read of another image's element of b works (inside a
    // phase it would be refused).
    EXPECT_NO_THROW((void)static_cast<int>(b[4 * ((me() + 1) % images())]));
  }
  // Both are back in their normal state: writes and blocking reads of any element work.
  const std::size_t right = (me() + 1) % images();
  a[4 * right] = static_cast<int>(me()) + 1;
  b[4 * right + 1] = static_cast<int>(me()) + 2;
  pgas::sync_all();
  const std::size_t left = (me() + images() - 1) % images();
  EXPECT_EQ(static_cast<int>(a[4 * me()]), static_cast<int>(left) + 1);
  EXPECT_EQ(static_cast<int>(b[4 * me() + 1]), static_cast<int>(left) + 2);
}

// ---- one image's many-element transfers ----

TEST_F(BadInput, transfers_past_the_end_with_bad_indices_or_lengths_move_nothing) {
  pgas::array<long, pgas::cyclic> a(6 * images(), pgas::cyclic{});
  for (long& x : a.local()) x = 5;
  pgas::sync_all();
  std::vector<long> four(4, -1);
  const std::size_t n = a.size();
  EXPECT_THROW(pgas::get(a, n - 3, std::span<long>(four)), pgas::out_of_range);
  EXPECT_THROW(pgas::put(a, n - 3, std::span<const long>(four)), pgas::out_of_range);
  EXPECT_THROW((void)pgas::async_get(a, n, std::span<long>(four)), pgas::out_of_range);
  EXPECT_THROW((void)pgas::async_put(a, static_cast<std::size_t>(-1), std::span<const long>(four)),
               pgas::out_of_range);
  EXPECT_THROW(pgas::get_strided(a, 0, 0, std::span<long>(four)), pgas::usage_error);
  EXPECT_THROW(pgas::put_strided(a, 1, n / 3 + 1, std::span<const long>(four)), pgas::out_of_range);
  // A bad index anywhere in the list: nothing is sent, not even the good ones before it.
  const std::vector<std::size_t> one_bad{0, 1, n, 2};
  EXPECT_THROW(pgas::gather(a, one_bad, std::span<long>(four)), pgas::out_of_range);
  EXPECT_THROW(pgas::scatter(a, one_bad, std::span<const long>(four)), pgas::out_of_range);
  EXPECT_THROW(
      pgas::scatter_accumulate(a, one_bad, std::span<const long>(four), pgas::reduce_op::sum),
      pgas::out_of_range);
  const std::vector<std::size_t> three{0, 1, 2};
  EXPECT_THROW(pgas::gather(a, three, std::span<long>(four)), pgas::usage_error);
  EXPECT_THROW(pgas::scatter(a, three, std::span<const long>(four)), pgas::usage_error);
  EXPECT_THROW((void)pgas::async_gather(a, three, std::span<long>(four)), pgas::usage_error);
  EXPECT_TRUE(std::all_of(four.begin(), four.end(), [](long x) { return x == -1; }));
  pgas::sync_all();
  for (long x : a.local()) EXPECT_EQ(x, 5);
}

TEST_F(BadInput, aggregator_with_capacity_0_a_bad_index_a_gone_container_or_after_a_move) {
  pgas::array<long> a(4 * images());
  EXPECT_THROW(pgas::aggregator(a, pgas::reduce_op::sum, 0), pgas::usage_error);
  EXPECT_THROW(pgas::aggregator(a, pgas::reduce_op::no_op, 8), pgas::usage_error);
  pgas::aggregator agg(a, pgas::reduce_op::sum, 8);
  agg.add(0, 1);
  EXPECT_THROW(agg.add(a.size(), 1), pgas::out_of_range);  // what was added stays
  EXPECT_EQ(agg.held_updates(), 1u);
  pgas::aggregator moved = std::move(agg);
  EXPECT_THROW(agg.add(0, 1), pgas::usage_error);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW(agg.flush(), pgas::usage_error);    // NOLINT(bugprone-use-after-move)
  pgas::sync_all();
  EXPECT_EQ(static_cast<long>(a[0]), static_cast<long>(images()));  // the moved-to one sent it
  pgas::sync_all();
  std::optional<pgas::array<long>> gone(std::in_place, 2 * images());
  pgas::aggregator orphan(*gone, pgas::reduce_op::sum, 8);
  // Counted here only: each image's held update must be applied somewhere before the memory
  // goes (in place, by its owner, or by an MPI accumulate), once. Every image counts before
  // any sends (the sync_all: nothing is held yet), so an owner counts what reaches it early.
  const bool was_counting = pgas::runtime::statistics::enabled;
  pgas::runtime::statistics::enabled = true;
  const auto applied = [] {
    const pgas::rma_stats& s = pgas::stats();
    return s.in_place_updates.operations + s.owner_updates.operations + s.accumulates.operations;
  };
  const auto before = applied();
  pgas::sync_all();
  orphan.add(1, 5);
  gone.reset();  // collective; sends what orphan holds first
  const auto during = applied() - before;
  pgas::runtime::statistics::enabled = was_counting;
  EXPECT_EQ(pgas::co_sum(static_cast<long>(during)), static_cast<long>(images()));
  EXPECT_EQ(orphan.held_updates(), 0u);
  EXPECT_THROW(orphan.add(0, 1), pgas::usage_error);
  orphan.flush();  // nothing held: nothing to say
  pgas::sync_all();
}

TEST_F(BadInput, event_post_to_a_missing_image_or_wait_for_fewer_than_one) {
  pgas::event ev;
  EXPECT_THROW(ev.post(images()), pgas::out_of_range);
  EXPECT_THROW(ev.wait(0), pgas::usage_error);
  EXPECT_THROW(ev.wait(-3), pgas::usage_error);
  EXPECT_EQ(ev.query(), 0);  // nothing was posted or taken
  ev.post(me());
  ev.wait();
  pgas::sync_all();
}

TEST_F(BadInput, locking_a_held_lock_or_unlocking_a_free_one) {
  pgas::lock_type lk;
  EXPECT_THROW(lk.unlock(me()), pgas::usage_error);
  EXPECT_THROW(lk.lock(images()), pgas::out_of_range);
  lk.lock(me());
  EXPECT_THROW(lk.lock(me()), pgas::usage_error);
  EXPECT_THROW((void)lk.try_lock(me()), pgas::usage_error);
  lk.unlock(me());  // still held until here, and released normally
  EXPECT_THROW(lk.unlock(me()), pgas::usage_error);
  EXPECT_TRUE(lk.try_lock(me()));
  lk.unlock(me());
  pgas::sync_all();
}

TEST_F(BadInput, array_collective_with_lengths_or_images_that_differ_or_do_not_exist) {
  std::vector<double> v(me() == 0 ? 3 : 2, 1.0);  // image 0's is longer (alone: all agree)
  // Image 0's too long to travel with the argument check, the others' short enough.
  std::vector<double> w(me() == 0 ? pgas::runtime::agreed_values_bytes / sizeof(double) + 1 : 2);
  if (images() > 1) {
    EXPECT_THROW(pgas::co_sum(std::span<double>(v)), pgas::usage_error);
    EXPECT_THROW(pgas::co_broadcast(std::span<double>(w), 0), pgas::usage_error);
  }
  std::vector<double> same(2, 1.0);
  EXPECT_THROW(pgas::co_sum(std::span<double>(same), images()), pgas::usage_error);
  EXPECT_THROW(pgas::co_broadcast(std::span<double>(same), images() + 4), pgas::usage_error);
  if (images() > 1) {
    EXPECT_THROW(pgas::co_max(std::span<double>(same), me()),
                 pgas::usage_error);  // each names itself
  }
  EXPECT_EQ(same, std::vector<double>(2, 1.0));  // nothing was reduced
  pgas::co_sum(std::span<double>(same));
  EXPECT_EQ(same[0], static_cast<double>(images()));
}

TEST_F(BadInput, bitwise_accumulate_of_floating_point_elements) {
  pgas::array<double> a(2 * images());
  const std::vector<std::size_t> idx{0, 1};
  const std::vector<double> v{1.0, 2.0};
  EXPECT_THROW(pgas::scatter_accumulate(a, std::span<const std::size_t>(idx),
                                        std::span<const double>(v), pgas::reduce_op::bxor),
               pgas::usage_error);
  EXPECT_THROW(pgas::accumulate_at(a, std::span<const std::size_t>(idx), std::span<const double>(v),
                                   pgas::reduce_op::bor),
               pgas::usage_error);
  EXPECT_THROW(pgas::aggregator(a, pgas::reduce_op::band, 8), pgas::usage_error);
  pgas::sync_all();
  EXPECT_EQ(a[0].get(), 0.0);  // nothing was combined
  EXPECT_EQ(a[1].get(), 0.0);
  pgas::sync_all();
}

TEST_F(BadInput, min_or_max_accumulate_of_complex_elements) {
  using complex = std::complex<double>;
  pgas::array<complex> a(2 * images());
  const std::vector<std::size_t> idx{0, 1};
  const std::vector<complex> v{{1.0, 1.0}, {2.0, -1.0}};
  EXPECT_THROW(pgas::scatter_accumulate(a, std::span<const std::size_t>(idx),
                                        std::span<const complex>(v), pgas::reduce_op::max),
               pgas::usage_error);
  EXPECT_THROW(pgas::aggregator(a, pgas::reduce_op::min, 8), pgas::usage_error);
  pgas::sync_all();
  EXPECT_EQ(a[0].get(), complex{});  // nothing was combined
  EXPECT_EQ(a[1].get(), complex{});
  pgas::sync_all();
}

// ---- teams ----

TEST_F(BadInput, change_team_with_a_team_not_formed_from_the_team_in_force) {
  const pgas::team halves = pgas::team::world().split(static_cast<int>(me() % 2));
  const pgas::team others = pgas::team::world().split(0);
  const pgas::change_team scope(halves);
  // `others` was split from the world, not from `halves`: refused before anyone waits.
  EXPECT_THROW(pgas::change_team inner(others), pgas::usage_error);
  EXPECT_TRUE(pgas::current_team() == halves);
}

TEST_F(BadInput, image_numbers_past_a_teams_size) {
  const pgas::team t = pgas::team::world().split(static_cast<int>(me() % 2));
  EXPECT_THROW((void)t.world_image(t.num_images()), pgas::out_of_range);
  pgas::coarray<int> x(t);
  EXPECT_THROW((void)x(t.size()), pgas::out_of_range);
  pgas::event ev(t);
  EXPECT_THROW(ev.post(t.size()), pgas::out_of_range);
  EXPECT_THROW((void)pgas::co_broadcast(1, t.size(), t), pgas::usage_error);
  {
    const pgas::change_team scope(t);
    EXPECT_THROW(pgas::sync_images({pgas::num_images()}), pgas::usage_error);
  }
  pgas::sync_all(t);
}

TEST_F(BadInput, ranges_on_different_teams_are_never_aligned) {
  if (images() == 1)
    GTEST_SKIP() << "one image: every range is aligned";
  const pgas::team t = pgas::team::world().split(0);  // every image, but another team
  pgas::array<int> on_world(10);
  pgas::array<int> on_t(t, 10);
  EXPECT_THROW((void)pgas::dot(on_world, on_t), pgas::usage_error);
  pgas::sync_all();
}

// ---- remote calls ----

TEST_F(BadInput, remote_call_to_an_image_the_team_does_not_have) {
  const pgas::team t = pgas::team::world().split(static_cast<int>(me() % 2));
  pgas::dist_object<int> d(t, 5);
  {
    const pgas::change_team scope(t);
    EXPECT_THROW(pgas::rpc_ff(pgas::num_images(), [] {}), pgas::out_of_range);
    EXPECT_THROW((void)pgas::rpc(pgas::num_images() + 3, [] { return 1; }), pgas::out_of_range);
    EXPECT_THROW((void)d.fetch(t.size()), pgas::out_of_range);
  }
  // Nothing was sent: the calls that follow are the only ones, and they all arrive.
  EXPECT_EQ(d.fetch(0).get(), 5);
  pgas::sync_all();
}

TEST_F(BadInput, remote_call_naming_a_dist_object_the_target_does_not_have) {
  if (images() == 1)
    GTEST_SKIP() << "one image: every image holds every dist_object";
  // Each half has its own object; the other half's images do not have it.
  const pgas::team t = pgas::team::world().split(static_cast<int>(me() % 2));
  pgas::dist_object<int> d(t, 1);
  const std::size_t outside = me() % 2 == 0 ? 1 : 0;  // an image of the other half
  auto f = pgas::rpc(
      outside, [](pgas::dist_object<int>& x) { return *x; }, d);
  EXPECT_THROW((void)f.get(), pgas::usage_error);
  pgas::sync_all();
}

TEST_F(BadInput, remote_call_larger_than_one_message_can_carry) {
  const std::string huge(pgas::runtime::messages::max_message_bytes() + 1, 'x');
  EXPECT_THROW(pgas::rpc_ff(
                   0, [](const std::string&) {}, huge),
               pgas::usage_error);
  EXPECT_THROW((void)pgas::rpc(
                   0, [](const std::string& s) { return s.size(); }, huge),
               pgas::usage_error);
  pgas::sync_all();
}

}  // namespace

// ---- handles that outlive their container ----

// Handles to an element of this image and one of the next, made before the array goes: every
// use throws, and the array made next — which gets the same window back from the pool, maybe
// the same memory — is never written through them.
TEST_F(BadInput, handles_of_a_destroyed_array_throw_and_never_reach_the_next_one) {
  const std::size_t per_image = 4;
  const std::size_t n = per_image * images();
  const std::size_t mine = me() * per_image;
  const std::size_t theirs = ((me() + 1) % images()) * per_image + 1;
  std::optional<pgas::array<long>> old(std::in_place, n);
  pgas::global_ref<long> ref_mine = (*old)[mine];
  pgas::global_ref<long> ref_theirs = (*old)[theirs];
  const pgas::global_ptr<long> ptr = (*old)[theirs].address();
  const pgas::global_ptr<const long> const_ptr = ptr;
  auto it = old->begin() + static_cast<std::ptrdiff_t>(theirs);
  pgas::array<long>::const_iterator const_it = std::as_const(*old).begin();
  pgas::future<long> pending = ref_theirs.async_get();
  pgas::future<long> local_pending = ref_mine.async_get();
  std::vector<long> whole(n, -1);
  pgas::future<void> bulk = pgas::async_get(*old, 0, std::span<long>(whole));
  pgas::sync_all();
  old.reset();  // collective
  pgas::array<long> next(n);
  std::fill(next.local().begin(), next.local().end(), 7L);
  pgas::sync_all();
  EXPECT_THROW(ref_mine = 1, pgas::usage_error);
  EXPECT_THROW(ref_theirs = 1, pgas::usage_error);
  EXPECT_THROW((void)static_cast<long>(ref_theirs), pgas::usage_error);
  EXPECT_THROW((void)ref_mine.get(), pgas::usage_error);
  EXPECT_THROW(ref_theirs += 1, pgas::usage_error);
  EXPECT_THROW((void)ref_theirs.fetch_add(1), pgas::usage_error);
  EXPECT_THROW((void)ref_mine.exchange(3), pgas::usage_error);
  EXPECT_THROW((void)ref_theirs.async_put(2), pgas::usage_error);
  EXPECT_THROW(*ptr = 1, pgas::usage_error);
  EXPECT_THROW((void)ptr.local(), pgas::usage_error);
  EXPECT_THROW((void)static_cast<long>(*const_ptr), pgas::usage_error);
  EXPECT_THROW(*it = 1, pgas::usage_error);
  EXPECT_THROW((void)static_cast<long>(*const_it), pgas::usage_error);
  EXPECT_THROW((void)pending.get(), pgas::usage_error);
  EXPECT_THROW((void)local_pending.get(), pgas::usage_error);
  EXPECT_THROW(bulk.get(), pgas::usage_error);
  pgas::sync_all();
  for (long x : next.local()) EXPECT_EQ(x, 7);
  pgas::sync_all();
}

// A moved-from array's handles throw too; the moved-to array and handles made from it work.
TEST_F(BadInput, handles_of_a_moved_from_array_or_ndarray_throw) {
  const std::size_t n = 3 * images();
  pgas::array<long> a(n);
  pgas::global_ref<long> before = a[n - 1];
  auto it = a.begin();
  pgas::array<long> b = std::move(a);
  EXPECT_THROW(before = 1, pgas::usage_error);
  EXPECT_THROW(*it = 1, pgas::usage_error);
  if (me() == 0)
    b[n - 1] = 5;  // made from the moved-to array
  pgas::sync_all();
  EXPECT_EQ(static_cast<long>(b[n - 1]), 5);
  pgas::sync_all();

  std::optional<pgas::ndarray<double, 2>> grid(std::in_place, std::array<std::size_t, 2>{4, 4});
  pgas::global_ref<double> cell = (*grid)(3, 3);
  pgas::ndarray<double, 2> moved = std::move(*grid);
  EXPECT_THROW(cell = 1.0, pgas::usage_error);
  pgas::global_ref<double> cell_now = moved(3, 3);
  grid.reset();
  EXPECT_NO_THROW((void)static_cast<double>(cell_now));
  pgas::sync_all();
}

// A view over a container that went: using it throws instead of reading freed memory.
TEST_F(BadInput, view_of_a_destroyed_or_moved_from_array_throws) {
  std::optional<pgas::array<long>> a(std::in_place, 5 * images());
  auto window = *a | pgas::views::drop(2);
  auto paired = pgas::views::zip(*a, *a);
  EXPECT_EQ(window.size(), 5 * images() - 2);
  pgas::array<long> moved = std::move(*a);
  EXPECT_THROW((void)window.local(), pgas::usage_error);
  EXPECT_THROW((void)paired.local(), pgas::usage_error);
  a.reset();
  auto fresh = moved | pgas::views::drop(2);
  EXPECT_EQ(pgas::reduce(fresh), 0L);
}

// A halo exchange still in flight when its array is destroyed: the array's end completes it,
// and the handle says the array is gone instead of touching its freed window.
TEST_F(BadInput, halo_exchange_that_outlives_its_array_throws) {
  std::optional<pgas::ndarray<double, 2>> grid(std::in_place,
                                               std::array<std::size_t, 2>{4 * images(), 4},
                                               pgas::grid<2>{}, 1, pgas::boundary::periodic, 1.0);
  pgas::halo_exchange in_flight = grid->exchange_halo_begin();
  grid.reset();  // collective
  if (in_flight.in_flight()) {
    EXPECT_THROW(in_flight.wait(), pgas::usage_error);
  }
  pgas::ndarray<double, 2> next(std::array<std::size_t, 2>{4 * images(), 4}, pgas::grid<2>{}, 1,
                                pgas::boundary::periodic, 2.0);
  next.exchange_halo();  // the recycled window works
  pgas::sync_all();
}

// A second exchange begun while the first is in flight: refused before anything of the first
// is touched (its packed columns included), and the first still fills every ghost.
TEST_F(BadInput, halo_exchange_begun_again_while_in_flight_is_refused) {
  const std::size_t cols = 3 * images();  // short rows: the columns travel packed
  pgas::ndarray<double, 2> a(std::array<std::size_t, 2>{6, cols}, pgas::grid<2>({1, images()}), 1,
                             pgas::boundary::periodic, -1.0);
  const auto v = a.local();
  const std::size_t first_col = a.local_origin()[1];
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < v.extent(1); ++j)
      v(static_cast<long>(i), static_cast<long>(j)) = static_cast<double>(i * cols + first_col + j);
  }
  pgas::halo_exchange first = a.exchange_halo_begin();
  if (first.in_flight()) {
    EXPECT_THROW((void)a.exchange_halo_begin(), pgas::usage_error);
  }
  first.wait();
  const auto n = static_cast<long>(v.extent(1));
  for (long i = 0; i < 6; ++i) {
    const auto row = static_cast<double>(static_cast<std::size_t>(i) * cols);
    EXPECT_EQ(v(i, -1), row + static_cast<double>((first_col + cols - 1) % cols));
    EXPECT_EQ(v(i, n), row + static_cast<double>((first_col + v.extent(1)) % cols));
  }
  a.exchange_halo();  // and the array goes on exchanging
  pgas::sync_all();
}

// ---- allocations one image cannot make ----

// The last image's address space is limited to what it uses now plus 32 MiB (as `ulimit -v`
// would), and every image asks for an array of 128 MiB each: every image throws the same
// resource_error naming that image, none hangs, and afterwards the limit is lifted and the
// same array is made. Then a vector's reserve, the same way.
TEST_F(BadInput, array_or_vector_one_image_cannot_map_is_refused_on_every_image) {
#ifdef PGAS_TEST_UNDER_ASAN
  GTEST_SKIP() << "AddressSanitizer needs address space of its own as it goes";
#else
  const std::size_t per_image = (std::size_t{128} << 20) / sizeof(long);
  const std::size_t limited = images() - 1;
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  // Runs `make` with the last image's address space limited to what it maps now plus 32 MiB:
  // every image must throw resource_error naming that image. The limit is lifted after.
  const auto refused_on_every_image = [&](const char* what, auto make) {
    if (me() == limited) {
      long pages = 0;
      std::ifstream("/proc/self/statm") >> pages;
      rlimit lower = saved;
      lower.rlim_cur = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                       (rlim_t{32} << 20);
      EXPECT_EQ(setrlimit(RLIMIT_AS, &lower), 0);
    }
    try {
      make();
      ADD_FAILURE() << "no resource_error from " << what;
    } catch (const pgas::resource_error& e) {
      EXPECT_NE(std::string(e.what()).find("image " + std::to_string(limited) + " cannot"),
                std::string::npos)
          << e.what();
    }
    if (me() == limited) {
      EXPECT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
    }
  };
  refused_on_every_image("an array", [&] { pgas::array<long> big(per_image * images()); });
  pgas::array<long> now(per_image * images());
  if (me() == 0)
    now[0] = 1;
  pgas::sync_all();
  EXPECT_EQ(static_cast<long>(now[0]), 1);
  pgas::sync_all();
  // A vector's growth likewise: its buffers come from the heap, not from MPI.
  pgas::vector<long> v(images());
  refused_on_every_image("a reserve", [&] { v.reserve(per_image * images()); });
  EXPECT_EQ(v.size(), images());  // nothing changed
  v.reserve(per_image * images());
  pgas::sync_all();
#endif
}
