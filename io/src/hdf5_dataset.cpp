// Parallel HDF5 through the MPI-IO driver (H5Pset_fapl_mpio): every image opens the file
// together and moves its own elements with one collective H5Dwrite / H5Dread
// (H5FD_MPIO_COLLECTIVE). Every step that can fail ends in an agreement (runtime::first_failure),
// so all images throw the same io_error at the same point and none is left waiting in a collective.
#include <pgas/io/hdf5_dataset.hpp>
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>

#include <algorithm>
#include <hdf5.h>
#include <optional>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace pgas::hdf5 {

hyperslab hyperslab::box(std::vector<std::uint64_t> first, std::vector<std::uint64_t> extent) {
  const std::size_t rank = first.size();
  return hyperslab{std::move(first), std::vector<std::uint64_t>(rank, 1),
                   std::vector<std::uint64_t>(rank, 1), std::move(extent)};
}

namespace {

using failure = std::optional<std::string>;

// An HDF5 identifier closed by its own close function when it goes.
class handle {
 public:
  handle() = default;
  handle(hid_t id, herr_t (*close)(hid_t)) : id_{id}, close_{close} {}
  handle(handle&& o) noexcept : id_{std::exchange(o.id_, H5I_INVALID_HID)}, close_{o.close_} {}
  handle& operator=(handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() {
    if (id_ >= 0)
      close_(id_);
  }
  [[nodiscard]] hid_t get() const noexcept { return id_; }
  [[nodiscard]] bool valid() const noexcept { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// HDF5 prints its error stack to stderr by default; pgas reports errors as exceptions instead.
class quiet_hdf5_errors {
 public:
  quiet_hdf5_errors() {
    H5Eget_auto2(H5E_DEFAULT, &saved_, &saved_data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  quiet_hdf5_errors(const quiet_hdf5_errors&) = delete;
  quiet_hdf5_errors& operator=(const quiet_hdf5_errors&) = delete;
  ~quiet_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, saved_, saved_data_); }

 private:
  H5E_auto2_t saved_ = nullptr;
  void* saved_data_ = nullptr;
};

// Agrees with every image on the first failure, and throws it everywhere.
void throw_together(const failure& mine, MPI_Comm comm) {
  if (auto first = runtime::first_failure(mine, comm))
    throw io_error(*first);
}

std::string quoted(const std::filesystem::path& p) {
  std::string out(1, '\'');
  out.append(p.string()).push_back('\'');
  return out;
}

std::string where(const std::filesystem::path& file, const std::string& name) {
  return "dataset '" + name + "' in " + quoted(file);
}

hid_t native_type(element_type t) {
  using family = element_type::family;
  switch (t.kind) {
    case family::floating_point:
      return t.bytes == 4   ? H5T_NATIVE_FLOAT
             : t.bytes == 8 ? H5T_NATIVE_DOUBLE
                            : H5T_NATIVE_LDOUBLE;
    case family::signed_integer:
      return t.bytes == 1   ? H5T_NATIVE_INT8
             : t.bytes == 2 ? H5T_NATIVE_INT16
             : t.bytes == 4 ? H5T_NATIVE_INT32
                            : H5T_NATIVE_INT64;
    case family::unsigned_integer:
      return t.bytes == 1   ? H5T_NATIVE_UINT8
             : t.bytes == 2 ? H5T_NATIVE_UINT16
             : t.bytes == 4 ? H5T_NATIVE_UINT32
                            : H5T_NATIVE_UINT64;
  }
  return H5T_NATIVE_DOUBLE;
}

// What a dataset's stored type is, in element_type's words ("int32", "float64", ...), or
// "a non-numeric type".
std::string describe_stored_type(hid_t stored) {
  const H5T_class_t cls = H5Tget_class(stored);
  const std::size_t bytes = H5Tget_size(stored);
  const std::string bits = std::to_string(8 * bytes);
  if (cls == H5T_FLOAT)
    return bytes > 8 ? "long_double" : "float" + bits;
  if (cls == H5T_INTEGER)
    return (H5Tget_sign(stored) == H5T_SGN_NONE ? "uint" : "int") + bits;
  return "a non-numeric type";
}

bool stores(hid_t stored, element_type t) {
  using family = element_type::family;
  const H5T_class_t cls = H5Tget_class(stored);
  if (H5Tget_size(stored) != t.bytes)
    return false;
  if (t.kind == family::floating_point)
    return cls == H5T_FLOAT;
  if (cls != H5T_INTEGER)
    return false;
  return (H5Tget_sign(stored) == H5T_SGN_NONE) == (t.kind == family::unsigned_integer);
}

std::string describe_shape(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? " x " : "") + std::to_string(shape[d]);
  return s + ")";
}

std::vector<std::uint64_t> shape_of(hid_t dataset) {
  handle space(H5Dget_space(dataset), H5Sclose);
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 0)
    return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

// File access through MPI-IO over comm.
handle mpio_access(MPI_Comm comm) {
  handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (fapl.valid())
    H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
  return fapl;
}

// Checks, on image 0 alone, what the file system can tell before HDF5 touches anything.
failure check_existing_file(const std::filesystem::path& file, const char* verb) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    return "pgas::hdf5::" + std::string(verb) + ": no file " + quoted(file);
  if (std::filesystem::is_directory(file, ec)) {
    return "pgas::hdf5::" + std::string(verb) + ": " + quoted(file) +
           " is a directory, not an HDF5 file";
  }
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    return "pgas::hdf5::" + std::string(verb) + ": " + quoted(file) + " is not an HDF5 file";
  }
  return std::nullopt;
}

failure check_writable(const std::filesystem::path& file, bool exists) {
  if (exists) {
    if (auto f = check_existing_file(file, "write"))
      return f;
    if (::access(file.c_str(), W_OK) != 0)
      return "pgas::hdf5::write: " + quoted(file) + " is not writable";
    return std::nullopt;
  }
  const std::filesystem::path dir =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return "pgas::hdf5::write: cannot create " + quoted(file) + ": no directory " + quoted(dir);
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return "pgas::hdf5::write: cannot create " + quoted(file) + ": directory " + quoted(dir) +
           " is not writable";
  }
  return std::nullopt;
}

