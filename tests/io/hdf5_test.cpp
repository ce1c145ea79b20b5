// pgas::hdf5: round trips for every container and distribution, reading at another layout,
// files shared by several datasets, h5dump's view of a file, and every bad input.
#include <pgas/hdf5.hpp>
#include <pgas/pgas.hpp>
#include <pgas/runtime/collective.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace fs = std::filesystem;

namespace {

// A directory of this launch's own (image 0 makes it, everyone learns its name), removed at
// the end: launches at different image counts run side by side.
class scratch_directory {
 public:
  scratch_directory() {
    std::array<char, 256> name{};
    if (pgas::this_image() == 0) {
      std::string pattern = (fs::temp_directory_path() / "pgas_hdf5_test_XXXXXX").string();
      if (::mkdtemp(pattern.data()) != nullptr)
        std::snprintf(name.data(), name.size(), "%s", pattern.c_str());
    }
    pgas::runtime::broadcast_bytes(name.data(), name.size(), 0, pgas::runtime::world_comm());
    path_ = name.data();
  }
  scratch_directory(const scratch_directory&) = delete;
  scratch_directory& operator=(const scratch_directory&) = delete;
  ~scratch_directory() {
    pgas::sync_all();
    std::error_code ec;
    if (pgas::this_image() == 0)
      fs::remove_all(path_, ec);
  }
  [[nodiscard]] fs::path operator/(const std::string& file) const { return path_ / file; }

 private:
  fs::path path_;
};

template <class T>
T value_at(std::size_t i) {
  return static_cast<T>((i * 7 + 3) % 101);
}

template <class T, class D>
void fill(pgas::array<T, D>& a) {
  for (std::size_t k = 0; k < a.local().size(); ++k) a.local()[k] = value_at<T>(a.global_index(k));
  pgas::sync_all();
}

template <class T, class D>
void expect_values(const pgas::array<T, D>& a) {
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < a.local().size(); ++k)
    wrong += a.local()[k] != value_at<T>(a.global_index(k)) ? 1u : 0u;
  EXPECT_EQ(wrong, 0u) << a.size() << " elements, image " << pgas::this_image();
}

// A new file for each round trip: the element type differs from call to call.
int round_trip_files = 0;

// Writes in layout `from` and reads into layout `to`, for several sizes.
template <class T, class From, class To>
void round_trip(const scratch_directory& dir, From from, To to) {
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{1001}}) {
    const fs::path file = dir / ("round_trip_" + std::to_string(++round_trip_files) + ".h5");
    pgas::array<T, From> a(n, from);
    fill(a);
    pgas::hdf5::write(a, file, "/data/a");
    pgas::array<T, To> b(n, to, T{42});
    pgas::hdf5::read(b, file, "/data/a");
    expect_values(b);
    // Read again by the images in reverse order: each reads what another image wrote.
    const pgas::team reversed = pgas::team::world().split(0, -static_cast<int>(pgas::this_image()));
    pgas::array<T, To> c(reversed, n, to, T{42});
    pgas::hdf5::read(c, file, "/data/a");
    expect_values(c);
    pgas::sync_all();
  }
}

TEST(Hdf5, arrays_round_trip_in_every_distribution) {
  const scratch_directory dir;
  round_trip<double>(dir, pgas::block{}, pgas::block{});
  round_trip<int>(dir, pgas::cyclic{}, pgas::cyclic{});
  round_trip<std::uint8_t>(dir, pgas::block_cyclic(3), pgas::block_cyclic(3));
  round_trip<float>(dir, pgas::block_cyclic(64), pgas::block_cyclic(64));
  round_trip<std::int64_t>(dir, pgas::block{}, pgas::block{});
}

TEST(Hdf5, a_file_reads_back_into_another_distribution) {
  const scratch_directory dir;
  round_trip<double>(dir, pgas::block{}, pgas::cyclic{});
  round_trip<double>(dir, pgas::cyclic{}, pgas::block_cyclic(5));
  round_trip<long>(dir, pgas::block_cyclic(4), pgas::block{});
}

