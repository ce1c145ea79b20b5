// The sparse kernels (pgas/sparse.hpp) beside hand-written MPI versions of the same algorithms,
// whose every exchange is an MPI_Alltoallv of items bucketed by owner: SpMV (x values asked of
// their owners once per distinct column, answered, then the rows summed), transpose (entries
// sent to their new rows' owners, rows laid out by a counting pass), permute (rperm local,
// cperm values asked of their owners, entries sent on), toposort (rounds of pivots, their
// columns sent to the columns' owners, struck entries to the rows' owners), triangles (edges
// directed by a scramble of the vertex numbers; rows' lower parts asked of their owners and
// intersected) and BFS (one exchange of (vertex, parent) per
// level). Rows are block distributed in both; the MPI versions start from the same local rows.
// Every result is checked against the other variant's.
#include <pgas/pgas.hpp>
#include <pgas/sparse.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <pgas_programs/random_matrix.hpp>
#include <span>
#include <string>
#include <vector>

namespace {

std::size_t images() {
  return pgas::num_images();
}

// This image's rows in compressed form (global columns), as the MPI versions keep them.
struct csr {
  std::size_t n = 0;  // rows (and columns: square)
  pgas::block rows;   // block layout over the images: plain arithmetic
  std::vector<std::size_t> start{0};
  std::vector<std::size_t> col;
  std::vector<double> value;
};

csr local_rows_of(const pgas::sparse_matrix<double>& m) {
  csr c;
  c.n = m.rows();
  c.rows = pgas::block{}.bind(m.rows(), images());
  for (std::size_t k = 0; k < m.local_rows(); ++k) {
    const auto r = m.row(k);
    c.col.insert(c.col.end(), r.cols.begin(), r.cols.end());
    c.value.insert(c.value.end(), r.values.begin(), r.values.end());
    c.start.push_back(c.col.size());
  }
  return c;
}

// One MPI_Alltoallv of the items bucketed by destination; what came, in source order, and (if
// asked) how many items came from each source.
template <class T>
std::vector<T> all_to_all(const std::vector<std::vector<T>>& out,
                          std::vector<std::size_t>* from_each = nullptr) {
  const std::size_t p = images();
  std::vector<int> counts(p), displs(p), rcounts(p), rdispls(p);
  std::vector<T> send;
  for (std::size_t d = 0; d < p; ++d) {
    displs[d] = static_cast<int>(send.size() * sizeof(T));
    counts[d] = static_cast<int>(out[d].size() * sizeof(T));
    send.insert(send.end(), out[d].begin(), out[d].end());
  }
  MPI_Alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t total = 0;
  for (std::size_t s = 0; s < p; ++s) {
    rdispls[s] = static_cast<int>(total);
    total += static_cast<std::size_t>(rcounts[s]);
  }
  std::vector<T> got(total / sizeof(T));
  MPI_Alltoallv(send.data(), counts.data(), displs.data(), MPI_BYTE, got.data(), rcounts.data(),
                rdispls.data(), MPI_BYTE, MPI_COMM_WORLD);
  if (from_each != nullptr) {
    from_each->resize(p);
    for (std::size_t s = 0; s < p; ++s)
      (*from_each)[s] = static_cast<std::size_t>(rcounts[s]) / sizeof(T);
  }
  return got;
}

struct placed {
  std::size_t row;
  std::size_t col;
  double value;
};

// Rows laid out from entries of this image's rows: a counting pass by row, columns sorted.
csr rows_from(std::size_t n, std::vector<placed> got) {
  csr c;
  c.n = n;
  c.rows = pgas::block{}.bind(n, images());
  const std::size_t me = pgas::this_image();
  const std::size_t local = c.rows.local_size(me);
  c.start.assign(local + 1, 0);
  for (const placed& e : got) ++c.start[c.rows.local_offset(e.row) + 1];
  for (std::size_t k = 0; k < local; ++k) c.start[k + 1] += c.start[k];
  std::vector<std::pair<std::size_t, double>> by_row(got.size());
  std::vector<std::size_t> next(c.start.begin(), c.start.end() - 1);
  for (const placed& e : got) by_row[next[c.rows.local_offset(e.row)]++] = {e.col, e.value};
  for (std::size_t k = 0; k < local; ++k) {
    std::sort(by_row.begin() + static_cast<std::ptrdiff_t>(c.start[k]),
              by_row.begin() + static_cast<std::ptrdiff_t>(c.start[k + 1]),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  c.col.resize(by_row.size());
  c.value.resize(by_row.size());
  for (std::size_t e = 0; e < by_row.size(); ++e) {
    c.col[e] = by_row[e].first;
    c.value[e] = by_row[e].second;
  }
  return c;
}

// The values a block-distributed vector holds at the distinct columns this image's rows name:
// asked of their owners (one exchange of indices, one of answers), found again by a table over
// the columns' range.
struct column_lookup {
  std::size_t first = 0;
  std::vector<std::size_t> slot;
  std::vector<double> value;
  [[nodiscard]] double operator[](std::size_t c) const { return value[slot[c - first]]; }
};

template <class V>
column_lookup ask_owners(const csr& a, const std::vector<V>& mine) {
  column_lookup l;
  const std::size_t p = images();
  if (!a.col.empty()) {
    const auto [lo, hi] = std::minmax_element(a.col.begin(), a.col.end());
    l.first = *lo;
    l.slot.assign(*hi - *lo + 1, std::numeric_limits<std::size_t>::max());
    for (const std::size_t c : a.col) l.slot[c - l.first] = 0;
  }
  std::vector<std::vector<std::size_t>> asks(p);
  std::vector<std::size_t> order;  // the columns in the order asked
  for (std::size_t c = 0; c < l.slot.size(); ++c) {
    if (l.slot[c] == 0) {
      const std::size_t col = l.first + c;
      asks[a.rows.owner(col)].push_back(col);
    }
  }
  for (std::size_t d = 0; d < p; ++d) order.insert(order.end(), asks[d].begin(), asks[d].end());
  std::vector<std::size_t> from_each;
  const std::vector<std::size_t> asked = all_to_all(asks, &from_each);
  // Answers go back in the order asked: the asker's buckets are its sources' order.
  std::vector<std::vector<double>> answers(p);
  for (std::size_t s = 0, at = 0; s < p; ++s) {
    for (std::size_t k = 0; k < from_each[s]; ++k, ++at)
      answers[s].push_back(static_cast<double>(mine[a.rows.local_offset(asked[at])]));
  }
  const std::vector<double> got = all_to_all(answers);
  l.value.resize(got.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    l.slot[order[k] - l.first] = k;
    l.value[k] = got[k];
  }
  return l;
}

std::vector<double> mpi_spmv(const csr& a, const std::vector<double>& x_mine) {
  const column_lookup x = ask_owners(a, x_mine);
  std::vector<double> y(a.start.size() - 1);
  for (std::size_t k = 0; k + 1 < a.start.size(); ++k) {
    double sum = 0;
    for (std::size_t e = a.start[k]; e < a.start[k + 1]; ++e) sum += a.value[e] * x[a.col[e]];
    y[k] = sum;
  }
  return y;
}

csr mpi_transpose(const csr& a) {
  std::vector<std::vector<placed>> out(images());
  const std::size_t me = pgas::this_image();
  for (std::size_t k = 0; k + 1 < a.start.size(); ++k) {
    const std::size_t r = a.rows.global_index(me, k);
    for (std::size_t e = a.start[k]; e < a.start[k + 1]; ++e)
      out[a.rows.owner(a.col[e])].push_back({a.col[e], r, a.value[e]});
  }
  return rows_from(a.n, all_to_all(out));
}

csr mpi_permute(const csr& a,
                const std::vector<std::size_t>& rperm_mine,
                const std::vector<std::size_t>& cperm_mine) {
  const column_lookup new_col = ask_owners(a, cperm_mine);
  std::vector<std::vector<placed>> out(images());
  for (std::size_t k = 0; k + 1 < a.start.size(); ++k) {
    const std::size_t r = rperm_mine[k];
    const std::size_t owner = a.rows.owner(r);
    for (std::size_t e = a.start[k]; e < a.start[k + 1]; ++e)
      out[owner].push_back({r, static_cast<std::size_t>(new_col[a.col[e]]), a.value[e]});
  }
  return rows_from(a.n, all_to_all(out));
}

// A fixed scramble of vertex numbers (SplitMix64's finaliser, a bijection): edges are directed
// from the larger key to the smaller, as pgas::triangle_count directs them.
std::uint64_t scramble(std::uint64_t v) {
  v += 0x9e3779b97f4a7c15ULL;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  return v ^ (v >> 31);
}

// Replaces `out` with the indices whose bits are set in `words`, ascending, and clears them.
void take_marked(std::vector<std::uint64_t>& words, std::vector<std::size_t>& out) {
  out.clear();
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1)
      out.push_back(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    words[w] = 0;
  }
}

std::uint64_t mpi_triangles(const csr& a) {
  const std::size_t p = images();
  const std::size_t me = pgas::this_image();
  // Each local row's neighbours below it, columns ascending.
  std::vector<std::size_t> lstart{0}, lcols;
  for (std::size_t k = 0; k + 1 < a.start.size(); ++k) {
    const std::uint64_t key = scramble(a.rows.global_index(me, k));
    for (std::size_t e = a.start[k]; e < a.start[k + 1]; ++e) {
      if (scramble(a.col[e]) < key)
        lcols.push_back(a.col[e]);
    }
    lstart.push_back(lcols.size());
  }
  const auto below = [&](std::size_t k) {
    return std::span<const std::size_t>(lcols.data() + lstart[k], lstart[k + 1] - lstart[k]);
  };
  // The distinct columns, ascending: marked in a bitmap over the vertices and read back where
  // it has no more words than there are columns, else sorted.
  std::vector<std::size_t> needed;
  if (a.n / 64 > lcols.size()) {
    needed = lcols;
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  } else {
    std::vector<std::uint64_t> seen((a.n + 63) / 64, 0);
    for (const std::size_t c : lcols) seen[c / 64] |= std::uint64_t{1} << (c % 64);
    take_marked(seen, needed);
  }
  std::vector<std::vector<std::size_t>> asks(p);
  for (const std::size_t j : needed) asks[a.rows.owner(j)].push_back(j);
  std::vector<std::size_t> from_each;
  const std::vector<std::size_t> asked = all_to_all(asks, &from_each);
  struct pair {
    std::size_t row, col;
  };
  std::vector<std::vector<pair>> replies(p);
  for (std::size_t s = 0, at = 0; s < p; ++s) {
    for (std::size_t q = 0; q < from_each[s]; ++q, ++at) {
      const std::size_t j = asked[at];
      for (const std::size_t c : below(a.rows.local_offset(j))) replies[s].push_back({j, c});
    }
  }
  const std::vector<pair> got = all_to_all(replies);
  // Each source's replies ascend by row (columns ascending within one): walk them with a cursor
  // into `needed`, placed again wherever a source's stretch begins; count, then place.
  const auto walk = [&](auto visit) {
    std::size_t at = 0;
    for (std::size_t e = 0; e < got.size(); ++e) {
      if (e == 0 || got[e].row < got[e - 1].row)
        at = static_cast<std::size_t>(std::lower_bound(needed.begin(), needed.end(), got[e].row) -
                                      needed.begin());
      while (needed[at] != got[e].row) ++at;
      visit(at, got[e].col);
    }
  };
  // Where each needed vertex lies in `needed` (a table over their range: they are dense), and
  // needed.size() for any other vertex.
  const std::size_t low = needed.empty() ? 0 : needed.front();
  std::vector<std::size_t> slot(needed.empty() ? 0 : needed.back() - low + 1, needed.size());
  for (std::size_t q = 0; q < needed.size(); ++q) slot[needed[q] - low] = q;
  const auto position_of = [&](std::size_t v) {
    return v >= low && v - low < slot.size() ? slot[v - low] : needed.size();
  };
  std::vector<std::size_t> start(needed.size() + 1, 0), fetched(got.size());
  walk([&](std::size_t at, std::size_t) { ++start[at + 1]; });
  for (std::size_t q = 0; q < needed.size(); ++q) start[q + 1] += start[q];
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  walk([&](std::size_t at, std::size_t col) { fetched[next[at]++] = position_of(col); });
  // Row i's lower part marked in a bitmap over `needed`; each row j's looked up in it.
  std::vector<std::uint64_t> marked(needed.size() / 64 + 1, 0);
  std::vector<std::size_t> li_at;
  std::uint64_t found = 0;
  for (std::size_t k = 0; k + 1 < a.start.size(); ++k) {
    li_at.clear();
    for (const std::size_t j : below(k)) {
      const std::size_t q = position_of(j);
      li_at.push_back(q);
      marked[q / 64] |= std::uint64_t{1} << (q % 64);
    }
    for (const std::size_t at : li_at) {
      for (std::size_t e = start[at]; e < start[at + 1]; ++e)
        found += (marked[fetched[e] / 64] >> (fetched[e] % 64)) & 1U;
    }
    for (const std::size_t q : li_at) marked[q / 64] = 0;
  }
  std::uint64_t all = 0;
  MPI_Allreduce(&found, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// Graph500's reference codes keep the frontier as a bitmap of local vertices and walk it in
// order; so does this one (rows in arrival order miss the cache on nearly every row).
std::vector<std::int64_t> mpi_bfs(const csr& a, std::size_t source) {
  const std::size_t me = pgas::this_image();
  const std::size_t local = a.start.size() - 1;
  std::vector<std::int64_t> parent(local, -1);
  std::vector<std::uint64_t> reached((local + 63) / 64, 0);
  std::vector<std::size_t> frontier;
  if (a.rows.owner(source) == me) {
    parent[a.rows.local_offset(source)] = static_cast<std::int64_t>(source);
    frontier.push_back(a.rows.local_offset(source));
  }
  struct visit {
    std::size_t vertex, parent;
  };
  std::vector<std::vector<visit>> out(images());
  for (;;) {
    unsigned long long mine = frontier.size();
    unsigned long long all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all == 0)
      break;
    for (auto& o : out) o.clear();
    for (const std::size_t k : frontier) {
      const std::size_t u = a.rows.global_index(me, k);
      for (std::size_t e = a.start[k]; e < a.start[k + 1]; ++e) {
        const std::size_t v = a.col[e];
        const std::size_t owner = a.rows.owner(v);
        if (owner == me && parent[a.rows.local_offset(v)] >= 0)
          continue;
        out[owner].push_back({v, u});
      }
    }
    for (const visit& v : all_to_all(out)) {
      const std::size_t k = a.rows.local_offset(v.vertex);
      if (parent[k] < 0) {
        parent[k] = static_cast<std::int64_t>(v.parent);
        reached[k / 64] |= std::uint64_t{1} << (k % 64);
      }
    }
    take_marked(reached, frontier);
  }
  return parent;
}

// bale's topo by rounds, as pgas::toposort does it: a row left with one non-zero (known from
// its count and the sum of its columns) is a pivot; each round's pivots take the last free
// positions (an MPI_Exscan of the counts), their columns go to the columns' owners (one
// all-to-all), who send each struck entry to its row's owner (another). `by_column` holds the
// transpose's rows (timed with it: pgas::toposort makes its own). Returns this image's (row,
// position) and (column, position) pairs.
struct placements {
  std::vector<std::pair<std::size_t, std::size_t>> rows, cols;
};
placements mpi_toposort(const csr& a, const csr& by_column) {
  const std::size_t me = pgas::this_image();
  const std::size_t n = a.n;
  const std::size_t local = a.start.size() - 1;
  std::vector<std::size_t> count(local);
  std::vector<std::uint64_t> col_sum(local, 0);
  for (std::size_t k = 0; k < local; ++k) {
    count[k] = a.start[k + 1] - a.start[k];
    for (std::size_t e = a.start[k]; e < a.start[k + 1]; ++e) col_sum[k] += a.col[e];
  }
  std::vector<unsigned char> row_placed(local, 0);
  placements out;
  struct placed_col {
    std::size_t col, position;
  };
  struct struck {
    std::size_t row, col;
  };
  std::vector<std::vector<placed_col>> to_columns(images());
  std::vector<std::vector<struck>> to_rows(images());
  std::vector<std::size_t> pivots;
  for (std::size_t placed = 0; placed < n;) {
    pivots.clear();
    for (std::size_t k = 0; k < local; ++k) {
      if (row_placed[k] == 0 && count[k] == 1)
        pivots.push_back(k);
    }
    unsigned long long mine = pivots.size(), all = 0, before = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all == 0)
      break;  // not a permuted triangle: the check below finds it
    MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
      before = 0;
    std::size_t position = n - 1 - placed - static_cast<std::size_t>(before);
    for (auto& t : to_columns) t.clear();
    for (const std::size_t k : pivots) {
      row_placed[k] = 1;
      out.rows.emplace_back(a.rows.global_index(me, k), position);
      const auto col = static_cast<std::size_t>(col_sum[k]);
      to_columns[a.rows.owner(col)].push_back({col, position--});
    }
    placed += static_cast<std::size_t>(all);
    for (auto& t : to_rows) t.clear();
    for (const placed_col& c : all_to_all(to_columns)) {
      out.cols.emplace_back(c.col, c.position);
      const std::size_t kc = by_column.rows.local_offset(c.col);
      for (std::size_t e = by_column.start[kc]; e < by_column.start[kc + 1]; ++e)
        to_rows[a.rows.owner(by_column.col[e])].push_back({by_column.col[e], c.col});
    }
    for (const struck& x : all_to_all(to_rows)) {
      const std::size_t k = a.rows.local_offset(x.row);
      --count[k];
      col_sum[k] -= x.col;
    }
  }
  return out;
}

// Whether (index, position) pairs from every image make permutations under which m is upper
// triangular with a full diagonal (pgas::permute refuses pairs that are not permutations).
bool orders_the_triangle(const pgas::sparse_matrix<double>& m, const placements& p) {
  pgas::array<std::size_t> rperm(m.rows()), cperm(m.cols());
  const auto put = [](pgas::array<std::size_t>& into, const auto& pairs) {
    std::vector<std::size_t> index, value;
    for (const auto& [i, v] : pairs) {
      index.push_back(i);
      value.push_back(v);
    }
    pgas::scatter(into, std::span<const std::size_t>(index), std::span<const std::size_t>(value));
  };
  put(rperm, p.rows);
  put(cperm, p.cols);
  pgas::sync_all();
  try {
    const auto ordered = pgas::permute(m, rperm, cperm);
    bool ok = true;
    for (std::size_t k = 0; k < ordered.local_rows(); ++k) {
      const auto row = ordered.row(k);
      ok = ok && !row.cols.empty() && row.cols.front() == ordered.global_row(k);
    }
    return pgas::co_min(ok ? 1 : 0) == 1;
  } catch (const pgas::usage_error&) {
    return false;
  }
}

// Whether an MPI version's rows equal the pgas matrix's, on every image.
bool same_rows(const csr& c, const pgas::sparse_matrix<double>& m) {
  bool ok = c.start.size() == m.local_rows() + 1;
  for (std::size_t k = 0; ok && k < m.local_rows(); ++k) {
    const auto r = m.row(k);
    ok = c.start[k + 1] - c.start[k] == r.cols.size() &&
         std::equal(r.cols.begin(), r.cols.end(),
                    c.col.begin() + static_cast<std::ptrdiff_t>(c.start[k])) &&
         std::equal(r.values.begin(), r.values.end(),
                    c.value.begin() + static_cast<std::ptrdiff_t>(c.start[k]));
  }
  return pgas::co_min(ok ? 1 : 0) == 1;
}

// Whether a parent list is a tree of the graph's edges reaching the same vertices as another.
bool same_reach(const csr& g,
                const std::vector<std::int64_t>& a,
                const std::vector<std::int64_t>& b) {
  bool ok = a.size() == b.size();
  for (std::size_t k = 0; ok && k < a.size(); ++k) {
    ok = (a[k] < 0) == (b[k] < 0);
    for (const std::vector<std::int64_t>* p : {&a, &b}) {
      const std::int64_t u = (*p)[k];
      const std::size_t v = g.rows.global_index(pgas::this_image(), k);
      if (u >= 0 && static_cast<std::size_t>(u) != v) {
        const auto first = g.col.begin() + static_cast<std::ptrdiff_t>(g.start[k]);
        const auto last = g.col.begin() + static_cast<std::ptrdiff_t>(g.start[k + 1]);
        ok = ok && std::binary_search(first, last, static_cast<std::size_t>(u));
      }
    }
  }
  return pgas::co_min(ok ? 1 : 0) == 1;
}

void pair_report(std::vector<bench::result>& results,
                 const std::string& kernel,
                 const std::string& size,
                 double pgas_seconds,
                 double mpi_seconds,
                 double work,
                 const std::string& unit,
                 bool verified) {
  results.push_back(bench::report(kernel, "pgas", size, pgas_seconds, work / pgas_seconds * 1e-6,
                                  unit, verified));
  results.push_back(bench::report(kernel, "mpi_alltoallv", size, mpi_seconds,
                                  work / mpi_seconds * 1e-6, unit, verified));
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "sparse kernels: pgas vs hand-written MPI all-to-alls",
                           {{"rows", "200000"}, {"nz_per_row", "10"}, {"graph_rows", "100000"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const int reps = static_cast<int>(opt.get("reps"));
  const std::size_t n = opt.size("rows") * images();
  const auto per_row = static_cast<double>(opt.get("nz_per_row"));
  std::vector<bench::result> results;
  const std::string size =
      "rows=" + std::to_string(n) + ",nz_per_row=" + std::to_string(opt.get("nz_per_row"));

  const auto a = pgas_programs::random_matrix(n, per_row, 17);
  const csr ac = local_rows_of(a);
  const auto work = static_cast<double>(a.nnz());
  {  // SpMV
    pgas::array<double> x(n);
    for (std::size_t k = 0; k < x.local().size(); ++k)
      x.local()[k] = static_cast<double>(x.global_index(k) % 13) - 6.0;
    x.sync();
    const std::vector<double> x_mine(x.local().begin(), x.local().end());
    pgas::array<double> y(n);
    std::vector<double> y_mpi;
    const auto t = bench::interleaved_medians(
        reps, {[&] { pgas::multiply(a, x, y); }, [&] { y_mpi = mpi_spmv(ac, x_mine); }});
    const bool ok =
        pgas::co_min(std::equal(y_mpi.begin(), y_mpi.end(), y.local().begin()) ? 1 : 0) == 1;
    pair_report(results, "spmv", size, t[0], t[1], work, "Mnonzeros/s", ok);
  }
  {  // transpose
    std::optional<pgas::sparse_matrix<double>> t_pgas;
    csr t_mpi;
    const auto t = bench::interleaved_medians(
        reps, {[&] { t_pgas.emplace(pgas::transpose(a)); }, [&] { t_mpi = mpi_transpose(ac); }});
    pair_report(results, "sparse_transpose", size, t[0], t[1], work, "Mnonzeros/s",
                same_rows(t_mpi, *t_pgas));
  }
  {  // permute
    const auto rperm = pgas::random_permutation(n, 5);
    const auto cperm = pgas::random_permutation(n, 6);
    const std::vector<std::size_t> rp(rperm.local().begin(), rperm.local().end());
    const std::vector<std::size_t> cp(cperm.local().begin(), cperm.local().end());
    std::optional<pgas::sparse_matrix<double>> p_pgas;
    csr p_mpi;
    const auto t =
        bench::interleaved_medians(reps, {[&] { p_pgas.emplace(pgas::permute(a, rperm, cperm)); },
                                          [&] { p_mpi = mpi_permute(ac, rp, cp); }});
    pair_report(results, "permute", size, t[0], t[1], work, "Mnonzeros/s",
                same_rows(p_mpi, *p_pgas));
  }
  {  // toposort of a triangle with its rows and columns scrambled, as bale's topo makes it
    const auto upper = pgas_programs::triangle_with_diagonal(n, per_row, 29);
    const auto m =
        pgas::permute(upper, pgas::random_permutation(n, 7), pgas::random_permutation(n, 8));
    const csr mc = local_rows_of(m);
    std::optional<std::pair<pgas::array<std::size_t>, pgas::array<std::size_t>>> perms;
    placements mpi;
    const auto t =
        bench::interleaved_medians(reps, {[&] { perms.emplace(pgas::toposort(m)); },
                                          [&] { mpi = mpi_toposort(mc, mpi_transpose(mc)); }});
    placements from_pgas;
    for (std::size_t k = 0; k < perms->first.local().size(); ++k) {
      from_pgas.rows.emplace_back(perms->first.global_index(k), perms->first.local()[k]);
      from_pgas.cols.emplace_back(perms->second.global_index(k), perms->second.local()[k]);
    }
    const bool ok = orders_the_triangle(m, from_pgas) && orders_the_triangle(m, mpi);
    pair_report(results, "toposort", size, t[0], t[1], static_cast<double>(m.nnz()), "Mnonzeros/s",
                ok);
  }
  const std::size_t gn = opt.size("graph_rows") * images();
  const auto g = pgas::erdos_renyi(gn, per_row, 23);
  const csr gc = local_rows_of(g);
  const std::string gsize =
      "vertices=" + std::to_string(gn) + ",degree=" + std::to_string(opt.get("nz_per_row"));
  {  // triangles
    std::uint64_t found = 0, found_mpi = 0;
    const auto t = bench::interleaved_medians(
        reps, {[&] { found = pgas::triangle_count(g); }, [&] { found_mpi = mpi_triangles(gc); }});
    pair_report(results, "triangles", gsize, t[0], t[1], static_cast<double>(g.nnz()),
                "Mnonzeros/s", found == found_mpi && pgas::co_min(found) == pgas::co_max(found));
  }
  {  // BFS from vertex 0
    std::vector<std::int64_t> parents, parents_mpi;
    std::optional<pgas::array<std::int64_t>> p;
    const auto t = bench::interleaved_medians(
        reps, {[&] { p.emplace(pgas::bfs(g, 0)); }, [&] { parents_mpi = mpi_bfs(gc, 0); }});
    parents.assign(p->local().begin(), p->local().end());
    pair_report(results, "bfs", gsize, t[0], t[1], static_cast<double>(g.nnz()) / 2, "Medges/s",
                same_reach(gc, parents, parents_mpi));
  }
  return bench::summarize(results, "pgas");
}