// True when every group on the way to `name` and `name` itself exist (H5Lexists needs its
// parent to exist).
bool link_exists(hid_t file, const std::string& name) {
  std::size_t pos = name.front() == '/' ? 1 : 0;
  while (true) {
    const std::size_t slash = name.find('/', pos);
    const std::string prefix = name.substr(0, slash);
    if (!prefix.empty() && prefix != "/" && H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0)
      return false;
    if (slash == std::string::npos)
      return true;
    pos = slash + 1;
  }
}

// The union of the hyperslabs, selected in `space`.
bool select(hid_t space, const selection& parts) {
  if (H5Sselect_none(space) < 0)
    return false;
  for (const hyperslab& h : parts) {
    const std::vector<hsize_t> start(h.start.begin(), h.start.end());
    const std::vector<hsize_t> stride(h.stride.begin(), h.stride.end());
    const std::vector<hsize_t> count(h.count.begin(), h.count.end());
    const std::vector<hsize_t> block(h.block.begin(), h.block.end());
    if (std::find(count.begin(), count.end(), 0) != count.end() ||
        std::find(block.begin(), block.end(), 0) != block.end()) {
      continue;  // an empty pattern selects nothing
    }
    if (H5Sselect_hyperslab(space, H5S_SELECT_OR, start.data(), stride.data(), count.data(),
                            block.data()) < 0) {
      return false;
    }
  }
  return true;
}

handle memory_space(const transfer_plan& plan) {
  // An image holding nothing selects none of one element; a shape of no dimensions is one.
  std::vector<hsize_t> dims(std::max<std::size_t>(plan.memory_shape.size(), 1), 1);
  for (std::size_t d = 0; d < plan.memory_shape.size(); ++d)
    dims[d] = std::max<hsize_t>(plan.memory_shape[d], 1);
  handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  if (space.valid() && !select(space.get(), plan.in_memory))
    return {};
  return space;
}

// A new dataset's layout: chunks of at most about a million elements, each stored with a
// Fletcher-32 checksum that every read verifies, so a damaged file reads as an io_error, not as
// wrong numbers. Parallel HDF5 writes filtered chunks with collective I/O, as transfer() does.
// An empty dataset has no data to check and no valid chunk shape: the default layout.
handle checksummed_layout(const std::vector<hsize_t>& dims) {
  if (dims.empty() || std::find(dims.begin(), dims.end(), 0) != dims.end())
    return {};
  constexpr hsize_t most_elements = hsize_t{1} << 20;
  std::vector<hsize_t> chunk(dims);
  hsize_t elements = 1;
  for (const hsize_t d : chunk) elements *= d;
  // Halve the outermost dimensions first, so a chunk stays a run of whole inner rows.
  for (std::size_t d = 0; d < chunk.size() && elements > most_elements; ++d) {
    while (chunk[d] > 1 && elements > most_elements) {
      const hsize_t halved = (chunk[d] + 1) / 2;
      elements = elements / chunk[d] * halved;
      chunk[d] = halved;
    }
  }
  handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!dcpl.valid() || H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) < 0 ||
      H5Pset_fletcher32(dcpl.get()) < 0)
    return {};
  return dcpl;
}

