// The environment, images and teams.
#include <pgas/coarray.hpp>
#include <pgas/runtime/block_copy.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/sync.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// Image `me` writes its number + 1 into slot `me` of every image in `to`. Odd images first wait
// a little, so a sync that let an image leave before the others arrived would be caught reading
// a slot not yet written (a correct sync passes whatever the timing).
void write_late_into(pgas::coarray<long[4]>& slots, const std::vector<int>& to) {
  const auto me = pgas::this_image();
  if (me % 2 == 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (int img : to) slots(static_cast<std::size_t>(img))[me] = static_cast<long>(me) + 1;
}

TEST(Environment, images_match_mpi) {
  int rank = -1;
  int size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(pgas::this_image(), static_cast<std::size_t>(rank));
  EXPECT_EQ(pgas::num_images(), static_cast<std::size_t>(size));
  EXPECT_TRUE(pgas::environment::active());
}

TEST(Environment, errors_come_back_as_codes_on_the_library_communicators) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(pgas::runtime::world_comm(), &handler);
  EXPECT_EQ(handler, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&handler);
}

// The size of the first data or unified cache of `level` that Linux lists for cpu 0, or 0.
std::size_t linux_cache_bytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), size_file(dir + "/size");
    int l = 0;
    std::string type, size;
    if (!(level_file >> l) || !(type_file >> type) || !(size_file >> size))
      continue;
    if (l != level || type == "Instruction")
      continue;
    const std::size_t n = std::stoull(size);
    return size.back() == 'K' ? n << 10 : size.back() == 'M' ? n << 20 : n;
  }
  return 0;
}

TEST(Machine, cache_sizes_are_the_machines_own) {
  // Tuning thresholds (the histogram's block-by-block pass) follow them; this run sets no
  // PGAS_*_CACHE_BYTES, so they come from hwloc, which must agree with what Linux lists.
  const pgas::runtime::cache_sizes& c = pgas::runtime::machine_caches();
  EXPECT_GE(c.per_core, std::size_t{16} << 10);
  EXPECT_GE(c.shared, c.per_core);
  if (const std::size_t l2 = linux_cache_bytes(2); l2 != 0) {
    EXPECT_EQ(c.per_core, l2);
  }
  if (const std::size_t l3 = linux_cache_bytes(3); l3 != 0 && linux_cache_bytes(4) == 0) {
    EXPECT_EQ(c.shared, l3);
  }
}

TEST(Machine, block_copy_copies_every_byte_once_in_order) {
  // Sizes around the one-piece limit and a block of a quarter of the core's cache, a tail that
  // fills no block, and ranges overlapping either way (which memmove's order must keep).
  const std::size_t block =
      std::max(pgas::runtime::one_piece_copy_bytes, pgas::runtime::core_cache_block_bytes());
  std::vector<unsigned char> source(3 * block + 4099);
  for (std::size_t k = 0; k < source.size(); ++k)
    source[k] = static_cast<unsigned char>(k * 131 + k / 251);
  for (const std::size_t bytes :
       {std::size_t{0}, std::size_t{1}, pgas::runtime::one_piece_copy_bytes,
        pgas::runtime::one_piece_copy_bytes + 1, block, block + 1, 3 * block + 4099}) {
    std::vector<unsigned char> into(bytes + 2, 0xEE);
    pgas::runtime::copy_bytes(into.data() + 1, source.data(), bytes);
    EXPECT_TRUE(std::equal(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(bytes),
                           into.begin() + 1))
        << bytes;
    EXPECT_EQ(into.front(), 0xEE);
    EXPECT_EQ(into.back(), 0xEE) << "written past the end at " << bytes;
  }
  for (const std::ptrdiff_t shift : {std::ptrdiff_t{-1000}, std::ptrdiff_t{1000}}) {
    std::vector<unsigned char> both = source;
    const std::size_t bytes = source.size() - 1000;
    const std::size_t from = shift > 0 ? 0 : 1000;
    pgas::runtime::copy_bytes(both.data() + from + shift, both.data() + from, bytes);
    EXPECT_TRUE(std::equal(source.begin() + static_cast<std::ptrdiff_t>(from),
                           source.begin() + static_cast<std::ptrdiff_t>(from + bytes),
                           both.begin() + static_cast<std::ptrdiff_t>(from) + shift))
        << "overlap shifted by " << shift;
  }
}

