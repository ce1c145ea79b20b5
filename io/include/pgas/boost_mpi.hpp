#pragma once
// Meeting Boost.MPI programs halfway: pgas teams to and from boost::mpi::communicator. A
// program that starts MPI with boost::mpi::environment creates its pgas::environment inside;
// pgas adopts that MPI and leaves finalising it to Boost:
//
//   pgas::environment::prepare_mpi();        // before MPI starts (Open MPI settings pgas needs)
//   boost::mpi::environment boost_env(argc, argv);
//   pgas::environment env;                   // adopts the running MPI
//   boost::mpi::communicator half = boost::mpi::communicator().split(rank % 2);
//   pgas::team t = pgas::to_team(half);
//   boost::mpi::communicator back = pgas::to_communicator(t);
//
// Link with pgas::boost_mpi (built where Boost.MPI matches the MPI in use: Debian builds it
// for Open MPI only).

#include <pgas/runtime/team.hpp>

#include <boost/mpi/communicator.hpp>

namespace pgas {

/// Collective over c: a pgas team of c's processes, in c's order, on a duplicate of c's
/// communicator (c may go away first). `number` becomes the team's number().
[[nodiscard]] inline team to_team(const boost::mpi::communicator& c, int number = -1) {
  return team::from_native(static_cast<MPI_Comm>(c), number);
}

/// Collective over t: a Boost.MPI communicator of t's images, in t's order, on a duplicate of
/// t's communicator that Boost frees (t may go away first).
[[nodiscard]] inline boost::mpi::communicator to_communicator(const team& t) {
  return boost::mpi::communicator(t.native(), boost::mpi::comm_duplicate);
}

}  // namespace pgas
