#pragma once
// The container-free core of pgas::hdf5: one dataset of a parallel HDF5 file, written or read
// collectively, each image moving the elements it selects. Knows shapes and selections only;
// pgas/hdf5.hpp turns containers into them. HDF5's own headers stay inside the library.

#include <mpi.h>

#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

namespace pgas::hdf5 {

/// What an element is, in the terms HDF5's native types are told apart by.
struct element_type {
  enum class family { signed_integer, unsigned_integer, floating_point };
  family kind;
  std::size_t bytes;
  /// The name written to the file's pgas.element_type attribute, e.g. "float64".
  const char* name;
};

/// The element types with a native HDF5 type: the integers, float, double and long double.
template <class T>
concept native_element = (std::integral<T> && !std::same_as<T, bool>) || std::floating_point<T>;

/// The element_type of T; other types do not compile.
template <class T>
constexpr element_type element_type_of() {
  static_assert(native_element<T>,
                "pgas::hdf5: the element type has no native HDF5 type (integers, float, double and "
                "long double have one); write its members as separate arrays");
  using family = element_type::family;
  if constexpr (std::floating_point<T>) {
    return {family::floating_point, sizeof(T),
            sizeof(T) == 4   ? "float32"
            : sizeof(T) == 8 ? "float64"
                             : "long_double"};
  } else if constexpr (std::is_signed_v<T>) {
    return {family::signed_integer, sizeof(T),
            sizeof(T) == 1   ? "int8"
            : sizeof(T) == 2 ? "int16"
            : sizeof(T) == 4 ? "int32"
                             : "int64"};
  } else {
    return {family::unsigned_integer, sizeof(T),
            sizeof(T) == 1   ? "uint8"
            : sizeof(T) == 2 ? "uint16"
            : sizeof(T) == 4 ? "uint32"
                             : "uint64"};
  }
}

/// A regular pattern of elements, HDF5's hyperslab: in each dimension d, `count[d]` blocks of
/// `block[d]` elements, the first at `start[d]`, one every `stride[d]`.
struct hyperslab {
  std::vector<std::uint64_t> start;
  std::vector<std::uint64_t> stride;
  std::vector<std::uint64_t> count;
  std::vector<std::uint64_t> block;
  /// A contiguous box: `extent[d]` elements from `first[d]`.
  static hyperslab box(std::vector<std::uint64_t> first, std::vector<std::uint64_t> extent);
};

/// The elements one image moves: the union of some hyperslabs (none: the image moves
/// nothing), taken in row-major order of the whole space.
using selection = std::vector<hyperslab>;

/// One image's part of a collective transfer: where its elements lie in the dataset, and
/// where they lie in its memory (in the same order).
struct transfer_plan {
  std::vector<std::uint64_t> shape;         ///< the dataset's global shape
  selection in_file;                        ///< this image's elements in the dataset
  std::vector<std::uint64_t> memory_shape;  ///< the array in memory the elements come from/go to
  selection in_memory;                      ///< this image's elements there, as many as in_file
  std::string distribution;                 ///< recorded in the pgas.distribution attribute
};

/// Collective over comm. Creates `file` (or opens it, if it is an HDF5 file already) and writes
/// the dataset `name` (intermediate groups created; an existing dataset of the same type and
/// shape is overwritten). Attributes pgas.element_type, pgas.distribution and pgas.images
/// record what was written. Throws io_error on every image, having written nothing, when the
/// file cannot be created or opened, is not HDF5, or holds `name` with another type or shape;
/// a new file whose writing fails is removed.
void write_dataset(MPI_Comm comm,
                   const std::filesystem::path& file,
                   const std::string& name,
                   element_type type,
                   const transfer_plan& plan,
                   const void* data);

/// Collective over comm: the shape of dataset `name` in `file`, checked to hold elements of
/// `type`. Throws io_error on every image when the file is missing or not HDF5, the dataset is
/// missing, or its elements are of another type.
[[nodiscard]] std::vector<std::uint64_t> dataset_shape(MPI_Comm comm,
                                                       const std::filesystem::path& file,
                                                       const std::string& name,
                                                       element_type type);

/// Collective over comm: reads this image's elements of dataset `name` into `data`. Throws
/// io_error on every image, before anything is stored, for the causes dataset_shape names
/// and when the dataset's shape is not plan.shape.
void read_dataset(MPI_Comm comm,
                  const std::filesystem::path& file,
                  const std::string& name,
                  element_type type,
                  const transfer_plan& plan,
                  void* data);

}  // namespace pgas::hdf5
