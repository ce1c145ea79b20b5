#pragma once
// The --grid RxC option of the 2-D examples and benchmarks: a process grid of R x C images.

#include <pgas/grid.hpp>
#include <pgas/runtime/environment.hpp>

#include <cstddef>
#include <pgas_programs/command_line.hpp>
#include <string>

namespace pgas_programs {

/// Adds `--grid RxC` to app, checked to be two positive numbers whose product is the number of
/// images; `chosen` keeps "" when the option is not given.
inline option* add_grid_option(command_line& app, std::string& chosen, const std::string& about) {
  return app.add_option("--grid", chosen, about)->check([](const std::string& text) -> std::string {
    const auto x = text.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == text.size() ||
        text.find_first_not_of("0123456789x") != std::string::npos ||
        text.find('x', x + 1) != std::string::npos) {
      return "a grid is R x C images, written like 2x1";
    }
    const std::size_t r = std::stoul(text.substr(0, x));
    const std::size_t c = std::stoul(text.substr(x + 1));
    if (r == 0 || c == 0 || r * c != pgas::num_images()) {
      return "a " + text + " grid holds " + std::to_string(r * c) + " images; this run has " +
             std::to_string(pgas::num_images());
    }
    return "";
  });
}

/// The grid `text` names ("RxC", as checked above), or `otherwise` for "".
inline pgas::grid<2> grid_of(const std::string& text, const pgas::grid<2>& otherwise) {
  if (text.empty())
    return otherwise;
  const auto x = text.find('x');
  return pgas::grid({std::stoul(text.substr(0, x)), std::stoul(text.substr(x + 1))});
}

/// "R x C" for output.
inline std::string grid_text(const pgas::grid<2>& g) {
  return std::to_string(g.extent(0)) + " x " + std::to_string(g.extent(1));
}

}  // namespace pgas_programs
