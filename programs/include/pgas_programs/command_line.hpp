#pragma once
// Command lines of the examples and benchmarks, parsed by CLI11 the same way on every image.

#include <pgas/runtime/environment.hpp>

#include <CLI/CLI.hpp>
#include <optional>

namespace pgas_programs {

/// Parses argv into `app`'s options. Returns nothing when the program should run on, or the
/// exit code when it should stop: 0 after --help, non-zero for an unknown or malformed
/// argument. Every image parses the same argv, so every image stops alike; only image 0 prints
/// the help or the error.
[[nodiscard]] inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (pgas::this_image() == 0)
      return app.exit(e);
    return e.get_exit_code();
  }
}

}  // namespace pgas_programs
