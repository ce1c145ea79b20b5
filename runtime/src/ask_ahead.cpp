#include <pgas/runtime/ask_ahead.hpp>
#include <pgas/runtime/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>

namespace pgas::runtime {

namespace {

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The largest candidate not above `distance` (the first is 0).
std::size_t index_of(std::size_t distance) noexcept {
  const auto& c = ask_ahead_tuner::candidates;
  return static_cast<std::size_t>(std::upper_bound(c.begin(), c.end(), distance) - c.begin()) - 1;
}

// PGAS_ASK_AHEAD's distance, or -1 when unset; usage_error unless it is a candidate.
long distance_from_environment() {
  const char* v = std::getenv("PGAS_ASK_AHEAD");
  if (v == nullptr || *v == '\0')
    return -1;
  for (const std::size_t d : ask_ahead_tuner::candidates) {
    if (std::to_string(d) == v)
      return static_cast<long>(d);
  }
  throw usage_error(std::string("PGAS_ASK_AHEAD must be one of 0, 8, 16, 32, 64, 128 and 256 (how "
                                "many iterations ahead a loop over scattered memory asks for "
                                "its lines), not \"") +
                    v + "\"");
}

// Where each loop's climb starts: the distances these loops were tuned to by hand on the Xeon
// VM before they chose at run time (bench/README), a good first guess on most machines. An
// update carrying its own value ran 5-10 % slower asking ahead (the processor overlaps those
// misses itself); a histogram's counts ran best 64 ahead; atomics in place 32 (8 reached 0.6
// of its rate); reads and the map's probes 16.
constexpr std::size_t start_of(scattered_loop kind) noexcept {
  switch (kind) {
    case scattered_loop::updates_with_values:
      return 0;
    case scattered_loop::counted_updates:
      return 64;
    case scattered_loop::updates_in_place:
      return 32;
    case scattered_loop::owner_reads:
    case scattered_loop::map_updates:
      return 16;
  }
  return 0;
}

}  // namespace

ask_ahead_tuner::ask_ahead_tuner(std::size_t start) noexcept : current_(index_of(start)) {
}

ask_ahead_tuner ask_ahead_tuner::fixed(std::size_t distance) noexcept {
  ask_ahead_tuner t(distance);
  t.chosen_ = true;
  return t;
}

std::size_t ask_ahead_tuner::candidate_of_sample(std::size_t k) const noexcept {
  const std::size_t slot = k % samples_per_round;
  if (slot % 2 == 0)
    return current_;
  const std::size_t lower = current_ > 0 ? current_ - 1 : current_ + 1;
  const std::size_t upper = current_ + 1 < candidates.size() ? current_ + 1 : current_ - 1;
  const bool lower_first = (k / samples_per_round) % 2 == 0;
  return (slot == 1) == lower_first ? lower : upper;
}

ask_ahead_tuner::batch ask_ahead_tuner::begin() noexcept {
  if (chosen_)
    return {distance(), -1};
  return {candidates[candidate_of_sample(sample_)], now_ns()};
}

void ask_ahead_tuner::end(batch b, std::size_t items) noexcept {
  if (b.started_ns < 0 || chosen_ || items < smallest_timed)
    return;
  timed_ns_ += now_ns() - b.started_ns;
  timed_items_ += items;
  if (timed_items_ >= sample_items)
    record(static_cast<double>(timed_ns_) / static_cast<double>(timed_items_));
}

void ask_ahead_tuner::record(double ns_per_item) noexcept {
  if (chosen_)
    return;
  ns_per_item_[sample_] = ns_per_item;
  timed_items_ = 0;
  timed_ns_ = 0;
  if (++sample_ == samples_per_step)
    judge_step();
}

void ask_ahead_tuner::judge_step() noexcept {
  // Each neighbour's times against the current distance's on either side: one or two a round
  // (two where the current distance is an end of the candidates and has one neighbour).
  std::array<std::array<double, 2 * rounds>, 2> ratios{};
  std::array<std::size_t, 2> count{};
  std::array<std::size_t, 2> neighbour{};
  for (std::size_t k = 1; k < samples_per_step; ++k) {
    if (k % samples_per_round % 2 == 0)
      continue;  // the current distance's
    const std::size_t c = candidate_of_sample(k);
    const std::size_t side = c < current_ ? 0 : 1;
    neighbour[side] = c;
    const double beside = (ns_per_item_[k - 1] + ns_per_item_[k + 1]) / 2;
    ratios[side][count[side]++] = beside > 0 ? ns_per_item_[k] / beside : 1.0;
  }
  std::size_t best = current_;
  double best_ratio = 1.0 - required_gain;
  for (std::size_t side = 0; side < 2; ++side) {
    if (count[side] == 0)
      continue;
    const auto first = ratios[side].begin();
    const auto middle = first + static_cast<std::ptrdiff_t>(count[side] / 2);
    std::nth_element(first, middle, first + static_cast<std::ptrdiff_t>(count[side]));
    if (*middle < best_ratio) {
      best_ratio = *middle;
      best = neighbour[side];
    }
  }
  sample_ = 0;
  // A climb is at most as long as the candidates (noise cannot send it round in circles).
  if (best == current_ || ++steps_ == candidates.size()) {
    chosen_ = true;
    return;
  }
  current_ = best;
}

ask_ahead_tuner& ask_ahead_for(scattered_loop kind) {
  static std::array<ask_ahead_tuner, scattered_loop_kinds> tuners =
      []<std::size_t... K>(std::index_sequence<K...>) {
    const long given = distance_from_environment();
    const auto make = [given](scattered_loop k) {
      return given >= 0 ? ask_ahead_tuner::fixed(static_cast<std::size_t>(given))
                        : ask_ahead_tuner(start_of(k));
    };
    return std::array<ask_ahead_tuner, scattered_loop_kinds>{
        make(static_cast<scattered_loop>(K))...};
  }
  (std::make_index_sequence<scattered_loop_kinds>{});
  return tuners[static_cast<std::size_t>(kind)];
}

void check_ask_ahead_setting() {
  (void)distance_from_environment();
}

}  // namespace pgas::runtime