// Moves this image's elements between the dataset and `memory`: H5Dwrite when writing,
// H5Dread otherwise.
failure transfer(hid_t dataset,
                 element_type type,
                 const transfer_plan& plan,
                 void* memory,
                 bool writing,
                 const std::string& what) {
  // A dataset without elements has no storage, and collective MPI-IO on it fails: nothing to
  // move (every image knows the global shape, so all skip alike).
  if (std::find(plan.shape.begin(), plan.shape.end(), 0) != plan.shape.end())
    return std::nullopt;
  handle file_space(H5Dget_space(dataset), H5Sclose);
  if (!file_space.valid() || !select(file_space.get(), plan.in_file))
    return what + ": H5Sselect_hyperslab failed";
  handle mem_space = memory_space(plan);
  if (!mem_space.valid())
    return what + ": H5Sselect_hyperslab failed in memory";
  if (H5Sget_select_npoints(file_space.get()) != H5Sget_select_npoints(mem_space.get())) {
    return what + ": the selections in the file and in memory differ in size";
  }
  // HDF5 refuses a null buffer even when it moves nothing (an image owning no elements).
  std::uint64_t nothing = 0;
  if (memory == nullptr)
    memory = &nothing;
  handle xfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  if (!xfer.valid() || H5Pset_dxpl_mpio(xfer.get(), H5FD_MPIO_COLLECTIVE) < 0)
    return what + ": H5Pset_dxpl_mpio failed";
  const herr_t rc = writing ? H5Dwrite(dataset, native_type(type), mem_space.get(),
                                       file_space.get(), xfer.get(), memory)
                            : H5Dread(dataset, native_type(type), mem_space.get(), file_space.get(),
                                      xfer.get(), memory);
  if (rc < 0)
    return what + (writing ? ": H5Dwrite failed"
                           : ": H5Dread failed (as when a damaged file's checksums do not "
                             "match)");
  return std::nullopt;
}

// Replaces the attribute `key` of `object` by a string (fixed length, null-terminated).
bool set_attribute(hid_t object, const char* key, const std::string& value) {
  if (H5Aexists(object, key) > 0 && H5Adelete(object, key) < 0)
    return false;
  handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid() || H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)) < 0)
    return false;
  handle space(H5Screate(H5S_SCALAR), H5Sclose);
  handle attr(H5Acreate2(object, key, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr.valid() && H5Awrite(attr.get(), type.get(), value.c_str()) >= 0;
}

// Opens `name` and checks its element type; the dataset handle, or the failure.
std::pair<handle, failure> open_checked(hid_t file,
                                        const std::filesystem::path& path,
                                        const std::string& name,
                                        element_type type,
                                        const char* verb) {
  const std::string prefix = "pgas::hdf5::" + std::string(verb) + ": ";
  if (!link_exists(file, name))
    return {handle{}, prefix + "no " + where(path, name)};
  handle dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid())
    return {handle{}, prefix + "cannot open " + where(path, name) + " (H5Dopen2)"};
  handle stored(H5Dget_type(dataset.get()), H5Tclose);
  if (!stored.valid() || !stores(stored.get(), type)) {
    return {handle{}, prefix + where(path, name) + " holds " +
                          (stored.valid() ? describe_stored_type(stored.get())
                                          : std::string("an unknown type")) +
                          ", not " + type.name};
  }
  return {std::move(dataset), std::nullopt};
}

