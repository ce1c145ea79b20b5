// Teams, Fortran 2018 style: the images split into `--teams` teams, each team estimates pi on
// its own (a midpoint rule over its share of [0, 1], with as many intervals as the team has
// images times --intervals), with containers, algorithms and collectives that know only their
// team; then the world compares the teams' answers.
//
//   form team (1 + mod(this_image(), teams), t);  change team (t) ... end team
#include <pgas/algorithms.hpp>

#include <cmath>
#include <cstdio>

#include <pgas_programs/command_line.hpp>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t teams = 2;
  std::size_t intervals = 1000000;
  CLI::App app{"Teams: each team of images estimates pi by itself, then the world compares.", "teams"};
  app.add_option("--teams", teams, "how many teams to split the images into")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--intervals", intervals, "midpoint-rule intervals per image")->capture_default_str()->check(CLI::PositiveNumber);
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv)) return *stop;

  const std::size_t world_images = pgas::num_images();
  const auto colour = static_cast<int>(pgas::this_image() % teams);
  const pgas::team t = pgas::current_team().split(colour);
  pgas::coarray<double> estimate_of_team(0.0);  // a world coarray: image k keeps team k's answer
  {
    const pgas::change_team scope(t);  // from here on, images are numbered within the team
    const std::size_t n = intervals * pgas::num_images();
    pgas::array<double> heights(n);  // lives on the team: block-distributed over its images
    for (std::size_t k = 0; k < heights.local().size(); ++k) {
      const double x = (static_cast<double>(heights.global_index(k)) + 0.5) / static_cast<double>(n);
      heights.local()[k] = 4.0 / (1.0 + x * x);
    }
    pgas::sync_all();  // the team's images only
    const double pi = pgas::reduce(heights) / static_cast<double>(n);
    // The team's first image reports to the world image numbered like the team; the coarray
    // was made on the world, so its image numbers are the world's, whatever scope is in force.
    if (pgas::this_image() == 0) estimate_of_team(static_cast<std::size_t>(colour)) = pi;
  }  // end team: the team's images synchronise
  pgas::sync_all();  // the world's

  bool ok = true;
  const std::size_t formed = std::min(teams, world_images);
  if (pgas::this_image() == 0) {
    std::printf("%zu images in %zu teams\n", world_images, formed);
    for (std::size_t k = 0; k < formed; ++k) {
      const double pi = estimate_of_team(k).get();
      const bool close = std::fabs(pi - M_PI) < 1e-9;
      ok = ok && close;
      std::printf("team %zu: pi ~ %.12f (error %.1e) %s\n", k + 1, pi, std::fabs(pi - M_PI), close ? "" : "WRONG");
    }
  }
  ok = pgas::co_broadcast(ok, 0);
  if (pgas::this_image() == 0) std::printf("%s\n", ok ? "every team agrees" : "ERROR: a team is wrong");
  return ok ? 0 : 1;
}
