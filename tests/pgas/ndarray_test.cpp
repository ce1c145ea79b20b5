// pgas::ndarray: tiles on a process grid, element access, ghost cells after a halo exchange
// (whole and split phase) checked cell by cell in 1, 2 and 3 dimensions, empty tiles, patches.
#include <pgas/algorithms.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"
#include <array>
#include <cstddef>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

using pgas_test::images;

// The value of the element at global index g: its position, in base 1000.
template <std::size_t N>
double code(const std::array<long long, N>& g) {
  double v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000 + static_cast<double>(g[d]);
  return v + 1;
}
template <std::size_t N>
double code(const std::array<std::size_t, N>& g) {
  std::array<long long, N> s{};
  for (std::size_t d = 0; d < N; ++d) s[d] = static_cast<long long>(g[d]);
  return code<N>(s);
}

// Calls f(local position) for every cell of the tile, ghosts included when `ghosts`.
template <std::size_t N, class F>
void for_each_cell(const std::array<std::size_t, N>& extents,
                   const std::array<std::size_t, N>& halos,
                   bool ghosts,
                   F f) {
  std::array<std::size_t, N> sizes{};
  for (std::size_t d = 0; d < N; ++d) {
    if (extents[d] == 0)
      return;
    sizes[d] = extents[d] + (ghosts ? 2 * halos[d] : 0);
  }
  std::array<std::size_t, N> at{};
  while (true) {
    std::array<long long, N> local{};
    for (std::size_t d = 0; d < N; ++d) {
      local[d] = static_cast<long long>(at[d]) - (ghosts ? static_cast<long long>(halos[d]) : 0);
    }
    f(local);
    std::size_t d = N;
    while (d-- > 0) {
      if (++at[d] < sizes[d])
        break;
      at[d] = 0;
      if (d == 0)
        return;
    }
  }
}

template <class T, std::size_t N>
T& cell(const pgas::ndarray_view<T, N>& v, const std::array<long long, N>& at) {
  return std::apply([&](auto... i) -> T& { return v(i...); }, at);
}

template <std::size_t N>
void fill_owned(pgas::ndarray<double, N>& a) {
  const auto v = a.local();
  const auto origin = a.local_origin();
  for_each_cell<N>(v.extents(), v.halos(), false, [&](const std::array<long long, N>& at) {
    std::array<long long, N> g{};
    for (std::size_t d = 0; d < N; ++d) g[d] = static_cast<long long>(origin[d]) + at[d];
    cell(v, at) = code<N>(g);
  });
}

// Every ghost cell holds the value of the element at its position (wrapped when periodic), or
// the initial -1 outside a fixed array.
template <std::size_t N>
void expect_ghosts(const pgas::ndarray<double, N>& a, const std::string& what) {
  const auto v = a.local();
  const auto origin = a.local_origin();
  const bool periodic = a.edges() == pgas::boundary::periodic;
  std::size_t wrong = 0;
  for_each_cell<N>(v.extents(), v.halos(), true, [&](const std::array<long long, N>& at) {
    std::array<long long, N> g{};
    bool inside = true;
    for (std::size_t d = 0; d < N; ++d) {
      const auto n = static_cast<long long>(a.extent(d));
      g[d] = static_cast<long long>(origin[d]) + at[d];
      if (periodic)
        g[d] = ((g[d] % n) + n) % n;
      inside = inside && g[d] >= 0 && g[d] < n;
    }
    const double want = inside ? code<N>(g) : -1.0;
    if (cell(v, at) != want && ++wrong <= 5) {
      std::string where;
      for (std::size_t d = 0; d < N; ++d) where += (d ? "," : "") + std::to_string(at[d]);
      ADD_FAILURE() << what << ": image " << pgas::this_image() << " local (" << where << ") holds "
                    << cell(v, at) << ", want " << want;
    }
  });
  EXPECT_EQ(wrong, 0u) << what;
}

template <std::size_t N>
std::string describe(const std::array<std::size_t, N>& e,
                     const pgas::grid<N>& g,
                     std::size_t h,
                     pgas::boundary b) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) of " " + std::to_string(x).
  std::string s = "extents";
  for (auto x : e) s.append(" ").append(std::to_string(x));
  s += ", grid";
  for (auto x : g.extents()) s.append(" ").append(std::to_string(x));
  s.append(", halo ").append(std::to_string(h));
  return s.append(b == pgas::boundary::periodic ? ", periodic" : ", fixed");
}

