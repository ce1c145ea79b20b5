#pragma once
// Collectives over buffers whose length differs from image to image: serialized values and
// error messages. The fixed-size collectives are in collective.hpp.

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pgas::runtime {

using byte_buffer = std::vector<std::byte>;

/// Collective over comm: the failure of the lowest-ranked process that reports one (its
/// message), on every process; nothing if none does. Lets every image throw the same exception
/// when only some of them met the cause.
[[nodiscard]] std::optional<std::string> first_failure(const std::optional<std::string>& mine,
                                                       MPI_Comm comm);

/// Collective over comm: root's `bytes` replace every other process's (any length).
void broadcast_buffer(byte_buffer& bytes, int root, MPI_Comm comm);

/// Collective over comm: every process's buffer, in rank order, on root; empty elsewhere.
[[nodiscard]] std::vector<byte_buffer> gather_buffers(const byte_buffer& mine,
                                                      int root,
                                                      MPI_Comm comm);

/// Collective over comm: combine(combine(b0, b1), b2)... over every process's buffer in rank
/// order (a binomial tree: O(log p) steps, and the left operand always holds the lower ranks,
/// so `combine` need only be associative), on root; on every process when root < 0. Makes
/// progress while it waits, as every collective here does.
[[nodiscard]] byte_buffer reduce_buffers(
    byte_buffer mine,
    const std::function<byte_buffer(const byte_buffer&, const byte_buffer&)>& combine,
    int root,
    MPI_Comm comm);

}  // namespace pgas::runtime
