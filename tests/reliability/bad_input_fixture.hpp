#pragma once
// The bad-input catalogue's fixture: a witness array written across images before each misuse
// and checked after it, so every test also proves that the program goes on in step and that
// nothing already written was lost.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>

#include "../support/ring_neighbours.hpp"

namespace bad_input {

using pgas_test::images;
using pgas_test::me;

// Data written before the misuse, on other images: it must all be there afterwards.
class BadInput : public ::testing::Test {
 protected:
  static long mark(std::size_t i) { return 1000 + 7 * static_cast<long>(i); }

  void SetUp() override {
    // Each image writes the elements of the next image, so every value crossed images.
    for (std::size_t i = 0; i < witness_.size(); ++i) {
      if (witness_.owner(i) == (me() + 1) % images())
        witness_[i] = mark(i);
    }
    pgas::sync_all();
  }

  void TearDown() override {
    // A collective after the misuse: every image must still be in step to get here together.
    pgas::sync_all();
    for (std::size_t i = 0; i < witness_.size(); ++i) {
      EXPECT_EQ(static_cast<long>(witness_[i]), mark(i)) << "witness element " << i << " lost";
    }
    EXPECT_EQ(pgas::co_sum(1L), static_cast<long>(images()));
    pgas::sync_all();
  }

  pgas::array<long, pgas::cyclic> witness_{5 * images() + 1};
};

}  // namespace bad_input