template <std::size_t N>
void check_halo(const std::array<std::size_t, N>& extents,
                const pgas::grid<N>& g,
                std::size_t h,
                pgas::boundary b) {
  const std::string what = describe<N>(extents, g, h, b);
  pgas::ndarray<double, N> a(extents, g, h, b, -1.0);
  fill_owned(a);
  a.exchange_halo();
  expect_ghosts(a, what + " (exchange_halo)");
  a.exchange_halo();  // twice: the epochs open and close cleanly
  expect_ghosts(a, what + " (again)");
  // Split phase: the owned cells may be read while the exchange is in flight.
  fill_owned(a);
  auto h_in_flight = a.exchange_halo_begin();
  std::size_t changed = 0;  // owned cells read in flight still hold what fill_owned wrote
  const auto origin = a.local_origin();
  for_each_cell<N>(a.local().extents(), a.local().halos(), false,
                   [&](const std::array<long long, N>& at) {
                     std::array<long long, N> global{};
                     for (std::size_t d = 0; d < N; ++d)
                       global[d] = static_cast<long long>(origin[d]) + at[d];
                     changed += cell(a.local(), at) != code<N>(global) ? 1u : 0u;
                   });
  h_in_flight.wait();
  EXPECT_FALSE(h_in_flight.in_flight());
  expect_ghosts(a, what + " (split phase)");
  EXPECT_EQ(changed, 0u) << what;
  // Split phase ended by polling: test() until it reports the ghosts filled, then wait() is a
  // no-op and test() stays true.
  fill_owned(a);
  auto polled = a.exchange_halo_begin();
  while (!polled.test()) {
  }
  EXPECT_FALSE(polled.in_flight());
  EXPECT_TRUE(polled.test());
  polled.wait();
  expect_ghosts(a, what + " (polled with test)");
}

// Grids of every shape the image count allows: 1 x P, P x 1 and, at 4 images, 2 x 2.
std::vector<pgas::grid<2>> grids_2d() {
  std::vector<pgas::grid<2>> out{pgas::grid({1, images()}), pgas::grid({images(), 1})};
  if (images() == 4)
    out.push_back(pgas::grid({2, 2}));
  return out;
}

TEST(NdArray, default_grid_holds_every_image_and_tiles_cover_the_array_once) {
  pgas::ndarray<int, 2> a({7, 5});
  EXPECT_EQ(a.grid().images(), images());
  EXPECT_EQ(a.extents(), (std::array<std::size_t, 2>{7, 5}));
  // Every element's owner agrees with the tile that holds it.
  std::size_t mine = 0;
  for (std::size_t i = 0; i < 7; ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      if (a.owner(i, j) != pgas::this_image())
        continue;
      ++mine;
      const auto o = a.local_origin();
      EXPECT_GE(i, o[0]);
      EXPECT_LT(i, o[0] + a.local().extent(0));
      EXPECT_GE(j, o[1]);
      EXPECT_LT(j, o[1] + a.local().extent(1));
    }
  }
  EXPECT_EQ(mine, a.local().size());
  EXPECT_EQ(pgas::co_sum(mine), 35u);
}

TEST(NdArray, every_image_reads_what_one_image_wrote_through_global_references) {
  for (const auto& g : grids_2d()) {
    pgas::ndarray<double, 2> a({5, 6}, g);
    if (pgas::this_image() == 0) {
      for (std::size_t i = 0; i < 5; ++i) {
        for (std::size_t j = 0; j < 6; ++j) a(i, j) = code<2>(std::array<std::size_t, 2>{i, j});
      }
    }
    pgas::sync_all();
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t j = 0; j < 6; ++j)
        EXPECT_EQ(a(i, j).get(), code<2>(std::array<std::size_t, 2>{i, j}));
    }
    // The owner sees the value in its tile, row-major with the stated strides.
    const auto v = a.local();
    if (v.size() > 0) {
      EXPECT_EQ(v.stride(1), 1u);
      EXPECT_EQ(v.stride(0), v.extent(1));
      const auto o = a.local_origin();
      EXPECT_EQ(v.data()[v.stride(0) * (v.extent(0) - 1)],
                code<2>(std::array<std::size_t, 2>{o[0] + v.extent(0) - 1, o[1]}));
    }
    pgas::sync_all();
  }
}

