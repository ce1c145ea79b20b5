#pragma once
// The combining operations users name for element-wise updates (MPI's predefined ops).

#include <pgas/runtime/rma.hpp>

namespace pgas {
/// sum, prod, min, max, band, bor, bxor, land, lor, replace, no_op.
using runtime::reduce_op;
}  // namespace pgas