TEST(Hdf5, vectors_round_trip_and_a_read_resizes_the_vector) {
  const scratch_directory dir;
  pgas::vector<double> v;
  for (std::size_t k = 0; k < 3 * pgas::this_image() + 2; ++k)
    v.push_back(static_cast<double>(pgas::this_image() * 100 + k));
  v.commit();
  pgas::hdf5::write(v, dir / "v.h5", "v");
  pgas::vector<double> w(5);
  pgas::hdf5::read(w, dir / "v.h5", "v");
  ASSERT_EQ(w.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(w[i].get(), v[i].get()) << i;
  pgas::sync_all();
  // and into an array of the right length
  pgas::array<double, pgas::cyclic> a(v.size());
  pgas::hdf5::read(a, dir / "v.h5", "v");
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(a[i].get(), v[i].get()) << i;
  pgas::sync_all();
}

TEST(Hdf5, matrices_round_trip_without_their_ghost_cells) {
  const scratch_directory dir;
  for (const std::size_t h : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    const std::size_t rows = 13;
    const std::size_t cols = 9;
    pgas::matrix<int> m(rows, cols, h, pgas::boundary::fixed, -1);
    for (std::size_t i = 0; i < m.local_rows(); ++i) {
      for (std::size_t j = 0; j < cols; ++j) {
        m.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) =
            static_cast<int>(100 * (m.first_row() + i) + j);
      }
    }
    pgas::sync_all();
    const fs::path file = dir / ("m" + std::to_string(h) + ".h5");
    pgas::hdf5::write(m, file, "/m");
    pgas::matrix<int> r(rows, cols, h, pgas::boundary::fixed, -7);
    pgas::hdf5::read(r, file, "/m");
    const auto hh = static_cast<std::ptrdiff_t>(h);
    for (std::ptrdiff_t i = -hh;
         i < static_cast<std::ptrdiff_t>(r.local_rows()) + hh && r.local_rows() > 0; ++i) {
      for (std::ptrdiff_t j = -hh; j < static_cast<std::ptrdiff_t>(cols) + hh; ++j) {
        const bool owned = i >= 0 && i < static_cast<std::ptrdiff_t>(r.local_rows()) && j >= 0 &&
                           j < static_cast<std::ptrdiff_t>(cols);
        const int want =
            owned ? static_cast<int>(100 * (r.first_row() + static_cast<std::size_t>(i)) +
                                     static_cast<std::size_t>(j))
                  : -7;
        EXPECT_EQ(r.local()(i, j), want) << "(" << i << ", " << j << ") halo " << h;
      }
    }
    // A matrix's dataset is 2-D: a 1-D array of rows * cols elements is refused.
    pgas::array<int> flat(rows * cols);
    EXPECT_THROW(pgas::hdf5::read(flat, file, "/m"), pgas::io_error);
    pgas::sync_all();
  }
}

