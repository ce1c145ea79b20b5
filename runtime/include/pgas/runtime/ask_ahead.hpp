#pragma once
// How far ahead a loop over scattered memory asks for the cache lines it will reach. The best
// distance is the machine's: a miss's latency against an iteration's time, and whether the
// processor already overlaps the misses on its own. So no distance is fixed here: each kind of
// loop starts from one and, timing its own first iterations, moves to another only where the
// loop ran measurably faster with it.

#include <array>
#include <cstddef>
#include <cstdint>

namespace pgas::runtime {

/// The loops that ask ahead, each choosing its distance apart (their iterations cost apart).
enum class scattered_loop : unsigned char {
  updates_with_values,  // an owner applying a batch of updates, each with its value (combine.hpp)
  counted_updates,      // the same where every update adds one value: a histogram's counts
  updates_in_place,     // processor atomics into a mapped peer's memory
  owner_reads,          // an owner reading the elements a request names
  map_updates,          // unordered_map's owner applying async updates into its slots
};
inline constexpr std::size_t scattered_loop_kinds =
    static_cast<std::size_t>(scattered_loop::map_updates) + 1;

/// Chooses one loop's distance by timing the loop itself, climbing from the starting distance:
/// a step times pieces at the current distance and at its two neighbours among the candidates,
/// alternately — current, one neighbour, current, the other, current — for `rounds` rounds (the
/// neighbours' order swapped each round), each sample the time per iteration of `sample_items`
/// iterations (small batches of one distance timed together). A neighbour is judged by its time
/// against the mean of the current distance's on either side, so a machine that speeds up or
/// slows down meanwhile (a table warming, another process) moves both alike. If the better
/// neighbour's median beats the current by `required_gain`, the climb moves there and takes
/// another step; otherwise the current distance is the choice. Local; one thread.
class ask_ahead_tuner {
 public:
  /// Powers of two (a ring of them is indexed by a mask); 0 asks for nothing ahead.
  static constexpr std::array<std::size_t, 7> candidates = {0, 8, 16, 32, 64, 128, 256};
  static constexpr std::size_t largest_distance = 256;
  static constexpr std::size_t rounds = 7;
  /// Iterations per sample: 50-200 us of a loop of misses, long beside a clock read or an
  /// interrupt. A long loop is tried in pieces of this size, so one large batch makes the choice.
  static constexpr std::size_t sample_items = 16384;
  /// Pieces shorter than the farthest distance are not timed: every distance runs them alike
  /// (none asks for an update it reaches), and two clock reads would weigh on each — a stream
  /// of one-update batches (an event post applied by its owner) would pay them on every post.
  static constexpr std::size_t smallest_timed = largest_distance;
  static constexpr double required_gain = 0.03;
  static constexpr std::size_t samples_per_round = 5;

  /// Starts at `start` (between two candidates: at the lower).
  explicit ask_ahead_tuner(std::size_t start) noexcept;
  /// Fixed at `distance` (between two candidates: the lower): nothing is timed.
  [[nodiscard]] static ask_ahead_tuner fixed(std::size_t distance) noexcept;

  /// What one piece runs at, and when it started if it is timed.
  struct batch {
    std::size_t distance;
    std::int64_t started_ns;  // -1: not timed
  };
  [[nodiscard]] batch begin() noexcept;
  /// Ends a piece begin() gave, which ran `items` iterations.
  void end(batch b, std::size_t items) noexcept;
  /// Records the time per iteration of the sample begin() runs now (what end() does with the
  /// clock's figures once they cover sample_items), and moves on to the next.
  void record(double ns_per_item) noexcept;

  /// The distance untimed pieces run at: the current one while climbing, then the choice.
  [[nodiscard]] std::size_t distance() const noexcept { return candidates[current_]; }
  [[nodiscard]] bool chosen() const noexcept { return chosen_; }

 private:
  static constexpr std::size_t samples_per_step = rounds * samples_per_round;
  // The candidate (an index) sample `k` of a step runs at.
  [[nodiscard]] std::size_t candidate_of_sample(std::size_t k) const noexcept;
  void judge_step() noexcept;

  std::size_t current_ = 0;  // index in candidates
  bool chosen_ = false;
  std::size_t steps_ = 0;
  std::size_t sample_ = 0;       // in this step
  std::size_t timed_items_ = 0;  // of this sample so far
  std::int64_t timed_ns_ = 0;
  std::array<double, samples_per_step> ns_per_item_{};
};
static_assert(ask_ahead_tuner::candidates.back() == ask_ahead_tuner::largest_distance);

/// This process's tuner for loops of `kind`: fixed at PGAS_ASK_AHEAD where that is set, else
/// starting from what the loop ran best at on the machines it was measured on. Local.
[[nodiscard]] ask_ahead_tuner& ask_ahead_for(scattered_loop kind);

/// Throws usage_error if PGAS_ASK_AHEAD is set but not one of the candidate distances: what the
/// environment checks at start, on every image. Local.
void check_ask_ahead_setting();

/// Runs body(first, last, ahead) over the iterations [0, n) of a loop of `kind`, in order:
/// while its tuner is choosing, in pieces of sample_items iterations, each at the distance the
/// trial gives and timed (none shorter than smallest_timed); the rest in one piece at the
/// current distance. `ahead` counts in the
/// whole loop: a line asked for past a piece's end is the next piece's. Local.
template <class Body>
[[gnu::always_inline]] inline void for_each_piece_asking_ahead(scattered_loop kind,
                                                               std::size_t n,
                                                               Body&& body) {
  ask_ahead_tuner& tuner = ask_ahead_for(kind);
  std::size_t first = 0;
  while (n - first >= ask_ahead_tuner::smallest_timed && !tuner.chosen()) {
    const std::size_t last =
        n - first > ask_ahead_tuner::sample_items ? first + ask_ahead_tuner::sample_items : n;
    const ask_ahead_tuner::batch piece = tuner.begin();
    body(first, last, piece.distance);
    tuner.end(piece, last - first);
    first = last;
  }
  if (first < n)
    body(first, n, tuner.distance());
}

}  // namespace pgas::runtime
