#pragma once
// Counting the races the checker (PGAS_CHECK=1) reports for one piece of a test program.
#include <pgas/pgas.hpp>

#include <cstddef>

namespace pgas_test {

// Runs `body` between two sync_alls and returns how many races every image reported at the
// second (where the checker looks), summed over the images. Collective.
template <class Body>
std::size_t races_in(Body body) {
  pgas::sync_all();
  const std::size_t before = pgas::race_reports().size();
  body();
  pgas::sync_all();
  return pgas::co_sum(pgas::race_reports().size() - before);
}

}  // namespace pgas_test
