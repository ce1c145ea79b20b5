#pragma once
// pgas::tile_view: this image's part of a 2-D array, ghost cells included. It is the 2-D
// ndarray_view, under the name matrix programs use: `v(i, j)`, `v.row(i)`, `v.extent(d)`,
// `v.stride(d)`, `v.halo()`, `v.with_halo()`.

#include <pgas/ndarray_view.hpp>

namespace pgas {

template <class T>
using tile_view = ndarray_view<T, 2>;

}  // namespace pgas