TEST(NdArray, halo_of_one_dimension) {
  for (auto b : {pgas::boundary::fixed, pgas::boundary::periodic}) {
    check_halo<1>({4 * images() + 1}, pgas::grid({images()}), 2, b);
    check_halo<1>({2 * images()}, pgas::grid({images()}), 1, b);
  }
}

TEST(NdArray, halo_of_two_dimensions_on_every_grid_uneven_and_with_corners) {
  for (const auto& g : grids_2d()) {
    for (auto b : {pgas::boundary::fixed, pgas::boundary::periodic}) {
      check_halo<2>({2 * g.extent(0) + 1, 3 * g.extent(1) + 2}, g, 1, b);
      check_halo<2>({2 * g.extent(0) + 3, 2 * g.extent(1) + 1}, g, 2, b);
      // Rows of more than a cache line travel in place, columns and corners packed
      // (halo_plan.hpp): both ways in one exchange.
      check_halo<2>({9 * g.extent(0) + 2, 11 * g.extent(1) + 3}, g, 2, b);
    }
  }
}

TEST(NdArray, halo_of_three_dimensions) {
  const std::vector<pgas::grid<3>> gs{pgas::grid({images(), 1, 1}), pgas::grid({1, 1, images()}),
                                      pgas::ndarray<int, 3>({1, 1, 1}).grid()};
  for (const auto& g : gs) {
    for (auto b : {pgas::boundary::fixed, pgas::boundary::periodic}) {
      check_halo<3>({g.extent(0) + 2, 2 * g.extent(1) + 1, 2 * g.extent(2)}, g, 1, b);
      check_halo<3>({g.extent(0) + 2, 2 * g.extent(1) + 1, 10 * g.extent(2) + 1}, g, 1, b);
    }
  }
}

TEST(NdArray, different_halo_per_dimension) {
  for (const auto& g : grids_2d()) {
    pgas::ndarray<double, 2> a({3 * g.extent(0), 2 * g.extent(1) + 1}, g, {2, 1},
                               pgas::boundary::periodic, -1.0);
    EXPECT_EQ(a.halo(0), 2u);
    EXPECT_EQ(a.halo(1), 1u);
    fill_owned(a);
    a.exchange_halo();
    expect_ghosts(a, "halo {2, 1}");
  }
}

TEST(NdArray, arrays_smaller_than_the_grid_leave_empty_tiles) {
  const std::size_t p = images();
  pgas::ndarray<double, 2> a({1, 3}, pgas::grid({p, 1}), 1, pgas::boundary::fixed, -1.0);
  EXPECT_EQ(a.local().size(), pgas::this_image() == 0 ? 3u : 0u);
  EXPECT_EQ(a.local().data() == nullptr, pgas::this_image() != 0);
  fill_owned(a);
  a.exchange_halo();
  expect_ghosts(a, "1 x 3 on a P x 1 grid");
  pgas::ndarray<double, 2> wrap({1, 3}, pgas::grid({p, 1}), 1, pgas::boundary::periodic, -1.0);
  fill_owned(wrap);
  wrap.exchange_halo();
  expect_ghosts(wrap, "1 x 3 periodic on a P x 1 grid");
  pgas::ndarray<double, 2> none({0, 4}, pgas::grid({1, p}), 1);
  none.exchange_halo();
  EXPECT_EQ(none.size(), 0u);
}

