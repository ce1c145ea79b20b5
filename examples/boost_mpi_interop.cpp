// A Boost.MPI program that uses pgas inside: Boost starts MPI, pgas adopts it, and the two
// share communicators. Boost.MPI broadcasts a std::string and splits the job in halves; each
// half becomes a pgas team; a pgas array is summed with Boost.MPI's all_reduce and with pgas's
// co_sum, and the two must agree.
#include <pgas/boost_mpi.hpp>
#include <pgas/pgas.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>

#include <cstdio>
#include <functional>
#include <numeric>
#include <string>

int main(int argc, char** argv) {
  pgas::environment::prepare_mpi();  // before MPI starts: settings pgas needs on Open MPI
  const boost::mpi::environment boost_env(argc, argv);
  const boost::mpi::communicator world;
  bool ok = true;
  {
    const pgas::environment env;  // adopts the MPI Boost started; Boost finalises it

    // Boost.MPI and pgas number the images alike.
    ok = ok && static_cast<std::size_t>(world.rank()) == pgas::this_image() &&
         static_cast<std::size_t>(world.size()) == pgas::num_images();

    std::string greeting = world.rank() == 0 ? "hello from Boost.MPI" : "";
    boost::mpi::broadcast(world, greeting, 0);

    // A pgas array, filled by its owners, summed both ways.
    pgas::array<long> a(1000);
    for (std::size_t k = 0; k < a.local().size(); ++k)
      a.local()[k] = static_cast<long>(a.global_index(k));
    pgas::sync_all();
    const long mine = std::accumulate(a.local().begin(), a.local().end(), 0L);
    const long by_boost = boost::mpi::all_reduce(world, mine, std::plus<long>());
    const long by_pgas = pgas::co_sum(mine);
    ok = ok && by_boost == by_pgas && by_pgas == 999L * 1000 / 2;

    // Halves of the job: a Boost communicator becomes a pgas team, and back.
    const int colour = world.rank() % 2;
    const boost::mpi::communicator half = world.split(colour);
    const pgas::team t = pgas::to_team(half, colour);
    ok = ok && t.num_images() == static_cast<std::size_t>(half.size()) &&
         t.this_image() == static_cast<std::size_t>(half.rank()) && t.number() == colour;
    t.barrier();
    const boost::mpi::communicator again = pgas::to_communicator(t);
    const int half_sum = boost::mpi::all_reduce(again, world.rank(), std::plus<int>());
    int expected = 0;
    for (int r = colour; r < world.size(); r += 2) expected += r;
    ok = ok && half_sum == expected;

    ok = pgas::co_min(ok ? 1 : 0) == 1;
    if (world.rank() == 0) {
      std::printf(
          "%s; %d images; array sum %ld by Boost.MPI and by pgas; team of the even half: %zu "
          "images, rank sum %d\n",
          greeting.c_str(), world.size(), by_pgas, t.size(), half_sum);
      std::printf("%s\n", ok ? "Boost.MPI and pgas agree" : "ERROR: Boost.MPI and pgas disagree");
    }
  }
  return ok ? 0 : 1;
}
