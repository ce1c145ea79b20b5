#pragma once
// pgas::hdf5: global containers to and from parallel HDF5 files. Every image writes and reads
// its own elements as hyperslabs of one dataset, in one collective transfer; nothing is
// gathered on one image. The dataset keeps the global shape, so a file written at one image
// count and distribution reads back into any other.
//
//   pgas::hdf5::write(a, "run.h5", "/fields/temperature");
//   pgas::hdf5::read(b, "run.h5", "/fields/temperature");
//
// Link with pgas::hdf5.

#include <pgas/array.hpp>
#include <pgas/io/hdf5_dataset.hpp>
#include <pgas/matrix.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/vector.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace pgas::hdf5 {

namespace detail {

template <class D>
std::string describe(const D& dist) {
  if constexpr (requires { dist.name(); }) {
    return dist.name();
  } else {
    return "sized_blocks";
  }
}

/// Where this image's elements of a one-dimensional container lie in the dataset: one box for
/// the image-ordered layouts, one regular hyperslab (plus the last, shorter block) for the
/// round-robin ones.
template <distribution D>
selection elements_of(const D& dist, std::size_t me) {
  const std::size_t mine = dist.local_size(me);
  if (mine == 0)
    return {};
  if (dist.kind() == distribution_kind::block)
    return {hyperslab::box({dist.global_index(me, 0)}, {mine})};
  const std::size_t b = dist.kind() == distribution_kind::cyclic ? 1 : dist.parameter();
  const std::size_t p = dist.images();
  const std::size_t full_blocks = dist.size() / b;
  const std::size_t my_full = full_blocks / p + (me < full_blocks % p ? 1 : 0);
  selection s;
  if (my_full > 0)
    s.push_back(hyperslab{{me * b}, {p * b}, {my_full}, {b}});
  if (dist.size() % b != 0 && me == full_blocks % p) {
    s.push_back(hyperslab::box({full_blocks * b}, {dist.size() % b}));
  }
  return s;
}

/// The plan for an array or vector: its local span, in global order, against its elements.
template <class Container>
transfer_plan plan_of_range(const Container& c) {
  const auto& dist = c.distribution();
  const auto me = static_cast<std::size_t>(c.team().rank());
  const std::size_t mine = c.local().size();
  return transfer_plan{{c.size()},
                       elements_of(dist, me),
                       {mine},
                       mine == 0 ? selection{} : selection{hyperslab::box({0}, {mine})},
                       describe(dist)};
}

/// The plan for an ndarray: its tile, without ghost cells, against a box of the dataset.
template <class T, std::size_t N>
transfer_plan plan_of_ndarray(const pgas::ndarray<T, N>& a, const std::string& described) {
  const auto tile = a.local();
  transfer_plan plan{{}, {}, {}, {}, described};
  std::vector<std::uint64_t> origin;
  std::vector<std::uint64_t> extents;
  std::vector<std::uint64_t> ghosts;
  for (std::size_t d = 0; d < N; ++d) {
    plan.shape.push_back(a.extent(d));
    plan.memory_shape.push_back(tile.extent(d) + 2 * tile.halo(d));
    origin.push_back(a.local_origin()[d]);
    extents.push_back(tile.extent(d));
    ghosts.push_back(tile.halo(d));
  }
  if (tile.size() > 0) {
    plan.in_file.push_back(hyperslab::box(origin, extents));
    plan.in_memory.push_back(hyperslab::box(ghosts, extents));
  }
  return plan;
}

template <std::size_t N>
std::string describe_grid(const pgas::grid<N>& g) {
  std::string s = "tiles on a ";
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly: its bug 105651) of
  // "literal" + std::string in optimised builds.
  for (std::size_t d = 0; d < N; ++d) s.append(d ? "x" : "").append(std::to_string(g.extent(d)));
  return s.append(" grid (pgas::ndarray)");
}

}  // namespace detail

/// Collective over the array's images: writes `a` to dataset `dataset` of `file` (created, or
/// added to an existing HDF5 file; an existing dataset of the same type and shape is
/// overwritten). Throws io_error on every image, having changed nothing, for an unwritable
/// path, a file that is not HDF5, or a dataset of another type or shape there.
template <class T, distribution D>
void write(const array<T, D>& a, const std::filesystem::path& file, const std::string& dataset) {
  write_dataset(a.team().native(), file, dataset, element_type_of<T>(), detail::plan_of_range(a),
                a.local().data());
}

/// Collective: writes the committed elements of `v`, as write(array) does.
template <class T>
void write(const vector<T>& v, const std::filesystem::path& file, const std::string& dataset) {
  write_dataset(v.team().native(), file, dataset, element_type_of<T>(), detail::plan_of_range(v),
                v.local().data());
}

/// Collective: writes the elements of `a` (no ghost cells) as an N-dimensional dataset of its
/// extents.
template <class T, std::size_t N>
void write(const ndarray<T, N>& a, const std::filesystem::path& file, const std::string& dataset) {
  write_dataset(a.team().native(), file, dataset, element_type_of<T>(),
                detail::plan_of_ndarray(a, detail::describe_grid(a.grid())),
                a.local().with_halo().data());
}

/// Collective over the array's images: reads dataset `dataset` of `file` into `a`, whatever
/// image count and distribution wrote it. Throws io_error on every image, having stored
/// nothing, when the file or dataset is missing, the file is not HDF5, or the dataset's
/// element type or shape is not the array's.
template <class T, distribution D>
void read(array<T, D>& a, const std::filesystem::path& file, const std::string& dataset) {
  read_dataset(a.team().native(), file, dataset, element_type_of<T>(), detail::plan_of_range(a),
               a.local().data());
}

/// Collective: resizes `v` to the dataset's length (any uncommitted elements are committed
/// first, then replaced) and reads it. The dataset must be one-dimensional.
template <class T>
void read(vector<T>& v, const std::filesystem::path& file, const std::string& dataset) {
  const auto shape = dataset_shape(v.team().native(), file, dataset, element_type_of<T>());
  if (shape.size() != 1) {
    // Every image read the same shape: all throw here together.
    throw io_error("pgas::hdf5::read: dataset '" + dataset + "' in '" + file.string() + "' has " +
                   std::to_string(shape.size()) + " dimensions; a pgas::vector reads one");
  }
  v.resize(static_cast<std::size_t>(shape[0]));
  read_dataset(v.team().native(), file, dataset, element_type_of<T>(), detail::plan_of_range(v),
               v.local().data());
}

/// Collective: reads a dataset of a's extents into the elements of `a`, whatever grid or image
/// count wrote it; ghost cells keep their values (exchange_halo() refreshes them).
template <class T, std::size_t N>
void read(ndarray<T, N>& a, const std::filesystem::path& file, const std::string& dataset) {
  read_dataset(a.team().native(), file, dataset, element_type_of<T>(),
               detail::plan_of_ndarray(a, detail::describe_grid(a.grid())),
               a.local().with_halo().data());
}

}  // namespace pgas::hdf5