TEST(NdArray, patches_covering_one_tile_and_many_read_back_what_was_put) {
  for (const auto& g : grids_2d()) {
    const std::array<std::size_t, 2> e{3 * g.extent(0) + 1, 4 * g.extent(1) + 3};
    pgas::ndarray<double, 2> a(e, g, 1);
    // Image 0 puts the whole array as one patch; everyone reads it back in pieces.
    if (pgas::this_image() == 0) {
      std::vector<double> all(e[0] * e[1]);
      for (std::size_t i = 0; i < e[0]; ++i) {
        for (std::size_t j = 0; j < e[1]; ++j)
          all[i * e[1] + j] = code<2>(std::array<std::size_t, 2>{i, j});
      }
      pgas::put_patch(a, {0, 0}, e, all);
    }
    pgas::sync_all();
    const std::vector<std::array<std::size_t, 4>> boxes{{0, 0, 1, 1},
                                                        {1, 1, 2, 3},
                                                        {0, 0, e[0], e[1]},
                                                        {e[0] - 1, 0, 1, e[1]},
                                                        {0, e[1] - 1, e[0], 1},
                                                        {1, 2, e[0] - 2, e[1] - 3},
                                                        {2, 2, 0, 3}};
    for (const auto& b : boxes) {
      std::vector<double> out(b[2] * b[3], -7.0);
      pgas::get_patch(a, {b[0], b[1]}, {b[2], b[3]}, out);
      std::vector<double> later(out.size(), -7.0);
      pgas::async_get_patch(a, {b[0], b[1]}, {b[2], b[3]}, later).wait();
      for (std::size_t i = 0; i < b[2]; ++i) {
        for (std::size_t j = 0; j < b[3]; ++j) {
          const double want = code<2>(std::array<std::size_t, 2>{b[0] + i, b[1] + j});
          EXPECT_EQ(out[i * b[3] + j], want);
          EXPECT_EQ(later[i * b[3] + j], want);
        }
      }
    }
    pgas::sync_all();
    // Every image adds its number + 1 over a box crossing every tile; then puts asynchronously.
    const std::array<std::size_t, 2> first{1, 1};
    const std::array<std::size_t, 2> sizes{e[0] - 1, e[1] - 2};
    std::vector<double> ones(sizes[0] * sizes[1], static_cast<double>(pgas::this_image() + 1));
    pgas::accumulate_patch(a, first, sizes, ones, pgas::reduce_op::sum);
    pgas::sync_all();
    const double added = static_cast<double>(images() * (images() + 1) / 2);
    std::vector<double> out(sizes[0] * sizes[1]);
    pgas::get_patch(a, first, sizes, out);
    for (std::size_t i = 0; i < sizes[0]; ++i) {
      for (std::size_t j = 0; j < sizes[1]; ++j) {
        EXPECT_EQ(out[i * sizes[1] + j], code<2>(std::array<std::size_t, 2>{1 + i, 1 + j}) + added);
      }
    }
    pgas::sync_all();
    pgas::async_accumulate_patch(a, first, sizes, ones, pgas::reduce_op::sum).wait();
    pgas::sync_all();
    pgas::get_patch(a, first, sizes, out);
    EXPECT_EQ(out[0], code<2>(std::array<std::size_t, 2>{1, 1}) + 2 * added);
    pgas::sync_all();
    // Each image writes its own row band asynchronously.
    const std::size_t me = pgas::this_image();
    if (me < e[0]) {
      std::vector<double> row(e[1], static_cast<double>(me));
      auto f = pgas::async_put_patch(a, {me, 0}, {1, e[1]}, row);
      f.wait();
    }
    pgas::sync_all();
    std::vector<double> column(e[0]);
    pgas::get_patch(a, {0, e[1] - 1}, {e[0], 1}, column);
    for (std::size_t i = 0; i < std::min(images(), e[0]); ++i)
      EXPECT_EQ(column[i], static_cast<double>(i));
    pgas::sync_all();
  }
}

TEST(NdArray, patches_of_three_dimensions) {
  const pgas::grid<3> g({1, images(), 1});
  const std::array<std::size_t, 3> e{3, 2 * images() + 1, 4};
  pgas::ndarray<int, 3> a(e, g, 1);
  if (pgas::this_image() == images() - 1) {
    std::vector<int> all(e[0] * e[1] * e[2]);
    std::iota(all.begin(), all.end(), 0);
    pgas::put_patch(a, {0, 0, 0}, e, all);
  }
  pgas::sync_all();
  std::vector<int> out(2 * (e[1] - 1) * 2);
  pgas::get_patch(a, {1, 1, 1}, {2, e[1] - 1, 2}, out);
  std::size_t k = 0;
  for (std::size_t i = 1; i < 3; ++i) {
    for (std::size_t j = 1; j < e[1]; ++j) {
      for (std::size_t l = 1; l < 3; ++l)
        EXPECT_EQ(out[k++], static_cast<int>((i * e[1] + j) * e[2] + l));
    }
  }
  EXPECT_EQ(a(2, e[1] - 1, 3).get(), static_cast<int>(e[0] * e[1] * e[2] - 1));
  pgas::sync_all();
}

