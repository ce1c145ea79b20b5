#pragma once
// A 2-D field as a PNG picture with its colour scale: values coloured black - red - yellow -
// white from the least to the greatest, a bar of those colours beside the field, and the values
// at five marks of the bar. Drawn and encoded by libgd (its built-in font for the numbers).

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <gd.h>
#include <gdfonts.h>
#include <memory>
#include <string>
#include <vector>

namespace pgas_programs {

namespace detail {

// The colour of t in [0, 1]: black, red, yellow, white.
inline int heat_colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const auto channel = [](double x) { return static_cast<int>(255 * std::clamp(x, 0.0, 1.0)); };
  return gdTrueColor(channel(3 * t), channel(3 * t - 1), channel(3 * t - 2));
}

}  // namespace detail

/// Writes rows x cols values (row-major) to `path`. Small fields are enlarged so the scale's
/// numbers fit beside them. Returns false if the file cannot be written. Local.
inline bool write_field_png(const std::vector<float>& field,
                            std::size_t rows,
                            std::size_t cols,
                            const std::string& path) {
  if (rows == 0 || cols == 0 || field.size() != rows * cols)
    return false;
  const auto [lo_it, hi_it] = std::minmax_element(field.begin(), field.end());
  const double lo = *lo_it;
  const double hi = *hi_it;
  const double span = hi > lo ? hi - lo : 1.0;
  const int zoom = static_cast<int>(
      std::max<std::size_t>(1, 200 / std::min(rows, cols) + (std::min(rows, cols) < 200 ? 1 : 0)));
  const int width = static_cast<int>(cols) * zoom;
  const int height = static_cast<int>(rows) * zoom;
  const gdFontPtr font = gdFontGetSmall();
  const int bar_left = width + 12;
  const int bar_width = 16;
  const int margin = font->h;  // room above and below the bar for the end labels
  const int picture_width = bar_left + bar_width + 8 + 10 * font->w;
  const int picture_height = std::max(height, 5 * font->h) + 2 * margin;
  std::unique_ptr<gdImage, void (*)(gdImagePtr)> im(
      gdImageCreateTrueColor(picture_width, picture_height), gdImageDestroy);
  if (!im)
    return false;
  const int white = gdTrueColor(255, 255, 255);
  const int black = gdTrueColor(0, 0, 0);
  gdImageFilledRectangle(im.get(), 0, 0, picture_width - 1, picture_height - 1, white);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const int c = detail::heat_colour((field[i * cols + j] - lo) / span);
      const int x = static_cast<int>(j) * zoom;
      const int y = margin + static_cast<int>(i) * zoom;
      gdImageFilledRectangle(im.get(), x, y, x + zoom - 1, y + zoom - 1, c);
    }
  }
  // The bar: greatest value at the top.
  const int bar_top = margin;
  const int bar_height = picture_height - 2 * margin;
  for (int y = 0; y < bar_height; ++y) {
    const double t = 1.0 - static_cast<double>(y) / std::max(1, bar_height - 1);
    gdImageLine(im.get(), bar_left, bar_top + y, bar_left + bar_width - 1, bar_top + y,
                detail::heat_colour(t));
  }
  gdImageRectangle(im.get(), bar_left, bar_top, bar_left + bar_width - 1, bar_top + bar_height - 1,
                   black);
  for (int k = 0; k <= 4; ++k) {
    const double t = k / 4.0;
    const int y = bar_top + static_cast<int>((1.0 - t) * (bar_height - 1));
    gdImageLine(im.get(), bar_left + bar_width, y, bar_left + bar_width + 4, y, black);
    char label[32];
    std::snprintf(label, sizeof label, "%.4g", lo + t * (hi - lo));
    gdImageString(im.get(), font, bar_left + bar_width + 7, y - font->h / 2,
                  reinterpret_cast<unsigned char*>(label), black);
  }
  int bytes = 0;
  std::unique_ptr<void, void (*)(void*)> png(gdImagePngPtr(im.get(), &bytes), gdFree);
  if (!png)
    return false;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    return false;
  const bool written = std::fwrite(png.get(), 1, static_cast<std::size_t>(bytes), f) ==
                       static_cast<std::size_t>(bytes);
  return std::fclose(f) == 0 && written;
}

}  // namespace pgas_programs
