// Teams, Fortran 2018 style: the images split into two teams (even and odd images); each team,
// inside its change_team scope, runs the same heat-diffusion problem on a pgas::matrix made
// inside the scope, with containers, algorithms and collectives that know only their team.
// Afterwards the whole job compares the two teams' results with co_* on the world: the same
// problem on differently split grids must give the same field.
//
//   form team (1 + mod(this_image(), 2), t);  change team (t) ... end team
#include <pgas/algorithms.hpp>

#include <cmath>
#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/heat_diffusion.hpp>

namespace {

struct result {
  double total = 0;   // the field's sum
  double middle = 0;  // the field at the grid's centre
};

// Jacobi steps of the 5-point Laplacian on an n x n grid whose top edge is held at 1, on the
// team in force. Collective over it.
result diffuse(std::size_t n, int steps) {
  pgas::matrix<double> a(n, n, 1, pgas::boundary::fixed, 0.0);
  pgas::matrix<double> b(n, n, 1, pgas::boundary::fixed, 0.0);
  heat::hold_top_edge_hot(a.cells());
  heat::hold_top_edge_hot(b.cells());
  pgas::sync_all();
  pgas::matrix<double>* from = &a;
  pgas::matrix<double>* to = &b;
  for (int it = 0; it < steps; ++it) {
    heat::step(from->cells(), to->cells());
    std::swap(from, to);
  }
  pgas::sync_all();
  double mine = 0;
  for (std::size_t i = 0; i < from->local_rows(); ++i) {
    for (std::size_t j = 0; j < n; ++j)
      mine += from->local()(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j));
  }
  return {pgas::co_sum(mine), (*from)(n / 2, n / 2).get()};
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t n = 200;
  int steps = 500;
  pgas_programs::command_line app{
      "Teams: two teams of images each run the same heat-diffusion problem alone; the whole job "
      "then compares their results.",
      "teams"};
  app.add_option("--n", n, "grid points per side")
      ->capture_default_str()
      ->check(pgas_programs::range(std::size_t{4}, std::size_t{1} << 20));
  app.add_option("--steps", steps, "diffusion steps")
      ->capture_default_str()
      ->check(pgas_programs::non_negative_number());
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;

  const std::size_t colour = pgas::this_image() % 2;
  const pgas::team t = pgas::current_team().split(static_cast<int>(colour));
  pgas::coarray<result> of_team;  // on the world: image k keeps team k's result
  {
    const pgas::change_team scope(t);  // from here on, images are numbered within the team
    const result r = diffuse(n, steps);
    if (pgas::this_image() == 0)
      of_team(colour) = r;
    if (pgas::this_image() == 0) {
      std::printf("team %zu (%zu images): total heat %.12f, centre %.12e\n", colour + 1,
                  pgas::num_images(), r.total, r.middle);
    }
  }  // end team: the team's images synchronise
  pgas::sync_all();

  // The world compares: every image reads both teams' results (one team when alone).
  const std::size_t teams = std::min<std::size_t>(2, pgas::num_images());
  const result first = of_team(0).get();
  const result last = of_team(teams - 1).get();
  const double spread = std::fabs(first.total - last.total) / std::max(1.0, std::fabs(first.total));
  const bool agree = pgas::co_max(spread) < 1e-12 &&
                     pgas::co_min(first.middle == last.middle ? 1 : 0) == 1 && first.total > 0;
  if (pgas::this_image() == 0) {
    std::printf("%zu images in %zu teams: %s\n", pgas::num_images(), teams,
                agree ? "the teams agree" : "ERROR: the teams disagree");
  }
  return agree ? 0 : 1;
}