// b = aᵀ, or b += aᵀ, by one route, between sync points as pgas::transpose runs it; no route
// (nullopt): pgas::transpose itself, whose first calls of a shape take each route in turn.
void transpose_by(std::optional<pgas::detail::transpose_route> route,
                  pgas::ndarray<double, 2>& b,
                  const pgas::ndarray<double, 2>& a,
                  bool add) {
  if (!route) {
    if (add) {
      pgas::transpose(b, a, pgas::reduce_op::sum);
    } else {
      pgas::transpose(b, a);
    }
    return;
  }
  pgas::sync_all();
  if (add) {
    (void)pgas::detail::transpose_into_tile(
        b, a, [](double old, double x) { return old + x; }, *route);
  } else {
    (void)pgas::detail::transpose_into_tile(
        b, a, [](double, double x) { return x; }, *route);
  }
  pgas::sync_all();
}

// b = aᵀ and b += aᵀ, every cell checked, by each route and by pgas::transpose, for a and b on
// every pair of the grids 1 x p, p x 1 (and 2 x 2 at 4) of the team in force.
void check_transposes_by_every_route() {
  using route = pgas::detail::transpose_route;
  const std::size_t p = pgas::num_images();
  std::vector<pgas::grid<2>> gs{pgas::grid({1, p}), pgas::grid({p, 1})};
  if (p == 4)
    gs.push_back(pgas::grid({2, 2}));
  for (const auto& ga : gs) {
    for (const auto& gb : gs) {
      for (const auto by : {std::optional(route::readers_get), std::optional(route::owners_send),
                            std::optional<route>()}) {
        pgas::ndarray<double, 2> a({3 * p + 2, 2 * p + 1}, ga, 1);
        pgas::ndarray<double, 2> b({2 * p + 1, 3 * p + 2}, gb, 0, pgas::boundary::fixed, 0.5);
        fill_owned(a);
        const auto v = b.local();
        const auto o = b.local_origin();
        // Cells of this image's tile of b that are not `times` aᵀ.
        const auto wrong_cells = [&](double times) {
          std::size_t wrong = 0;
          for (std::size_t i = 0; i < v.extent(0); ++i) {
            for (std::size_t j = 0; j < v.extent(1); ++j) {
              if (v(i, j) != times * code<2>(std::array<std::size_t, 2>{o[1] + j, o[0] + i}))
                ++wrong;
            }
          }
          return wrong;
        };
        transpose_by(by, b, a, false);
        const std::size_t wrong = wrong_cells(1);
        transpose_by(by, b, a, true);  // b += aᵀ: twice the value
        const std::string where =
            "a on " + std::to_string(ga.extent(0)) + " x " + std::to_string(ga.extent(1)) +
            ", b on " + std::to_string(gb.extent(0)) + " x " + std::to_string(gb.extent(1)) +
            ", route " + (by ? std::to_string(static_cast<int>(*by)) : "chosen");
        EXPECT_EQ(wrong, 0u) << where;
        EXPECT_EQ(wrong_cells(2), 0u) << "b += aᵀ, " << where;
        pgas::sync_all();
      }
    }
  }
}

TEST(NdArray, transpose_between_any_grids_element_by_element_by_every_route) {
  check_transposes_by_every_route();
}

// The same on the halves of the world (images 0, 2, ... and 1, 3, ...): a team's image numbers,
// not the world's ranks, name the tiles and the exchange's partners.
TEST(NdArray, transpose_on_a_team_by_every_route) {
  const pgas::team half = pgas::team::world().split(static_cast<int>(pgas::this_image() % 2));
  const pgas::change_team scope(half);
  check_transposes_by_every_route();
}

// The route a transpose keeps: the one whose better time of two was lower; way 0 at once where
// nothing depended on the way. Times given, not taken, so the test never depends on load.
TEST(NdArray, transpose_keeps_the_route_measured_faster) {
  using pgas::detail::timed_choice;
  for (const bool second_faster : {false, true}) {
    timed_choice c;
    const std::array<double, 4> times =
        second_faster ? std::array{3.0, 9.0, 4.0, 2.0} : std::array{2.0, 2.5, 8.0, 4.0};
    for (std::size_t k = 0; k < times.size(); ++k) {
      EXPECT_TRUE(c.measuring());
      EXPECT_EQ(c.way(), static_cast<int>(k % 2));  // each way in turn
      c.record(times[k], true);
    }
    EXPECT_FALSE(c.measuring());
    EXPECT_EQ(c.way(), second_faster ? 1 : 0);
    c.record(0.0, true);  // later calls change nothing
    EXPECT_EQ(c.way(), second_faster ? 1 : 0);
  }
  timed_choice nothing_moved;
  nothing_moved.record(1.0, false);
  EXPECT_FALSE(nothing_moved.measuring());
  EXPECT_EQ(nothing_moved.way(), 0);
}

