#pragma once
// pgas::boundary: how ghost cells at the outer edges of a distributed grid are filled.

namespace pgas {

/// How ghost cells at an array's outer edges are filled.
enum class boundary {
  fixed,    ///< ghost cells outside the array keep what the program stores in them
  periodic  ///< the array wraps around in every dimension
};

}  // namespace pgas
