#pragma once
// A file name of one launch's own in the system's temporary directory (image 0's process number,
// which every image learns), removed when the test is done with it; for tests that write files
// every image then reads.
#include <pgas/pgas.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace pgas_test {

class scratch_file {
 public:
  /// Collective.
  explicit scratch_file(const std::string& name) {
    const long pid = pgas::co_broadcast(static_cast<long>(::getpid()), 0);
    path_ =
        std::filesystem::temp_directory_path() / ("pgas_test_" + std::to_string(pid) + "_" + name);
  }
  scratch_file(const scratch_file&) = delete;
  scratch_file& operator=(const scratch_file&) = delete;
  /// Collective: every image is done with the file before image 0 removes it.
  ~scratch_file() {
    pgas::sync_all();
    std::error_code ec;
    if (pgas::this_image() == 0)
      std::filesystem::remove(path_, ec);
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string name() const { return path_.string(); }
  /// Image 0 writes `text` into the file; every image waits for it. Collective.
  void holds(const std::string& text) const {
    if (pgas::this_image() == 0)
      std::ofstream(path_) << text;
    pgas::sync_all();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace pgas_test
