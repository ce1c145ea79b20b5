#pragma once
// Checkpoints of a run on 2-D pgas::ndarray fields, in one HDF5 file: the fields as datasets, and
// what the run was (its step, its shape, the settings that must match) in /checkpoint/about.
// A checkpoint is written under a temporary name and renamed, so a kill during the write
// leaves the previous checkpoint whole.

#include <pgas/hdf5.hpp>
#include <pgas/pgas.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace pgas_programs {

/// What a run is, as far as a restart must match it (`settings`, e.g. mode and radius), and
/// how far it got (`step`).
struct run_position {
  std::int64_t step = 0;
  std::vector<std::int64_t> settings;
};

/// The fields a checkpoint holds: a dataset name for each 2-D field.
template <class T>
using named_fields = std::vector<std::pair<std::string, pgas::ndarray<T, 2>*>>;

namespace detail {
// The checkpoint format's version, then step, rows, cols, the run's settings.
constexpr std::int64_t checkpoint_format = 1;
}  // namespace detail

/// Collective: writes `fields` and `at` to `file` (via `file`.tmp, renamed once complete).
/// Throws pgas::io_error on every image if writing or renaming fails; `file` is then as it was.
template <class T>
void save_checkpoint(const std::filesystem::path& file,
                     const run_position& at,
                     const named_fields<T>& fields) {
  std::filesystem::path temporary = file;
  temporary += ".tmp";
  std::error_code ec;
  if (pgas::this_image() == 0)
    std::filesystem::remove(temporary, ec);  // a kill's leftover
  pgas::sync_all();
  const auto& first = *fields.front().second;
  std::vector<std::int64_t> about{detail::checkpoint_format, at.step,
                                  static_cast<std::int64_t>(first.extent(0)),
                                  static_cast<std::int64_t>(first.extent(1))};
  about.insert(about.end(), at.settings.begin(), at.settings.end());
  pgas::array<std::int64_t> record(about.size());
  for (std::size_t k = 0; k < record.local().size(); ++k)
    record.local()[k] = about[record.global_index(k)];
  pgas::sync_all();
  pgas::hdf5::write(record, temporary, "/checkpoint/about");
  for (const auto& [name, field] : fields) pgas::hdf5::write(*field, temporary, name);
  bool renamed = true;
  if (pgas::this_image() == 0) {
    std::filesystem::rename(temporary, file, ec);
    renamed = !ec;
  }
  if (!pgas::co_broadcast(renamed, 0)) {
    throw pgas::io_error("checkpoint: cannot rename " + temporary.string() + " to " +
                         file.string());
  }
}

/// Collective: reads `fields` from checkpoint `file` and returns the step it was taken at.
/// Throws pgas::usage_error on every image if the checkpoint is of another format, shape or
/// settings than `expected` says and the fields have; pgas::io_error as pgas::hdf5::read does.
template <class T>
std::int64_t restore_checkpoint(const std::filesystem::path& file,
                                const run_position& expected,
                                const named_fields<T>& fields) {
  const auto& first = *fields.front().second;
  pgas::vector<std::int64_t> record;
  pgas::hdf5::read(record, file, "/checkpoint/about");
  std::vector<std::int64_t> about(record.size());
  for (std::size_t k = 0; k < about.size(); ++k) about[k] = record[k].get();
  pgas::sync_all();
  if (about.size() != 4 + expected.settings.size() || about[0] != detail::checkpoint_format) {
    throw pgas::usage_error("checkpoint " + file.string() + " is not a checkpoint of this program");
  }
  if (about[2] != static_cast<std::int64_t>(first.extent(0)) ||
      about[3] != static_cast<std::int64_t>(first.extent(1))) {
    throw pgas::usage_error("checkpoint " + file.string() + " holds a " + std::to_string(about[2]) +
                            " x " + std::to_string(about[3]) + " grid; this run has " +
                            std::to_string(first.extent(0)) + " x " +
                            std::to_string(first.extent(1)));
  }
  for (std::size_t k = 0; k < expected.settings.size(); ++k) {
    if (about[4 + k] != expected.settings[k]) {
      throw pgas::usage_error("checkpoint " + file.string() +
                              " was written with other settings (mode or radius) "
                              "than this run's");
    }
  }
  for (const auto& [name, field] : fields) pgas::hdf5::read(*field, file, name);
  return about[1];
}

}  // namespace pgas_programs
