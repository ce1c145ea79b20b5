// The choice of how far ahead a loop asks for lines: the current distance and its neighbours
// timed alternately, each neighbour judged against the current distance on either side of it,
// a climb that moves only for a clear gain in the median, small pieces timed together and the
// shortest not at all, a fixed distance never timed. The figures are the test's own (record()), not
// the clock's, except where a test says so.

#include <pgas/runtime/ask_ahead.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace {

using pgas::runtime::ask_ahead_tuner;

constexpr std::size_t step =
    ask_ahead_tuner::rounds * ask_ahead_tuner::samples_per_round;  // samples per step

// Runs the tuner until it has chosen, each sample costing cost(distance, sample) ns per item;
// returns the distances the samples ran at, in order.
std::vector<std::size_t> climb(ask_ahead_tuner& t,
                               const std::function<double(std::size_t, std::size_t)>& cost) {
  std::vector<std::size_t> ran;
  for (std::size_t k = 0; !t.chosen() && k < 100 * step; ++k) {
    const ask_ahead_tuner::batch b = t.begin();
    EXPECT_GE(b.started_ns, 0) << "a sample of the climb is timed";
    ran.push_back(b.distance);
    t.record(cost(b.distance, k));
  }
  return ran;
}

TEST(AskAhead, a_step_alternates_the_current_distance_with_each_neighbour) {
  ask_ahead_tuner t(32);
  const std::vector<std::size_t> ran = climb(t, [](std::size_t, std::size_t) { return 1.0; });
  ASSERT_EQ(ran.size(), step) << "no gain anywhere: one step, and the start stays";
  for (std::size_t round = 0; round < ask_ahead_tuner::rounds; ++round) {
    const std::size_t* s = ran.data() + round * ask_ahead_tuner::samples_per_round;
    const bool lower_first = round % 2 == 0;
    EXPECT_EQ(s[0], 32U);
    EXPECT_EQ(s[1], lower_first ? 16U : 64U) << "round " << round;
    EXPECT_EQ(s[2], 32U);
    EXPECT_EQ(s[3], lower_first ? 64U : 16U) << "round " << round;
    EXPECT_EQ(s[4], 32U);
  }
  EXPECT_EQ(t.distance(), 32U);
}

TEST(AskAhead, the_climb_goes_on_while_a_neighbour_is_clearly_faster) {
  ask_ahead_tuner t(16);
  EXPECT_EQ(t.distance(), 16U);
  // Fastest at 128, each step further from it slower.
  const auto cost = [](std::size_t d, std::size_t) {
    switch (d) {
      case 128:
        return 1.0;
      case 64:
      case 256:
        return 1.2;
      case 32:
        return 1.5;
      default:
        return 2.0;
    }
  };
  const std::vector<std::size_t> ran = climb(t, cost);
  EXPECT_TRUE(t.chosen());
  EXPECT_EQ(t.distance(), 128U);
  EXPECT_EQ(ran.size(), 4 * step) << "16 -> 32 -> 64 -> 128, and a step that stays";
  // Chosen: pieces run there and are not timed.
  const ask_ahead_tuner::batch b = t.begin();
  EXPECT_EQ(b.distance, 128U);
  EXPECT_LT(b.started_ns, 0);
}

TEST(AskAhead, asking_nothing_ahead_can_be_the_choice) {
  ask_ahead_tuner t(8);
  (void)climb(t, [](std::size_t d, std::size_t) { return d == 0 ? 1.0 : 1.5; });
  EXPECT_EQ(t.distance(), 0U);
  // From the end of the candidates, its one neighbour is timed twice a round.
  ask_ahead_tuner from_zero(0);
  const std::vector<std::size_t> ran =
      climb(from_zero, [](std::size_t d, std::size_t) { return d == 0 ? 1.0 : 1.5; });
  ASSERT_EQ(ran.size(), step);
  EXPECT_EQ(ran[1], 8U);
  EXPECT_EQ(ran[3], 8U);
  EXPECT_EQ(from_zero.distance(), 0U);
}

TEST(AskAhead, the_current_distance_stays_unless_beaten_by_the_required_gain) {
  ask_ahead_tuner t(32);
  const double slightly = 1.0 - ask_ahead_tuner::required_gain / 2;
  (void)climb(t, [&](std::size_t d, std::size_t) { return d == 64 ? slightly : 1.0; });
  EXPECT_TRUE(t.chosen());
  EXPECT_EQ(t.distance(), 32U);
}

TEST(AskAhead, a_machine_speeding_up_meanwhile_does_not_decide) {
  // Every sample is faster than the one before (a table warming): a neighbour, timed after the
  // current distance, would look faster against the current distance's earlier samples alone.
  ask_ahead_tuner t(32);
  (void)climb(t, [](std::size_t, std::size_t k) { return 100.0 / static_cast<double>(k + 1); });
  EXPECT_TRUE(t.chosen());
  EXPECT_EQ(t.distance(), 32U);
}