int image_of(MPI_Comm comm) {
  int r = 0;
  runtime::check(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

// Opens an existing file for reading, everyone or no one.
handle open_for_reading(MPI_Comm comm, const std::filesystem::path& file) {
  throw_together(image_of(comm) == 0 ? check_existing_file(file, "read") : std::nullopt, comm);
  handle fapl = mpio_access(comm);
  handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  throw_together(f.valid()
                     ? failure{}
                     : failure{"pgas::hdf5::read: cannot open " + quoted(file) + " (H5Fopen)"},
                 comm);
  return f;
}

}  // namespace

void write_dataset(MPI_Comm comm,
                   const std::filesystem::path& file,
                   const std::string& name,
                   element_type type,
                   const transfer_plan& plan,
                   const void* data) {
  const quiet_hdf5_errors quiet;
  const std::string what = "pgas::hdf5::write: " + where(file, name);
  // Whether the file exists is image 0's answer, so every image opens or creates alike.
  int exists = 0;
  if (image_of(comm) == 0) {
    std::error_code ec;
    exists = std::filesystem::exists(file, ec) ? 1 : 0;
  }
  runtime::broadcast_bytes(&exists, sizeof exists, 0, comm);
  throw_together(image_of(comm) == 0 ? check_writable(file, exists != 0) : std::nullopt, comm);

  handle fapl = mpio_access(comm);
  handle f = exists != 0
                 ? handle(H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose)
                 : handle(H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose);
  throw_together(
      f.valid() ? failure{}
                : failure{"pgas::hdf5::write: cannot " + std::string(exists ? "open " : "create ") +
                          quoted(file) + (exists ? " (H5Fopen)" : " (H5Fcreate)")},
      comm);

  failure problem;
  handle dataset;
  if (link_exists(f.get(), name)) {
    // Overwrite only a dataset that already has this type and shape: anything else is refused
    // before a byte changes.
    auto [opened, why] = open_checked(f.get(), file, name, type, "write");
    problem = why;
    if (!problem && shape_of(opened.get()) != plan.shape) {
      problem = what + " exists with shape " + describe_shape(shape_of(opened.get())) + ", not " +
                describe_shape(plan.shape);
    }
    dataset = std::move(opened);
  } else {
    const std::vector<hsize_t> dims(plan.shape.begin(), plan.shape.end());
    handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    if (lcpl.valid())
      H5Pset_create_intermediate_group(lcpl.get(), 1);
    handle dcpl = checksummed_layout(dims);
    dataset = handle(H5Dcreate2(f.get(), name.c_str(), native_type(type), space.get(), lcpl.get(),
                                dcpl.valid() ? dcpl.get() : H5P_DEFAULT, H5P_DEFAULT),
                     H5Dclose);
    if (!dataset.valid())
      problem = what + ": cannot create it (H5Dcreate2; is the name a path like /group/name?)";
  }
  problem = runtime::first_failure(problem, comm);
  if (!problem) {
    int images = 0;
    runtime::check(MPI_Comm_size(comm, &images), "MPI_Comm_size");
    if (!set_attribute(dataset.get(), "pgas.element_type", type.name) ||
        !set_attribute(dataset.get(), "pgas.distribution", plan.distribution) ||
        !set_attribute(dataset.get(), "pgas.images", std::to_string(images))) {
      problem = what + ": cannot write its attributes (H5Acreate2)";
    }
    problem = runtime::first_failure(problem, comm);
  }
  if (!problem)
    problem = runtime::first_failure(
        transfer(dataset.get(), type, plan, const_cast<void*>(data), true, what), comm);
  if (!problem) {
    problem = runtime::first_failure(H5Fflush(f.get(), H5F_SCOPE_GLOBAL) < 0
                                         ? failure{what + ": H5Fflush failed"}
                                         : std::nullopt,
                                     comm);
  }
  dataset = handle{};
  f = handle{};
  if (problem) {
    if (exists == 0 && image_of(comm) == 0) {
      std::error_code ec;
      std::filesystem::remove(file, ec);  // the file this call created holds nothing whole
    }
    throw io_error(*problem);
  }
}

std::vector<std::uint64_t> dataset_shape(MPI_Comm comm,
                                         const std::filesystem::path& file,
                                         const std::string& name,
                                         element_type type) {
  const quiet_hdf5_errors quiet;
  handle f = open_for_reading(comm, file);
  auto [dataset, problem] = open_checked(f.get(), file, name, type, "read");
  throw_together(problem, comm);
  return shape_of(dataset.get());
}

void read_dataset(MPI_Comm comm,
                  const std::filesystem::path& file,
                  const std::string& name,
                  element_type type,
                  const transfer_plan& plan,
                  void* data) {
  const quiet_hdf5_errors quiet;
  handle f = open_for_reading(comm, file);
  auto [dataset, problem] = open_checked(f.get(), file, name, type, "read");
  if (!problem && shape_of(dataset.get()) != plan.shape) {
    problem = "pgas::hdf5::read: " + where(file, name) + " has shape " +
              describe_shape(shape_of(dataset.get())) + "; the container has " +
              describe_shape(plan.shape);
  }
  throw_together(problem, comm);
  throw_together(
      transfer(dataset.get(), type, plan, data, false, "pgas::hdf5::read: " + where(file, name)),
      comm);
}

}  // namespace pgas::hdf5
