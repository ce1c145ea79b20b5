// Graph500's breadth-first search benchmark (kernel 2) on pgas: an R-MAT graph of 2^scale
// vertices and edge factor 16 (pgas::rmat), searched from --roots roots drawn at random among
// the vertices that have an edge; every search validated by Graph500's rules; TEPS reported as
// Graph500 reports them: the harmonic mean, and the quartiles with the time's. Only the search
// is timed. Edges counted per search: those of the graph (each once, repeats and loops already
// gone) with an end in the searched component.
#include <pgas/pgas.hpp>
#include <pgas/sparse.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/random_matrix.hpp>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

// The levels of a parent array (-1 where unreached), or the first vertex whose parents do not
// lead to the root without a cycle. Serial on every image: validation only.
struct levels_or_fault {
  std::vector<std::int64_t> level;
  std::string fault;
};

levels_or_fault levels_of(const std::vector<std::int64_t>& parent, std::size_t root) {
  const std::size_t n = parent.size();
  levels_or_fault out{std::vector<std::int64_t>(n, -1), {}};
  if (parent[root] != static_cast<std::int64_t>(root)) {
    out.fault = "the root is not its own parent";
    return out;
  }
  out.level[root] = 0;
  std::vector<std::size_t> path;
  for (std::size_t v = 0; v < n; ++v) {
    if (parent[v] < 0 || out.level[v] >= 0)
      continue;
    path.clear();
    std::size_t at = v;
    while (out.level[at] < 0) {
      path.push_back(at);
      const std::int64_t p = parent[at];
      if (p < 0 || static_cast<std::size_t>(p) >= n || path.size() > n) {
        out.fault = "vertex " + std::to_string(v) + "'s parents do not lead to the root";
        return out;
      }
      at = static_cast<std::size_t>(p);
    }
    for (std::size_t i = 0; i < path.size(); ++i)
      out.level[path[i]] = out.level[at] + static_cast<std::int64_t>(path.size() - i);
  }
  return out;
}

// Graph500's rules, checked by each image for its rows: the tree is a tree (levels_of), every
// tree edge joins levels one apart and is an edge of the graph, every graph edge joins levels
// at most one apart, and the tree spans the root's component. Returns the first fault found on
// any image (empty when valid) and, through `edges`, the graph's edges in the component.
std::string validate(const pgas::sparse_matrix<double>& g,
                     const std::vector<std::int64_t>& parent,
                     std::size_t root,
                     std::uint64_t& edges) {
  const levels_or_fault l = levels_of(parent, root);
  std::string fault = l.fault;
  std::uint64_t ends = 0;
  for (std::size_t k = 0; k < g.local_rows() && fault.empty(); ++k) {
    const std::size_t u = g.global_row(k);
    const auto cols = g.row(k).cols;
    const std::int64_t lu = l.level[u];
    if (lu >= 0)
      ends += cols.size();
    for (const std::size_t v : cols) {
      const std::int64_t lv = l.level[v];
      if ((lu < 0) != (lv < 0)) {
        fault = "edge " + std::to_string(u) + "-" + std::to_string(v) +
                " leaves the searched component";
      } else if (lu >= 0 && (lu - lv > 1 || lv - lu > 1)) {
        fault = "edge " + std::to_string(u) + "-" + std::to_string(v) + " joins levels " +
                std::to_string(lu) + " and " + std::to_string(lv);
      }
    }
    if (lu > 0) {
      const auto p = static_cast<std::size_t>(parent[u]);
      if (!std::binary_search(cols.begin(), cols.end(), p))
        fault = "vertex " + std::to_string(u) + "'s parent " + std::to_string(p) +
                " is not a neighbour";
      else if (l.level[p] != lu - 1)
        fault = "vertex " + std::to_string(u) + "'s parent is not a level above it";
    }
  }
  edges = pgas::co_sum(ends) / 2;  // each edge is stored both ways
  const std::size_t bad = pgas::co_sum(fault.empty() ? std::size_t{0} : std::size_t{1});
  if (bad == 0)
    return {};
  return fault.empty() ? "another image found a fault" : fault;
}

