#pragma once
// pgas::detail::require_permutation: whether a distributed array holds each of 0..n-1 exactly
// once, agreed by every image. Each value goes to the image that owns it in a block layout of
// 0..n-1 (one batch per owner through the engine), which marks it seen; a value past n-1 or
// seen twice is a failure every image reports.

#include <pgas/distribution.hpp>
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/sparse/owner_batches.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pgas::detail {

struct permutation_marks {
  block values;  // 0..n-1 over the team
  std::vector<unsigned char> seen;
  std::optional<std::size_t> repeated;
};

inline void mark_seen(permutation_marks& marks, std::size_t, std::span<const std::size_t> got) {
  for (const std::size_t v : got) {
    unsigned char& s = marks.seen[marks.values.local_offset(v)];
    if (s != 0 && !marks.repeated)
      marks.repeated = v;
    s = 1;
  }
}

/// usage_error on every image of t, naming `what` (as "pgas::permute: rperm"), unless `perm`
/// (a pgas::array of std::size_t over t) holds each of 0..n-1 exactly once. Collective over t.
template <class Perm>
void require_permutation(const pgas::team& t, const Perm& perm, std::size_t n, const char* what) {
  std::optional<std::string> bad;
  if (perm.size() != n) {
    bad = std::string(what) + " holds " + std::to_string(perm.size()) + " indices, not " +
          std::to_string(n);
  }
  if (const auto failed = runtime::first_failure(bad, t.native()))
    throw usage_error(*failed);
  permutation_marks marks{block{}.bind(n, t.size()), {}, {}};
  marks.seen.assign(marks.values.local_size(t.this_image()), 0);
  {
    batches_to_owners<std::size_t, permutation_marks, &mark_seen> to_owners(t, marks);
    const auto mine = perm.local();
    for (std::size_t k = 0; k < mine.size(); ++k) {
      if (mine[k] >= n) {
        if (!bad)
          bad = std::string(what) + " is not a permutation of 0.." + std::to_string(n) +
                "-1: it holds " + std::to_string(mine[k]) + " at " +
                std::to_string(perm.global_index(k));
        continue;
      }
      to_owners.push(marks.values.owner(mine[k]), mine[k]);
    }
    to_owners.deliver();
  }
  if (!bad && marks.repeated) {
    bad = std::string(what) + " is not a permutation of 0.." + std::to_string(n) + "-1: it holds " +
          std::to_string(*marks.repeated) + " more than once";
  }
  if (const auto failed = runtime::first_failure(bad, t.native()))
    throw usage_error(*failed);
}

}  // namespace pgas::detail