// An ndarray written on one grid reads back into another grid (and a matrix), 2-D and 3-D,
// owned cells only; a 2-D array and a matrix of the same shape share the dataset's format.
TEST(Hdf5, ndarrays_round_trip_between_grids) {
  const scratch_directory dir;
  const std::size_t p = pgas::num_images();
  const std::array<std::size_t, 2> e{2 * p + 3, 3 * p + 1};
  pgas::ndarray<long, 2> a(e, pgas::grid({1, p}), 1, pgas::boundary::fixed, -1);
  const auto v = a.local();
  const auto o = a.local_origin();
  for (std::size_t i = 0; i < v.extent(0); ++i) {
    for (std::size_t j = 0; j < v.extent(1); ++j)
      v(i, j) = static_cast<long>(1000 * (o[0] + i) + o[1] + j);
  }
  pgas::sync_all();
  const fs::path file = dir / "tiles.h5";
  pgas::hdf5::write(a, file, "/a");
  pgas::ndarray<long, 2> b(e, pgas::grid({p, 1}), 2, pgas::boundary::periodic, -7);
  pgas::hdf5::read(b, file, "/a");
  const auto w = b.local();
  const auto q = b.local_origin();
  std::size_t wrong = 0;
  for (long i = -2; i < static_cast<long>(w.extent(0)) + 2 && w.size() > 0; ++i) {
    for (long j = -2; j < static_cast<long>(w.extent(1)) + 2; ++j) {
      const bool owned = i >= 0 && j >= 0 && i < static_cast<long>(w.extent(0)) &&
                         j < static_cast<long>(w.extent(1));
      const long want = owned ? static_cast<long>(1000 * (q[0] + static_cast<std::size_t>(i)) +
                                                  q[1] + static_cast<std::size_t>(j))
                              : -7;
      if (w(i, j) != want)
        ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u);
  pgas::matrix<long> m(e[0], e[1], 1);
  pgas::hdf5::read(m, file, "/a");
  EXPECT_EQ(m(e[0] - 1, e[1] - 1).get(), static_cast<long>(1000 * (e[0] - 1) + e[1] - 1));
  // 3-D, on a grid over the last dimension, read back on the default grid.
  const std::array<std::size_t, 3> e3{3, 4, 2 * p + 1};
  pgas::ndarray<float, 3> c(e3, pgas::grid({1, 1, p}), 1);
  const auto cv = c.local();
  const auto co = c.local_origin();
  for (std::size_t i = 0; i < cv.extent(0); ++i) {
    for (std::size_t j = 0; j < cv.extent(1); ++j) {
      for (std::size_t k = 0; k < cv.extent(2); ++k)
        cv(i, j, k) = static_cast<float>(100 * (co[0] + i) + 10 * (co[1] + j) + co[2] + k);
    }
  }
  pgas::sync_all();
  pgas::hdf5::write(c, file, "/c");
  pgas::ndarray<float, 3> d(e3);
  pgas::hdf5::read(d, file, "/c");
  EXPECT_EQ(d(2, 3, 2 * p).get(), static_cast<float>(200 + 30 + 2 * p));
  EXPECT_EQ(d(1, 0, 1).get(), 101.0F);
  // A 3-D dataset does not read into a 2-D array.
  EXPECT_THROW(pgas::hdf5::read(b, file, "/c"), pgas::io_error);
  pgas::sync_all();
}

TEST(Hdf5, datasets_are_added_to_a_file_and_overwritten_in_place) {
  const scratch_directory dir;
  const fs::path file = dir / "several.h5";
  pgas::array<int> a(50);
  fill(a);
  pgas::hdf5::write(a, file, "/first");
  pgas::array<double, pgas::cyclic> b(20, {}, 2.5);
  pgas::hdf5::write(b, file, "/group/second");
  pgas::array<int> c(50);
  pgas::hdf5::read(c, file, "/first");
  expect_values(c);
  for (std::size_t k = 0; k < a.local().size(); ++k) a.local()[k] = -a.local()[k];
  pgas::sync_all();
  pgas::hdf5::write(a, file, "/first");  // same type and shape: overwritten
  pgas::hdf5::read(c, file, "/first");
  for (std::size_t k = 0; k < c.local().size(); ++k)
    EXPECT_EQ(c.local()[k], -value_at<int>(c.global_index(k)));
  pgas::array<double> d(20);
  pgas::hdf5::read(d, file, "/group/second");
  for (double x : d.local()) EXPECT_EQ(x, 2.5);
  pgas::sync_all();
}

// Runs a command on image 0 and gives its output to every image.
std::string output_of(const std::string& command) {
  std::string out;
  if (pgas::this_image() == 0) {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
    std::array<char, 4096> buffer{};
    while (pipe && std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr)
      out += buffer.data();
  }
  std::size_t n = out.size();
  pgas::runtime::broadcast_bytes(&n, sizeof n, 0, pgas::runtime::world_comm());
  out.resize(n);
  pgas::runtime::broadcast_bytes(out.data(), n, 0, pgas::runtime::world_comm());
  return out;
}

TEST(Hdf5, h5dump_shows_the_global_shape_the_values_and_the_attributes) {
  const scratch_directory dir;
  const fs::path file = dir / "dump.h5";
  pgas::array<int, pgas::cyclic> a(6);
  for (std::size_t k = 0; k < a.local().size(); ++k)
    a.local()[k] = static_cast<int>(a.global_index(k) * a.global_index(k));
  pgas::sync_all();
  pgas::hdf5::write(a, file, "/squares");
  pgas::matrix<double> m(2, 3, 1);
  for (std::size_t i = 0; i < m.local_rows(); ++i) {
    for (std::size_t j = 0; j < 3; ++j)
      m.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) =
          static_cast<double>(10 * (m.first_row() + i) + j) + 0.5;
  }
  pgas::sync_all();
  pgas::hdf5::write(m, file, "/m");
  const std::string dump = output_of("h5dump '" + file.string() + "' 2>&1");
  EXPECT_NE(dump.find("DATASET \"squares\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("DATASPACE  SIMPLE { ( 6 ) / ( 6 ) }"), std::string::npos) << dump;
  EXPECT_NE(dump.find("0, 1, 4, 9, 16, 25"), std::string::npos) << dump;
  EXPECT_NE(dump.find("H5T_STD_I32LE"), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"cyclic\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("\"int32\""), std::string::npos) << dump;
  // The image count that wrote it, as the attribute's own value.
  const std::size_t images_attribute = dump.find("ATTRIBUTE \"pgas.images\"");
  ASSERT_NE(images_attribute, std::string::npos) << dump;
  const std::size_t value_at_attribute =
      dump.find("(0): \"" + std::to_string(pgas::num_images()) + "\"", images_attribute);
  EXPECT_LT(value_at_attribute, dump.find("ATTRIBUTE", images_attribute + 1)) << dump;
  EXPECT_NE(dump.find("DATASPACE  SIMPLE { ( 2, 3 ) / ( 2, 3 ) }"), std::string::npos) << dump;
  EXPECT_NE(dump.find("(0,0): 0.5, 1.5, 2.5,"), std::string::npos) << dump;
  EXPECT_NE(dump.find("(1,0): 10.5, 11.5, 12.5"), std::string::npos) << dump;
}

// The two halves of "written at one image count, read at another": CTest runs `write_part`
// at 3 images and then `read_part` at 2 on the file named by PGAS_HDF5_CROSS_FILE.
TEST(Hdf5Cross, write_part) {
  const char* file = std::getenv("PGAS_HDF5_CROSS_FILE");
  if (file == nullptr)
    GTEST_SKIP() << "run by CTest with PGAS_HDF5_CROSS_FILE";
  pgas::array<double, pgas::block_cyclic> a(1000, pgas::block_cyclic(3));
  fill(a);
  pgas::vector<int> v;
  for (std::size_t k = 0; k <= pgas::this_image(); ++k)
    v.push_back(static_cast<int>(10 * pgas::this_image() + k));
  v.commit();
  pgas::matrix<float> m(11, 5, 1);
  for (std::size_t i = 0; i < m.local_rows(); ++i) {
    for (std::size_t j = 0; j < 5; ++j)
      m.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) =
          static_cast<float>(m.first_row() + i) * 0.25F + static_cast<float>(j);
  }
  pgas::sync_all();
  std::error_code ec;
  if (pgas::this_image() == 0)
    fs::remove(file, ec);
  pgas::sync_all();
  pgas::hdf5::write(a, file, "/a");
  pgas::hdf5::write(v, file, "/v");
  pgas::hdf5::write(m, file, "/m");
}

TEST(Hdf5Cross, read_part) {
  const char* file = std::getenv("PGAS_HDF5_CROSS_FILE");
  if (file == nullptr)
    GTEST_SKIP() << "run by CTest with PGAS_HDF5_CROSS_FILE";
  pgas::array<double, pgas::cyclic> a(1000);
  pgas::hdf5::read(a, file, "/a");
  expect_values(a);
  pgas::vector<int> v;
  pgas::hdf5::read(v, file, "/v");
  ASSERT_EQ(v.size(), 6U);  // written by 3 images: 1 + 2 + 3 elements
  const int want[] = {0, 10, 11, 20, 21, 22};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(v[i].get(), want[i]);
  pgas::matrix<float> m(11, 5, 2);
  pgas::hdf5::read(m, file, "/m");
  for (std::size_t i = 0; i < m.local_rows(); ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      EXPECT_EQ(m.local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)),
                static_cast<float>(m.first_row() + i) * 0.25F + static_cast<float>(j));
    }
  }
  pgas::sync_all();
}

}  // namespace