// Every image takes the same way on every call whatever each one's own time (the slowest
// image's is agreed), and the calls are timed four times at most.
TEST(NdArray, transpose_route_is_the_same_on_every_image) {
  pgas::detail::timed_choice c;
  const MPI_Comm comm = pgas::current_team().native();
  for (int call = 0; call < 6; ++call) {
    int taken = -1;
    c.run(comm, [&](int way) {
      taken = way;
      volatile double sink = 0;  // an image's own amount of work: its own time
      for (std::size_t k = 0; k < 1000 * (images() - pgas::this_image()); ++k) sink = sink + 1.0;
      return true;
    });
    EXPECT_EQ(pgas::co_max(taken), pgas::co_min(taken)) << "call " << call;
    EXPECT_EQ(c.measuring(), call < 3) << "call " << call;
  }
}

// Blocks large enough that each image's sweeps stop to make progress (every 2^16 elements,
// so that gets waiting on it are answered): the transposed values stay right across the stops,
// at the tiles' edges and in the tail of a block.
TEST(NdArray, transpose_of_blocks_swept_in_stretches) {
  const std::size_t p = images();
  const std::size_t rows = 1031;  // with 4 images, blocks of 257 x 275 elements
  const std::size_t cols = 275 * p + 3;
  // Distinct for every element (code<2>'s base 1000 is not, past 1000 columns).
  const auto value = [](std::size_t i, std::size_t j) { return static_cast<double>(i * 4096 + j); };
  for (const auto& g : {pgas::grid({1, p}), pgas::grid({p, 1})}) {
    pgas::ndarray<double, 2> a({rows, cols}, g);
    pgas::ndarray<double, 2> b({cols, rows}, g);
    const auto mine = a.local();
    const auto at = a.local_origin();
    for (std::size_t i = 0; i < mine.extent(0); ++i) {
      for (std::size_t j = 0; j < mine.extent(1); ++j) mine(i, j) = value(at[0] + i, at[1] + j);
    }
    pgas::transpose(b, a);
    pgas::transpose(b, a, pgas::reduce_op::sum);
    const auto v = b.local();
    const auto o = b.local_origin();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < v.extent(0); ++i) {
      for (std::size_t j = 0; j < v.extent(1); ++j) {
        if (v(i, j) != 2 * value(o[1] + j, o[0] + i))
          ++wrong;
      }
    }
    EXPECT_EQ(wrong, 0u) << "on " << g.extent(0) << " x " << g.extent(1);
    pgas::sync_all();
  }
}

TEST(NdArray, bad_shapes_grids_patches_and_indices_are_refused) {
  using extents = std::array<std::size_t, 2>;
  using dbl2 = pgas::ndarray<double, 2>;
  const extents four{4, 4};
  const pgas::grid<2> too_many({images() + 1, 1});
  const pgas::grid<2> with_zero({images(), 0});
  EXPECT_THROW((void)dbl2(four, too_many), pgas::usage_error);
  EXPECT_THROW((void)dbl2(four, with_zero), pgas::usage_error);
  const extents huge{std::size_t{1} << 40, std::size_t{1} << 40};
  const pgas::grid<2> rows({images(), 1});
  EXPECT_THROW((void)dbl2(huge, rows), pgas::usage_error);
  if (images() > 1) {
    const extents thin{images() + 1, 4};
    EXPECT_THROW((void)dbl2(thin, rows, 2), pgas::usage_error);
  }
  pgas::ndarray<double, 2> a({3, 4}, pgas::grid({1, images()}), 0);
  EXPECT_THROW((void)a(3, 0), pgas::out_of_range);
  EXPECT_THROW((void)a(0, -1), pgas::out_of_range);
  EXPECT_THROW((void)a.owner(0, 4), pgas::out_of_range);
  std::vector<double> out(4);
  EXPECT_THROW(pgas::get_patch(a, {2, 0}, {2, 2}, out), pgas::out_of_range);
  EXPECT_THROW(pgas::get_patch(a, {0, 0}, {1, 3}, out), pgas::usage_error);
  const auto v = a.local();
  if (v.size() > 0) {
    EXPECT_THROW((void)v.at(0, static_cast<long>(v.extent(1))), pgas::out_of_range);
  }
  pgas::sync_all();
}

}  // namespace