TEST(Team, world_team_is_every_image) {
  const pgas::team world = pgas::team::world();
  EXPECT_EQ(world.rank(), pgas::this_image());
  EXPECT_EQ(world.size(), pgas::num_images());
  world.barrier();
}

TEST(Team, split_by_parity_makes_two_teams_in_rank_order) {
  const pgas::team world = pgas::team::world();
  const auto me = pgas::this_image();
  const pgas::team half = world.split(static_cast<int>(me % 2));
  const std::size_t n = pgas::num_images();
  EXPECT_EQ(half.size(), me % 2 == 0 ? (n + 1) / 2 : n / 2);
  EXPECT_EQ(half.rank(), me / 2);
  half.barrier();
  EXPECT_THROW((void)world.split(-1), pgas::usage_error);
}

TEST(Team, numbers_parents_and_the_shared_memory_team) {
  const pgas::team world = pgas::team::world();
  EXPECT_EQ(world.number(), -1);
  EXPECT_EQ(world.parent().size(), world.size());
  const pgas::team half = world.split(static_cast<int>(pgas::this_image() % 2) + 5);
  EXPECT_EQ(half.number(), static_cast<int>(pgas::this_image() % 2) + 5);
  EXPECT_EQ(half.parent().number(), -1);
  EXPECT_EQ(half.parent().size(), pgas::num_images());
  const pgas::team quarter = half.split(0);
  EXPECT_EQ(quarter.parent().number(), half.number());
  // The images of this node, in order, numbered by the first of them: every image on one
  // node, one each between two hosts.
  const pgas::team node = pgas::team::shared_memory();
  std::size_t here = 0;
  std::size_t before_me = 0;
  std::size_t first_here = pgas::num_images();
  for (std::size_t r = 0; r < pgas::num_images(); ++r) {
    if (pgas::runtime::on_this_node(r)) {
      ++here;
      before_me += r < pgas::this_image() ? 1U : 0U;
      first_here = std::min(first_here, r);
    }
  }
  EXPECT_EQ(node.size(), here);
  EXPECT_EQ(node.rank(), before_me);
  EXPECT_EQ(node.number(), static_cast<int>(first_here));
  EXPECT_EQ(node.parent().number(), -1);
  node.barrier();
}

TEST(SyncImages, all_images_meets_every_other_image) {
  const int n = static_cast<int>(pgas::num_images());
  pgas::coarray<long[4]> slots;
  std::vector<int> everyone;
  for (int img = 0; img < n; ++img) everyone.push_back(img);
  write_late_into(slots, everyone);
  pgas::sync_images(pgas::all_images);
  for (int img = 0; img < n; ++img)
    EXPECT_EQ(slots[static_cast<std::size_t>(img)], img + 1) << "from image " << img;
  pgas::sync_images(pgas::all_images);  // nobody rewrites a slot another still reads
}

TEST(SyncImages, pairs_of_images_meet_and_bad_lists_are_refused) {
  const int me = static_cast<int>(pgas::this_image());
  const int n = static_cast<int>(pgas::num_images());
  EXPECT_THROW(pgas::runtime::sync_images({n}), pgas::usage_error);
  EXPECT_THROW(pgas::runtime::sync_images({-1}), pgas::usage_error);
  if (n > 1) {
    EXPECT_THROW(pgas::runtime::sync_images({(me + 1) % n, (me + 1) % n}), pgas::usage_error);
  }
  // Ring: each image names both neighbours, who name it back.
  std::vector<int> ring{(me + 1) % n};
  if ((me + n - 1) % n != ring[0])
    ring.push_back((me + n - 1) % n);
  pgas::coarray<long[4]> slots;
  if (n > 1) {
    write_late_into(slots, ring);
    pgas::runtime::sync_images(ring);
    for (int img : ring)
      EXPECT_EQ(slots[static_cast<std::size_t>(img)], img + 1) << "from neighbour " << img;
  }
  pgas::sync_all();
  pgas::runtime::sync_images({});
  pgas::runtime::sync_images({me});  // naming oneself is allowed and returns at once
}

}  // namespace
