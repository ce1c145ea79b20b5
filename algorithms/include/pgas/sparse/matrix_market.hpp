#pragma once
// pgas::matrix_market: sparse matrices in the Matrix Market exchange format's coordinate form
// (Boisvert, Pozo and Remington, NIST 1996), the format SciPy's mmread and mmwrite use.
// Reading: every image parses the header, then the lines whose first byte falls in its share
// of the file's body; the entries go to their rows' owners as any construction's do.
// Writing: every image formats its own rows, a prefix sum gives each its offset, and each
// writes its bytes there; image 0 writes the header.

#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/sparse/sparse_matrix.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace pgas::matrix_market {

namespace detail {

enum class symmetry { general, symmetric, skew_symmetric };

struct header {
  bool pattern = false;  // no values: every entry is 1
  symmetry kind = symmetry::general;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t nnz = 0;
  std::size_t body = 0;  // the byte where the entries begin
};

// A file this image opened, closed however it is left.
class file {
 public:
  file(const std::string& path, int flags) : fd_{::open(path.c_str(), flags | O_CLOEXEC, 0644)} {}
  file(const file&) = delete;
  file& operator=(const file&) = delete;
  ~file() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  int fd_;
};

[[nodiscard]] inline std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// The bytes [from, from + n) of the file, fewer at its end.
[[nodiscard]] inline std::string read_bytes(int fd, std::size_t from, std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(from + got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(got);
  return out;
}

// Words of a line, split at blanks.
[[nodiscard]] inline std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
    std::size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    if (end > at)
      out.push_back(line.substr(at, end - at));
    at = end;
  }
  return out;
}

template <class V>
[[nodiscard]] bool parse(std::string_view w, V& out) {
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
  return ec == std::errc{} && end == w.data() + w.size();
}

// The banner, the comments and the size line; an error's words, or nothing.
[[nodiscard]] inline std::optional<std::string> read_header(int fd,
                                                            const std::string& path,
                                                            header& h) {
  std::size_t at = 0;
  std::string line;
  const auto next_line = [&]() -> bool {
    line.clear();
    for (;;) {
      const std::string chunk = read_bytes(fd, at, 4096);
      if (chunk.empty())
        return !line.empty();
      const auto nl = chunk.find('\n');
      if (nl != std::string::npos) {
        line += chunk.substr(0, nl);
        at += nl + 1;
        return true;
      }
      line += chunk;
      at += chunk.size();
    }
  };
  const std::string where = "pgas::matrix_market::read: " + path + ": ";
  if (!next_line())
    return where + "the file is empty";
  const auto banner = words(line);
  if (banner.size() != 5 || lowered(banner[0]) != "%%matrixmarket" ||
      lowered(banner[1]) != "matrix" || lowered(banner[2]) != "coordinate") {
    return where +
           "not a Matrix Market coordinate matrix (the first line must read \"%%MatrixMarket "
           "matrix coordinate <field> <symmetry>\")";
  }
  const std::string field = lowered(banner[3]);
  const std::string sym = lowered(banner[4]);
  if (field == "pattern") {
    h.pattern = true;
  } else if (field != "real" && field != "integer" && field != "double") {
    return where + "the field \"" + field + "\" is not read (real, integer or pattern are)";
  }
  if (sym == "symmetric") {
    h.kind = symmetry::symmetric;
  } else if (sym == "skew-symmetric") {
    h.kind = symmetry::skew_symmetric;
  } else if (sym != "general") {
    return where + "the symmetry \"" + sym +
           "\" is not read (general, symmetric or skew-symmetric are)";
  }
  do {
    if (!next_line())
      return where + "the size line is missing";
  } while (line.empty() || line[0] == '%' || words(line).empty());
  const auto size = words(line);
  if (size.size() != 3 || !parse(size[0], h.rows) || !parse(size[1], h.cols) ||
      !parse(size[2], h.nnz)) {
    return where + "the size line \"" + line + "\" is not three counts";
  }
  h.body = at;
  return std::nullopt;
}

}  // namespace detail

