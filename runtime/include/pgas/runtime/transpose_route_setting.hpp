#pragma once
// PGAS_TRANSPOSE_ROUTE: fixes how a transpose moves the blocks a reader does not map, where a
// run must repeat exactly or the machine is too noisy for a few timed calls to choose (the
// algorithms layer times its first calls otherwise). The environment checks it at start.

#include <mpi.h>

namespace pgas::runtime {

/// What PGAS_TRANSPOSE_ROUTE asks for.
enum class transpose_route_setting : unsigned char {
  measure,  // unset or "measure": the first calls of a shape time both routes and keep the faster
  gets,     // "gets": each reader gets its blocks
  sends,    // "sends": the owners send them in one exchange
};

/// This process's setting, read once. Throws usage_error if it is none of "measure", "gets" and
/// "sends". Local.
[[nodiscard]] transpose_route_setting transpose_route_from_environment();

/// Throws usage_error if PGAS_TRANSPOSE_ROUTE is set but none of the routes: what the
/// environment checks at start, on every image. Local.
void check_transpose_route_setting();

/// Collective over world, after every image passed check_transpose_route_setting: throws
/// usage_error on every image unless all have the same setting ("measure" and unset alike),
/// since the images take a transpose's route together and an exchange on some with gets on
/// the others would wait for ever.
void refuse_unless_transpose_route_agreed(MPI_Comm world);

}  // namespace pgas::runtime
