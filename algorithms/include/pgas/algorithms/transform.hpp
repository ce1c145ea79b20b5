#pragma once
// pgas::transform and pgas::copy: owner computes when the ranges are aligned; otherwise the
// owner of each input element computes and sends its results: runs of consecutive elements as
// runs (one put per owner, a derived datatype on each side), or in one all-to-all when the runs
// are short.

#include <pgas/algorithms/detail.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/sync.hpp>
#include <pgas/transfers.hpp>

#include <algorithm>
#include <concepts>
#include <span>
#include <stdexcept>
#include <vector>

namespace pgas {

namespace detail {

/// A range whose elements can be addressed one by one for writing (containers and their
/// take/drop views).
template <class R>
concept addressable_range = distributed_range<R> && requires(R& r, std::size_t i) {
  { r.element(i) } -> std::same_as<global_ptr<typename std::remove_cvref_t<R>::value_type>>;
};

/// This image's results in local order, and the runs of consecutive global indices they form:
/// run k covers values [position, position + length) and indices [first, first + length).
/// `values` views `computed`, or the input's own local elements when they need no computing.
template <class T>
struct local_results {
  struct run {
    std::size_t position;
    std::size_t first;
    std::size_t length;
  };
  std::vector<T> computed;
  std::span<const T> values;
  std::vector<run> runs;
};

// The runs of in's local elements, as local_results counts them.
template <class T, class In>
void find_runs(In& in, std::size_t count, local_results<T>& r) {
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t g = in.global_index(k);
    if (!r.runs.empty() && r.runs.back().first + r.runs.back().length == g) {
      ++r.runs.back().length;
    } else {
      r.runs.push_back({k, g, 1});
    }
  }
}

/// f applied to in's local elements. Local.
template <class T, class In, class F>
local_results<T> results_of(In& in, F& f) {
  local_results<T> r;
  auto&& mine = in.local();
  if constexpr (std::ranges::sized_range<decltype(mine)>)
    r.computed.reserve(std::ranges::size(mine));
  for (auto&& x : mine) r.computed.push_back(static_cast<T>(f(x)));
  r.values = r.computed;
  find_runs(in, r.computed.size(), r);
  return r;
}

/// Local parts that lie contiguously in memory as elements of T.
template <class Local, class T>
concept contiguous_of = std::ranges::contiguous_range<Local> &&
    std::is_same_v<std::remove_cv_t<std::ranges::range_value_t<Local>>, T>;

/// True when in and out are parts of different containers (their windows differ), so that no
/// image's writes into out can change an input another image has yet to send. Local.
template <class In, class Out>
bool apart(In& in, Out& out) {
  if constexpr (requires { in.element(std::size_t{0}).window(internal); }) {
    if (in.size() == 0 || out.size() == 0)
      return true;
    return !same_container(in.element(0), out.element(0));
  } else {
    return false;
  }
}

/// in's local elements as they are, without a copy when they lie contiguously as T and out is
/// another container; otherwise copied first. Local.
template <class T, class In, class Out>
local_results<T> elements_of(In& in, Out& out) {
  auto&& mine = in.local();
  if constexpr (contiguous_of<std::remove_cvref_t<decltype(mine)>, T>) {
    if (!apart(in, out)) {
      auto same = [](const auto& x) { return x; };
      return results_of<T>(in, same);
    }
    local_results<T> r;
    // data() of an empty range-v3 subrange dereferences its begin: ask only when non-empty.
    const auto count = static_cast<std::size_t>(std::ranges::size(mine));
    if (count > 0)
      r.values = std::span<const T>(std::ranges::data(mine), count);
    find_runs(in, r.values.size(), r);
    return r;
  } else {
    auto same = [](const auto& x) { return x; };
    return results_of<T>(in, same);
  }
}

/// Applies f to every local element of in (with its global index) and writes the results to
/// out, aligned or not. Collective; ends with a sync point. `identity` says f returns its
/// argument: unaligned, the input's local elements are then sent as they lie.
template <bool identity = false, class In, class Out, class F>
void map_into(In& in, Out& out, F f) {
  if (aligned(in, out)) {
    auto&& src = in.local();
    auto&& dst = out.local();
    auto d = std::ranges::begin(dst);
    for (auto&& x : src) *d++ = f(x);
  } else {
    if constexpr (addressable_range<Out>) {
      using T = typename std::remove_cvref_t<Out>::value_type;
      const local_results<T> r = [&] {
        if constexpr (identity) {
          return elements_of<T>(in, out);
        } else {
          return results_of<T>(in, f);
        }
      }();
      bool done = false;
      if constexpr (transfer_container<std::remove_reference_t<Out>>)
        done = put_runs_into(out, r.runs, r.values);
      if (!done) {
        std::vector<std::size_t> indices;
        indices.reserve(r.values.size());
        for (const auto& run : r.runs) {
          for (std::size_t j = 0; j < run.length; ++j) indices.push_back(run.first + j);
        }
        store_at(out, std::span<const std::size_t>(indices), r.values);
      }
    } else {
      throw usage_error(
          "the output range is laid out unlike the input and cannot be addressed "
          "element by element; write into a container instead");
    }
  }
  sync_all();
}

}  // namespace detail