// The value at fraction q of sorted values (Graph500's quartiles interpolate likewise).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  unsigned scale = 16;
  std::size_t edge_factor = 16;
  std::size_t roots = 16;
  std::uint64_t seed = 2;
  pgas_programs::command_line app{
      "Graph500 BFS (kernel 2) on an R-MAT graph, every search validated.", "graph500"};
  app.add_option("--scale", scale, "2^scale vertices")
      ->capture_default_str()
      ->check(pgas_programs::range(1U, 40U));
  app.add_option("--edge-factor", edge_factor, "edges per vertex")->capture_default_str();
  app.add_option("--roots", roots, "searches (Graph500 runs 64)")
      ->capture_default_str()
      ->check(pgas_programs::positive_number());
  app.add_option("--seed", seed, "the graph's and the roots' seed")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const double t0 = MPI_Wtime();
  const pgas::sparse_matrix<double> g = pgas::rmat(scale, edge_factor, seed);
  const double build = pgas::co_max(MPI_Wtime() - t0);
  const std::size_t n = g.rows();
  // Which vertices have an edge, known to every image, to draw roots from.
  pgas::array<std::uint8_t> has_edge(n);
  for (std::size_t k = 0; k < g.local_rows(); ++k)
    has_edge.local()[k] = g.row(k).cols.empty() ? 0 : 1;
  has_edge.sync();
  std::vector<std::uint8_t> with_edge(n);
  pgas::get(has_edge, 0, std::span<std::uint8_t>(with_edge));
  const auto candidates =
      static_cast<std::size_t>(std::count(with_edge.begin(), with_edge.end(), 1));
  std::vector<std::size_t> chosen;
  std::set<std::size_t> taken;
  std::uint64_t state = seed;
  while (chosen.size() < std::min(roots, candidates)) {
    const std::size_t v = pgas_programs::next_random(state) % n;
    if (with_edge[v] != 0 && taken.insert(v).second)
      chosen.push_back(v);
  }
  std::vector<double> seconds, teps;
  std::string fault;
  for (const std::size_t root : chosen) {
    pgas::sync_all();
    const double s0 = MPI_Wtime();
    const pgas::array<std::int64_t> parent = pgas::bfs(g, root);
    const double s = pgas::co_max(MPI_Wtime() - s0);
    std::vector<std::int64_t> all(n);
    pgas::get(parent, 0, std::span<std::int64_t>(all));
    std::uint64_t edges = 0;
    fault = validate(g, all, root, edges);
    if (!fault.empty()) {
      fault = "root " + std::to_string(root) + ": " + fault;
      break;
    }
    seconds.push_back(s);
    teps.push_back(static_cast<double>(edges) / s);
  }
  if (pgas::this_image() == 0) {
    std::printf(
        "graph500: scale %u, edge factor %zu: %zu vertices, %zu edges, built in %.3f s on %zu "
        "images\n",
        scale, edge_factor, n, g.nnz() / 2, build, pgas::num_images());
    if (fault.empty() && !teps.empty()) {
      double inverse_sum = 0;
      for (const double t : teps) inverse_sum += 1.0 / t;
      std::printf("  %zu searches, all valid\n", teps.size());
      std::printf("  time  min %.6f  q1 %.6f  median %.6f  q3 %.6f  max %.6f s\n",
                  quantile(seconds, 0), quantile(seconds, 0.25), quantile(seconds, 0.5),
                  quantile(seconds, 0.75), quantile(seconds, 1));
      std::printf("  TEPS  min %.4g  q1 %.4g  median %.4g  q3 %.4g  max %.4g\n", quantile(teps, 0),
                  quantile(teps, 0.25), quantile(teps, 0.5), quantile(teps, 0.75),
                  quantile(teps, 1));
      std::printf("  harmonic mean TEPS %.4g\n", static_cast<double>(teps.size()) / inverse_sum);
    } else {
      std::printf("  FAILED validation: %s\n",
                  fault.empty() ? "no root has an edge" : fault.c_str());
    }
  }
  return fault.empty() && !teps.empty() ? 0 : 1;
}
