// Images on one node map each other's parts of arrays and matrices: a peer's element is a load
// or store, with the same rules as the RMA path (own earlier accumulates seen, no blocking read
// inside a phase). Also registered with PGAS_SHARED_MEMORY=0, where every peer is RMA only, and
// with PGAS_ONE_IMAGE_PER_NODE=1, where every peer acts as if it ran on another node.
#include <pgas/pgas.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>

namespace {

// How many images MPI puts on this node, and whether a variable is set to `value`.
int images_on_this_node() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  return node_size;
}
bool set_to(const char* variable, const char* value) {
  const char* setting = std::getenv(variable);
  return setting != nullptr && std::string(setting) == value;
}

// What world_shares_memory() should say, worked out independently of the library.
bool expected_sharing() {
  const bool turned_off =
      set_to("PGAS_SHARED_MEMORY", "0") || set_to("PGAS_ONE_IMAGE_PER_NODE", "1");
  return images_on_this_node() == static_cast<int>(pgas::num_images()) && !turned_off;
}

TEST(SameNode, on_this_node_names_the_images_of_this_node) {
  const bool one_per_node = set_to("PGAS_ONE_IMAGE_PER_NODE", "1");
  const std::size_t me = pgas::runtime::world_rank();
  std::size_t counted = 0;
  for (std::size_t r = 0; r < pgas::runtime::world_size() + 2; ++r) {
    const bool here = pgas::runtime::on_this_node(r);
    counted += here ? 1U : 0U;
    if (r == me) {
      EXPECT_TRUE(here);
    }
    if (r >= pgas::runtime::world_size()) {
      EXPECT_FALSE(here) << "rank " << r << " does not exist";
    }
  }
  EXPECT_EQ(counted, one_per_node ? 1U : static_cast<std::size_t>(images_on_this_node()));
}

TEST(SameNode, runs_with_peers) {
  // Every test below is about another image's memory; CTest registers this binary at 2 to 4
  // images. Alone it would check nothing, so it says so instead of passing.
  ASSERT_GE(pgas::num_images(), 2u) << "run this test at two or more images";
}

TEST(SameNode, world_shares_memory_when_all_images_are_on_one_node_unless_turned_off) {
  EXPECT_EQ(pgas::runtime::world_shares_memory(), expected_sharing());
}

TEST(SameNode, array_elements_of_peers_are_in_this_process_exactly_when_memory_is_shared) {
  pgas::array<long, pgas::cyclic> a(4 * pgas::num_images());
  const bool shared = pgas::runtime::world_shares_memory();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto p = a[i].address();
    const bool mine = a.owner(i) == pgas::this_image();
    EXPECT_EQ(p.image(), a.owner(i));
    EXPECT_EQ(p.is_local(), mine || shared) << i;
    EXPECT_EQ(p.in_peer_memory(), !mine && shared) << i;
  }
  // Every image writes its right neighbour's elements; the owners read them after a sync point.
  const std::size_t right = (pgas::this_image() + 1) % pgas::num_images();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.owner(i) == right)
      a[i] = static_cast<long>(10 * i + pgas::this_image());
  }
  pgas::sync_all();
  const std::size_t left = (pgas::this_image() + pgas::num_images() - 1) % pgas::num_images();
  for (std::size_t k = 0; k < a.local().size(); ++k) {
    EXPECT_EQ(a.local()[k], static_cast<long>(10 * a.global_index(k) + left));
  }
  pgas::sync_all();
}

TEST(SameNode, matrix_elements_of_peers_follow_the_same_rule) {
  pgas::matrix<int> m(3 * pgas::num_images(), 4);
  const bool shared = pgas::runtime::world_shares_memory();
  for (std::size_t i = 0; i < m.rows(); ++i) {
    const bool mine = m.owner(i) == pgas::this_image();
    EXPECT_EQ(m(i, 1).address().is_local(), mine || shared) << i;
  }
  const std::size_t last = m.rows() - 1;
  if (pgas::this_image() == 0)
    m(last, 3) = 77;
  pgas::sync_all();
  EXPECT_EQ(static_cast<int>(m(last, 3)), 77);
  pgas::sync_all();
}

TEST(SameNode, a_read_after_this_images_own_accumulate_sees_it_without_a_sync_point) {
  pgas::array<long> a(pgas::num_images(), pgas::block{}, 100L);
  const std::size_t right = (pgas::this_image() + 1) % pgas::num_images();
  a[right] += 5;
  EXPECT_EQ(static_cast<long>(a[right]), 105);
  a[right] += 2;
  EXPECT_EQ(a[right].async_get().get(), 107);
  pgas::sync_all();
}

TEST(SameNode, a_blocking_read_of_a_peer_inside_a_phase_is_refused_on_any_layout) {
  pgas::array<int> a(pgas::num_images(), pgas::block{}, 3);
  const std::size_t right = (pgas::this_image() + 1) % pgas::num_images();
  {
    pgas::fence_phase phase(a);
    EXPECT_THROW((void)static_cast<int>(a[right]), pgas::usage_error);
    EXPECT_THROW((void)a[right].async_get(), pgas::usage_error);
    EXPECT_EQ(static_cast<int>(a[pgas::this_image()]), 3);  // its own element: a load
  }
  pgas::sync_all();
}

TEST(SameNode, a_coarray_image_read_follows_the_same_rules) {
  pgas::coarray<int[3]> x;
  x[0] = static_cast<int>(pgas::this_image());
  pgas::sync_all();
  const std::size_t right = (pgas::this_image() + 1) % pgas::num_images();
  EXPECT_EQ(x(right).get()[0], static_cast<int>(right));
  {
    pgas::fence_phase phase(x);
    EXPECT_THROW((void)x(right).get(), pgas::usage_error);
  }
  pgas::sync_all();
}

}  // namespace
