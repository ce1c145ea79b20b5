#pragma once
// A reduction of one small record over a communicator by point-to-point messages (recursive
// doubling), polled alongside the engine's progress. A scalar reduction must keep serving
// other images while it waits, so it cannot be a blocking MPI_Allreduce; Open MPI's
// MPI_Iallreduce costs twice a blocking one for a single value (bench/README), while a
// recursive doubling by hand costs what the blocking one does.

#include <mpi.h>

#include <cstddef>
#include <span>

namespace pgas::runtime {

/// Combines two partial records: `upper` becomes `lower` op `upper`, where `lower` stands for
/// processes of lower rank than `upper`'s. `context` is the one reduce_record() was given.
using record_combiner = void (*)(const std::byte* lower, std::byte* upper, void* context);

/// The largest record reduce_record() takes: a few hundred values still cost what one does
/// (a record travels whole at each step, as MPI's own allreduce sends short vectors).
inline constexpr std::size_t max_reduced_record_bytes = 4096;

/// Collective over comm: every process's `record` combined with `combine` over all processes,
/// in place, the same bytes on every process (each step combines the same two operands on
/// both partners, the lower ranks' first, so `combine` need only be associative). The record
/// is at most max_reduced_record_bytes; it has the same size on every process, unless its
/// header says how long it is and `combine` reads no further than both headers agree (a
/// process that passed other arguments sends a record of another size; `combine` is given
/// room for the largest). Makes progress while it waits. The messages travel on a duplicate of
/// comm made at its first reduction and freed with comm (an attribute, MPI-4.1 §7.7), so they
/// never meet a message of the user's.
void reduce_record(std::span<std::byte> record,
                   record_combiner combine,
                   void* context,
                   MPI_Comm comm);

/// Frees the attribute key of the duplicates; the environment calls it before MPI is
/// finalised (duplicates of communicators still alive are freed with them). Local.
void free_record_reduction() noexcept;

}  // namespace pgas::runtime