/// The matrix in the Matrix Market file at `path` (coordinate; real, integer or pattern;
/// general, symmetric or skew-symmetric), rows block distributed over the team in force.
/// Every image reads its share of the file. Indices in the file count from 1; repeated entries
/// are summed. io_error on every image for a file that cannot be read or is not such a file
/// (the message names the line), out_of_range for an entry outside the stated shape.
/// Collective.
template <class T>
[[nodiscard]] sparse_matrix<T> read(const std::string& path) {
  static_assert(std::is_arithmetic_v<T>, "Matrix Market files hold numbers");
  const pgas::team& t = current_team();
  const MPI_Comm comm = t.native();
  detail::file f(path, O_RDONLY);
  detail::header h;
  std::optional<std::string> bad;
  if (!f.is_open()) {
    bad = "pgas::matrix_market::read: cannot open " + path + ": " + std::strerror(errno);
  } else {
    bad = detail::read_header(f.fd(), path, h);
  }
  if (const auto failed = runtime::first_failure(bad, comm))
    throw io_error(*failed);
  const off_t end = ::lseek(f.fd(), 0, SEEK_END);
  const std::size_t body =
      end > 0 ? static_cast<std::size_t>(end) - std::min(h.body, static_cast<std::size_t>(end)) : 0;
  const std::size_t me = t.this_image();
  const std::size_t p = t.size();
  const std::size_t from = h.body + body / p * me + std::min(me, body % p);
  const std::size_t to = h.body + body / p * (me + 1) + std::min(me + 1, body % p);
  // A line is this image's if its first byte is in [from, to): read on to the end of the last.
  std::string text = detail::read_bytes(f.fd(), from, to - from);
  for (std::size_t past = to;; past += 4096) {
    if (text.empty() || text.back() == '\n')
      break;
    const std::string more = detail::read_bytes(f.fd(), past, 4096);
    if (more.empty())
      break;
    const auto nl = more.find('\n');
    text += more.substr(0, nl == std::string::npos ? more.size() : nl + 1);
    if (nl != std::string::npos)
      break;
  }
  std::size_t at = 0;
  if (from > h.body && detail::read_bytes(f.fd(), from - 1, 1) != "\n") {
    // The line begun before this share is the previous image's.
    const auto nl = text.find('\n');
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  std::vector<entry<T>> entries;
  std::size_t lines = 0;
  while (at < text.size() && !bad) {
    const auto nl = text.find('\n', at);
    const std::string_view line(text.data() + at,
                                (nl == std::string::npos ? text.size() : nl) - at);
    const std::size_t line_start = from + at;
    at = nl == std::string::npos ? text.size() : nl + 1;
    const auto w = detail::words(line);
    if (w.empty() || w[0][0] == '%')
      continue;
    ++lines;
    std::size_t r = 0;
    std::size_t c = 0;
    T v = T{1};
    const bool ok = w.size() == (h.pattern ? 2U : 3U) && detail::parse(w[0], r) &&
                    detail::parse(w[1], c) && (h.pattern || detail::parse(w[2], v)) && r >= 1 &&
                    c >= 1;
    if (!ok) {
      bad = "pgas::matrix_market::read: " + path + ": the entry \"" + std::string(line) +
            "\" at byte " + std::to_string(line_start) + " is not \"row col" +
            (h.pattern ? "" : " value") + "\" counted from 1";
      break;
    }
    entries.push_back({r - 1, c - 1, v});
    if (h.kind != detail::symmetry::general && r != c)
      entries.push_back(
          {c - 1, r - 1, h.kind == detail::symmetry::symmetric ? v : static_cast<T>(-v)});
  }
  if (const auto failed = runtime::first_failure(bad, comm))
    throw io_error(*failed);
  const auto total =
      runtime::allreduce(static_cast<unsigned long long>(lines), runtime::reduce_op::sum, comm);
  if (total != h.nnz) {
    throw io_error("pgas::matrix_market::read: " + path + ": the size line promises " +
                   std::to_string(h.nnz) + " entries, the file holds " + std::to_string(total));
  }
  return sparse_matrix<T>(h.rows, h.cols, std::span<const entry<T>>(entries));
}

/// Writes m to `path` as a Matrix Market coordinate matrix (real general, or integer general
/// for integral T), entries in row order, values exact (shortest round-trip form). io_error on
/// every image if the file cannot be written. Collective over m's team.
template <class T, distribution Dist>
void write(const sparse_matrix<T, Dist>& m, const std::string& path) {
  static_assert(std::is_arithmetic_v<T>, "Matrix Market files hold numbers");
  const MPI_Comm comm = m.team().native();
  const std::size_t me = m.team().this_image();
  std::string text;
  if (me == 0) {
    text = std::string("%%MatrixMarket matrix coordinate ") +
           (std::is_integral_v<T> ? "integer" : "real") + " general\n" + std::to_string(m.rows()) +
           " " + std::to_string(m.cols()) + " " + std::to_string(m.nnz()) + "\n";
  }
  char number[64];
  const auto append = [&](auto v) {
    const auto [end, ec] = std::to_chars(number, number + sizeof number, v);
    text.append(number, end);
  };
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto r = m.row(k);
    for (std::size_t j = 0; j < r.cols.size(); ++j) {
      append(m.global_row(k) + 1);
      text += ' ';
      append(r.cols[j] + 1);
      text += ' ';
      if constexpr (std::is_same_v<T, bool>) {
        append(static_cast<int>(r.values[j]));
      } else {
        append(r.values[j]);
      }
      text += '\n';
    }
  }
  const auto offset = runtime::exclusive_prefix(static_cast<unsigned long long>(text.size()),
                                                runtime::reduce_op::sum, 0ULL, comm);
  std::optional<std::string> bad;
  const auto failed_to = [&](const char* what) {
    bad = "pgas::matrix_market::write: cannot " + std::string(what) + " " + path + ": " +
          std::strerror(errno);
  };
  if (me == 0) {
    const detail::file created(path, O_WRONLY | O_CREAT | O_TRUNC);
    if (!created.is_open())
      failed_to("create");
  }
  if (const auto failed = runtime::first_failure(bad, comm))
    throw io_error(*failed);
  {
    const detail::file f(path, O_WRONLY);
    if (!f.is_open())
      failed_to("open");
    for (std::size_t done = 0; f.is_open() && done < text.size();) {
      const ssize_t w = ::pwrite(f.fd(), text.data() + done, text.size() - done,
                                 static_cast<off_t>(offset + done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        failed_to("write");
        break;
      }
      done += static_cast<std::size_t>(w);
    }
    if (f.is_open() && ::fsync(f.fd()) != 0 && errno != EINVAL)
      failed_to("flush");
  }
  if (const auto failed = runtime::first_failure(bad, comm))
    throw io_error(*failed);
}

}  // namespace pgas::matrix_market
