// The bad-input catalogue, continued: files (pgas::hdf5, heat2d's checkpoints) and serialized
// collectives. Built into the catalogue binary where those targets exist.
#include <pgas/hdf5.hpp>
#include <pgas/serialization.hpp>

#include "../support/scratch_file.hpp"
#include "bad_input_fixture.hpp"
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using bad_input::BadInput;
using bad_input::images;
using bad_input::me;

using pgas_test::scratch_file;

// Runs f, which must throw io_error with `part` in its message (on every image).
template <class F>
void expect_io_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no io_error; expected one mentioning '" << part << "'";
  } catch (const pgas::io_error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

void fill(pgas::array<double>& a) {
  for (std::size_t k = 0; k < a.local().size(); ++k)
    a.local()[k] = 0.5 + static_cast<double>(a.global_index(k));
  pgas::sync_all();
}

TEST_F(BadInput, hdf5_read_of_a_missing_file_or_dataset) {
  pgas::array<double> a(10);
  expect_io_error([&] { pgas::hdf5::read(a, "/nonexistent-directory/missing.h5", "/a"); },
                  "no file");
  const scratch_file file("missing_dataset.h5");
  fill(a);
  pgas::hdf5::write(a, file.path(), "/a");
  expect_io_error([&] { pgas::hdf5::read(a, file.path(), "/b"); }, "no dataset '/b'");
  expect_io_error([&] { pgas::hdf5::read(a, file.path(), "/a/deeper"); }, "no dataset");
  pgas::vector<double> v;
  expect_io_error([&] { pgas::hdf5::read(v, file.path(), "/group/none"); }, "no dataset");
}

TEST_F(BadInput, hdf5_write_to_an_unwritable_path) {
  pgas::array<double> a(10);
  expect_io_error([&] { pgas::hdf5::write(a, "/nonexistent-directory/x.h5", "/a"); },
                  "no directory");
  expect_io_error([&] { pgas::hdf5::write(a, fs::temp_directory_path(), "/a"); }, "is a directory");
}

TEST_F(BadInput, hdf5_file_that_is_not_hdf5_is_refused_and_left_as_it_was) {
  const scratch_file text("notes.txt");
  if (me() == 0)
    std::ofstream(text.path()) << "not an HDF5 file\n";
  pgas::sync_all();
  pgas::array<double> a(10);
  expect_io_error([&] { pgas::hdf5::read(a, text.path(), "/a"); }, "is not an HDF5 file");
  expect_io_error([&] { pgas::hdf5::write(a, text.path(), "/a"); }, "is not an HDF5 file");
  std::ifstream in(text.path());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "not an HDF5 file");
  EXPECT_EQ(fs::file_size(text.path()), 17U);
}

TEST_F(BadInput, hdf5_dataset_of_another_element_type_or_shape_is_refused_and_kept) {
  const scratch_file file("typed.h5");
  pgas::array<double> a(10);
  fill(a);
  pgas::hdf5::write(a, file.path(), "/a");
  pgas::array<double> longer(11);
  pgas::array<float> other_type(10);
  pgas::array<std::int64_t> integers(10);
  pgas::matrix<double> square(2, 5, 1);
  expect_io_error([&] { pgas::hdf5::read(longer, file.path(), "/a"); },
                  "shape (10); the container has (11)");
  expect_io_error([&] { pgas::hdf5::read(square, file.path(), "/a"); },
                  "shape (10); the container has (2 x 5)");
  expect_io_error([&] { pgas::hdf5::read(other_type, file.path(), "/a"); },
                  "holds float64, not float32");
  expect_io_error([&] { pgas::hdf5::read(integers, file.path(), "/a"); },
                  "holds float64, not int64");
  // Writing over a dataset of another shape or type is refused; the old one stays whole.
  expect_io_error([&] { pgas::hdf5::write(longer, file.path(), "/a"); },
                  "exists with shape (10), not (11)");
  expect_io_error([&] { pgas::hdf5::write(other_type, file.path(), "/a"); },
                  "holds float64, not float32");
  pgas::array<double> back(10);
  pgas::hdf5::read(back, file.path(), "/a");
  for (std::size_t k = 0; k < back.local().size(); ++k) {
    EXPECT_EQ(back.local()[k], 0.5 + static_cast<double>(back.global_index(k)));
  }
}

// Datasets are written with checksums: one byte of the data changed on disk reads as an
// io_error on every image, never as a wrong number.
TEST_F(BadInput, hdf5_dataset_damaged_on_disk_reads_as_an_io_error) {
  scratch_file file("damaged.h5");
  const std::uint64_t marker = 0x5a17c0de00000000ULL;
  pgas::array<std::uint64_t> a(20 * images() + 3);
  for (std::size_t k = 0; k < a.local().size(); ++k) a.local()[k] = marker + a.global_index(k);
  pgas::sync_all();
  pgas::hdf5::write(a, file.path(), "/data");
  pgas::array<std::uint64_t> back(a.size());
  pgas::hdf5::read(back, file.path(), "/data");  // whole: it reads
  EXPECT_TRUE(std::equal(back.local().begin(), back.local().end(), a.local().begin()));
  long damaged = 0;
  if (me() == 0) {
    // Element 7's low byte, found by its value in the file, changed.
    std::fstream f(file.path(), std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes(static_cast<std::size_t>(fs::file_size(file.path())), '\0');
    f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    const std::uint64_t seventh = marker + 7;
    const auto at = bytes.find(std::string(reinterpret_cast<const char*>(&seventh), 8));
    if (at != std::string::npos) {
      f.seekp(static_cast<std::streamoff>(at));
      f.put(static_cast<char>(bytes[at] ^ 0x01));
      damaged = 1;
    }
  }
  ASSERT_EQ(pgas::co_sum(damaged), 1L);
  expect_io_error([&] { pgas::hdf5::read(back, file.path(), "/data"); }, "H5Dread failed");
}

TEST_F(BadInput, serialized_collective_with_an_image_that_does_not_exist_or_differs) {
  EXPECT_THROW((void)pgas::co_broadcast(std::string("x"), images()), pgas::usage_error);
  EXPECT_THROW((void)pgas::co_gather(std::string("x"), images() + 3), pgas::usage_error);
  EXPECT_THROW((void)pgas::co_reduce(std::string("x"), std::plus<>{}, images()), pgas::usage_error);
  if (images() > 1) {
    EXPECT_THROW((void)pgas::co_broadcast(std::string("x"), me()), pgas::usage_error);
  }
}

}  // namespace