/// out[i] = f(in[i]) for every i. Collective; ends with a sync point. Aligned ranges work
/// entirely locally; otherwise each input's owner sends its results with bulk puts. Throws
/// usage_error on every image if the sizes differ.
template <distributed_range In, distributed_range Out, class F>
void transform(In&& in, Out&& out, F f) {
  const auto acting = detail::act_on(in);
  detail::require_same_size("pgas::transform", in.size(), out.size());
  detail::map_into(in, out, f);
}

/// out[i] = f(in1[i], in2[i]). Collective; in1 and in2 must be aligned (usage_error otherwise).
template <distributed_range In1, distributed_range In2, distributed_range Out, class F>
void transform(In1&& in1, In2&& in2, Out&& out, F f) {
  const auto acting = detail::act_on(in1);
  detail::require_same_size("pgas::transform", in1.size(), in2.size());
  detail::require_same_size("pgas::transform", in1.size(), out.size());
  if (!detail::aligned(in1, in2)) {
    throw usage_error(
        "pgas::transform: the two inputs are laid out differently; copy one into "
        "the other's distribution first");
  }
  auto&& a = in1.local();
  auto&& b = in2.local();
  if (detail::aligned(in1, out)) {
    auto d = std::ranges::begin(out.local());
    auto y = std::ranges::begin(b);
    for (auto&& x : a) *d++ = f(x, *y++);
    sync_all();
  } else {
    // Pair the inputs first, then send as the unary form does.
    using T = typename std::remove_cvref_t<Out>::value_type;
    std::vector<T> results;
    auto y = std::ranges::begin(b);
    for (auto&& x : a) results.push_back(static_cast<T>(f(x, *y++)));
    struct results_range {
      std::vector<T>* v;
      std::remove_reference_t<In1>* base;
      std::span<T> local() { return *v; }
      std::size_t size() const { return base->size(); }
      std::size_t global_index(std::size_t k) const { return base->global_index(k); }
      pgas::layout layout() const { return base->layout(); }
    } paired{&results, &in1};
    detail::map_into(paired, out, [](const T& v) { return v; });
  }
}

/// out[i] = in[i] for every i, between any layouts: aligned ranges copy locally, others with
/// one bulk put per run of consecutive elements, or one all-to-all when runs are short.
/// Collective; ends with a sync point.
template <distributed_range In, distributed_range Out>
void copy(In&& in, Out&& out) {
  const auto acting = detail::act_on(in);
  detail::require_same_size("pgas::copy", in.size(), out.size());
  detail::map_into<true>(in, out, [](const auto& v) { return v; });
}

/// Gathers the whole distributed range, in global order, into `out` on image `root` (other
/// images' `out` is left alone). Collective.
template <distributed_range In, class T>
void copy(In&& in, std::vector<T>& out, std::size_t root) {
  const auto acting = detail::act_on(in);
  detail::require_root("pgas::copy", root);
  struct item {
    std::size_t index;
    T value;
  };
  std::vector<item> mine;
  std::size_t k = 0;
  for (auto&& x : in.local()) {
    mine.push_back({in.global_index(k), static_cast<T>(x)});
    ++k;
  }
  // Everyone sends its items to the root only: an exchange with zero counts elsewhere.
  std::vector<std::size_t> counts(num_images(), 0);
  counts[root] = mine.size();
  const auto got = runtime::exchange(std::span<const item>(mine), counts, runtime::current_comm());
  if (this_image() == root) {
    out.assign(in.size(), T{});
    for (const item& it : got) out[it.index] = it.value;
  }
}

/// Scatters `in` from image `root` into the distributed range (the other images' `in` is
/// ignored). Collective; ends with a sync point. Throws usage_error on every image if the
/// root's `in` does not have the range's size.
template <class T, distributed_range Out>
requires detail::addressable_range<Out>
void copy(std::span<const T> in, Out&& out, std::size_t root) {
  const auto acting = detail::act_on(out);
  detail::require_root("pgas::copy", root);
  const bool ok = this_image() != root || in.size() == out.size();
  if (!runtime::everyone(ok, runtime::current_comm())) {
    throw usage_error("pgas::copy: the root's source does not have the destination's size");
  }
  using U = typename std::remove_cvref_t<Out>::value_type;
  std::vector<std::size_t> indices;
  std::vector<U> values;
  if (this_image() == root) {
    indices.resize(in.size());
    for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = i;
    values.assign(in.begin(), in.end());
  }
  detail::store_at(out, std::span<const std::size_t>(indices), std::span<const U>(values));
  sync_all();
}

}  // namespace pgas
