#pragma once
// Aggregation of fine-grained remote accumulates: updates are combined locally per target
// (duplicates merged) and each target then gets one MPI_Accumulate per batch, instead of one
// per update.

#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace pgas::runtime {

/// a op b: what two updates of one element with `op` amount to. replace keeps the later (b),
/// no_op the element as it was (a).
template <class T>
[[nodiscard]] T combine(reduce_op op, const T& a, const T& b) noexcept {
  switch (op) {
    case reduce_op::sum: return static_cast<T>(a + b);
    case reduce_op::prod: return static_cast<T>(a * b);
    case reduce_op::min: return b < a ? b : a;
    case reduce_op::max: return a < b ? b : a;
    case reduce_op::band:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b);
      return b;
    case reduce_op::bor:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a | b);
      return b;
    case reduce_op::bxor:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a ^ b);
      return b;
    case reduce_op::land: return static_cast<T>(a && b);
    case reduce_op::lor: return static_cast<T>(a || b);
    case reduce_op::no_op: return a;
    case reduce_op::replace: return b;
  }
  return b;  // not reached: every op is handled above
}

/// Combines updates to the elements of a window (disp_unit sizeof(T), element e of target t at
/// displacement e) with one op, and sends them as one MPI_Accumulate per target on flush().
/// Per target it keeps a dense buffer as long as the target's part, so combining is one add.
/// Local; the accumulates are complete at the next sync point.
template <accumulable T>
class accumulate_batcher {
 public:
  /// `elements[t]` is how many elements target t exposes; `identity` is op's neutral value.
  accumulate_batcher(window& w, std::vector<std::size_t> elements, reduce_op op, T identity)
      : win_{&w}, op_{op}, identity_{identity}, targets_(elements.size()) {
    if (op == reduce_op::land || op == reduce_op::lor || op == reduce_op::replace ||
        op == reduce_op::no_op) {
      throw usage_error("accumulate_batcher combines with sum, prod, min, max, band, bor or bxor");
    }
    if (!std::is_integral_v<T> &&
        (op == reduce_op::band || op == reduce_op::bor || op == reduce_op::bxor)) {
      throw usage_error("accumulate_batcher: bitwise ops need an integer type");
    }
    if (elements.size() != static_cast<std::size_t>(w.ranks())) {
      throw usage_error("accumulate_batcher needs one element count per image");
    }
    for (std::size_t t = 0; t < elements.size(); ++t) targets_[t].sums.assign(elements[t], identity);
  }

  /// Combines v into element `offset` of `target`. Local, no communication. The caller has
  /// checked target and offset (this is the inner loop).
  void add(std::size_t target, std::size_t offset, const T& v) noexcept {
    per_target& t = targets_[target];
    T& slot = t.sums[offset];
    if (!t.dense) {
      if (t.touched.empty() || slot == identity_) t.touched.push_back(offset);
      if (t.touched.size() * dense_ratio > t.sums.size()) t.dense = true;  // stop listing
    }
    slot = combine(op_, slot, v);
  }

  /// Sends every combined update: one MPI_Accumulate per target with updates, either of the
  /// touched span as it is or, for few updates, of the touched elements through an indexed
  /// datatype. Local; complete at the next sync point.
  void flush() {
    const element_layout l = layout_of<T>();
    for (std::size_t target = 0; target < targets_.size(); ++target) {
      per_target& t = targets_[target];
      if (!t.dense && t.touched.empty()) continue;
      const int rank = static_cast<int>(target);
      if (t.dense) {
        // Most elements were hit: one contiguous accumulate of the whole part.
        accumulate(*win_, std::span<const T>(t.sums), rank, 0, op_);
        std::fill(t.sums.begin(), t.sums.end(), identity_);
      } else {
        std::sort(t.touched.begin(), t.touched.end());
        t.touched.erase(std::unique(t.touched.begin(), t.touched.end()), t.touched.end());
        std::vector<T> packed;
        std::vector<int> displacements;
        packed.reserve(t.touched.size());
        displacements.reserve(t.touched.size());
        for (std::size_t off : t.touched) {
          packed.push_back(t.sums[off]);
          displacements.push_back(to_count(off));
          t.sums[off] = identity_;
        }
        owned_datatype scattered;  // freed on every way out, a throw included
        check(MPI_Type_create_indexed_block(to_count(displacements.size()), 1, displacements.data(),
                                            l.type, scattered.out()),
              "MPI_Type_create_indexed_block");
        check(MPI_Type_commit(scattered.out()), "MPI_Type_commit");
        const window::access a = win_->writing_to(rank, 0, t.sums.size() * sizeof(T));
        check(MPI_Accumulate(packed.data(), to_count(packed.size()), l.type, rank, 0, 1,
                             scattered.get(), to_mpi(op_), a.handle),
              "MPI_Accumulate");
        // The origin buffer must live until local completion.
        win_->flush_local(rank);
        t.touched.clear();
      }
      t.dense = false;
      ++batches_;
    }
  }
  /// How many per-target transfers flush() has sent so far. Local.
  [[nodiscard]] std::size_t batches() const noexcept { return batches_; }

 private:
  // Past one touched element in dense_ratio, listing them costs more than sending them all.
  static constexpr std::size_t dense_ratio = 8;
  struct per_target {
    std::vector<T> sums;
    std::vector<std::size_t> touched;
    bool dense = false;
  };
  window* win_;
  reduce_op op_;
  T identity_;
  std::vector<per_target> targets_;
  std::size_t batches_ = 0;
};

}  // namespace pgas::runtime