TEST(AskAhead, a_few_fast_samples_alone_do_not_decide) {
  ask_ahead_tuner t(32);
  // 16 looks ten times faster in its first three rounds (pieces that met warm lines), slower
  // in the others: the median over the rounds is what counts.
  std::size_t seen = 0;
  (void)climb(t, [&](std::size_t d, std::size_t) {
    if (d != 16)
      return 1.0;
    return seen++ < 3 ? 0.1 : 1.2;
  });
  EXPECT_EQ(t.distance(), 32U);
}

TEST(AskAhead, small_pieces_of_a_distance_are_timed_together) {
  ask_ahead_tuner t(16);
  const std::size_t quarter = ask_ahead_tuner::sample_items / 4;
  const std::size_t first = t.begin().distance;
  EXPECT_EQ(first, 16U);
  // Three quarters of the iterations a sample needs: still the same sample.
  for (int k = 0; k < 3; ++k) {
    const ask_ahead_tuner::batch b = t.begin();
    EXPECT_EQ(b.distance, first);
    t.end(b, quarter);
  }
  const ask_ahead_tuner::batch fourth = t.begin();
  EXPECT_EQ(fourth.distance, first);
  t.end(fourth, quarter);
  EXPECT_NE(t.begin().distance, first) << "four quarters make one sample";
  // Timed by the clock (whatever it says), the step ends after its samples; the climb then
  // stays or moves, and ends within as many steps as there are candidates.
  for (std::size_t k = 1; k < step * ask_ahead_tuner::candidates.size() && !t.chosen(); ++k) {
    const ask_ahead_tuner::batch b = t.begin();
    t.end(b, ask_ahead_tuner::sample_items);
  }
  EXPECT_TRUE(t.chosen());
}

TEST(AskAhead, pieces_shorter_than_the_farthest_distance_are_not_timed) {
  ask_ahead_tuner t(16);
  const std::size_t first = t.begin().distance;
  // A sample's worth of iterations in one-update pieces (an owner applying event posts one at a
  // time), and again in pieces one short of the farthest distance, leave the sample open.
  for (std::size_t k = 0; k < ask_ahead_tuner::sample_items; ++k) {
    const ask_ahead_tuner::batch b = t.begin();
    EXPECT_EQ(b.distance, first);
    t.end(b, 1);
  }
  for (std::size_t k = 0; k <= ask_ahead_tuner::sample_items / ask_ahead_tuner::smallest_timed;
       ++k) {
    const ask_ahead_tuner::batch b = t.begin();
    EXPECT_EQ(b.distance, first);
    t.end(b, ask_ahead_tuner::smallest_timed - 1);
  }
  EXPECT_EQ(t.begin().distance, first) << "short pieces made a sample";
  t.end(t.begin(), ask_ahead_tuner::sample_items);
  EXPECT_NE(t.begin().distance, first) << "a long piece makes one";
}

TEST(AskAhead, a_loop_shorter_than_the_farthest_distance_runs_untimed) {
  // The loop in pieces (an owner applying a batch) runs a short loop in one piece at the
  // current distance and leaves the tuner's sample as it was, however often it runs.
  ask_ahead_tuner& t = pgas::runtime::ask_ahead_for(pgas::runtime::scattered_loop::owner_reads);
  if (t.chosen())
    GTEST_SKIP() << "PGAS_ASK_AHEAD fixes the distance: nothing is timed anyway";
  const std::size_t current = t.distance();
  for (std::size_t k = 0; k < ask_ahead_tuner::sample_items; ++k) {
    std::vector<std::size_t> pieces;
    pgas::runtime::for_each_piece_asking_ahead(
        pgas::runtime::scattered_loop::owner_reads, 3,
        [&](std::size_t from, std::size_t to, std::size_t ahead) {
          pieces.push_back(to - from);
          EXPECT_EQ(ahead, current);
        });
    ASSERT_EQ(pieces, std::vector<std::size_t>{3});
  }
  EXPECT_EQ(t.begin().distance, current) << "short loops made a sample";
}

TEST(AskAhead, a_fixed_distance_is_never_timed) {
  ask_ahead_tuner t = ask_ahead_tuner::fixed(8);
  EXPECT_TRUE(t.chosen());
  for (std::size_t k = 0; k < 2 * step; ++k) {
    const ask_ahead_tuner::batch b = t.begin();
    EXPECT_EQ(b.distance, 8U);
    EXPECT_LT(b.started_ns, 0);
    t.end(b, 1U << 20);
  }
  EXPECT_EQ(t.distance(), 8U);
}

}  // namespace
