// A growable pgas::vector: each image appends a different number of values per round and
// commits; then every image reads the whole vector, and the vector is resized and sorted.
#include <pgas/algorithms.hpp>

#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  int rounds = 100;
  pgas_programs::command_line app{
      "Rounds of uneven appends and commits to a pgas::vector, then a global check, a\n"
      "resize and a sort.",
      "vector_growth"};
  app.add_option("--rounds", rounds, "rounds of appends")
      ->capture_default_str()
      ->check(pgas_programs::non_negative_number());
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const std::size_t me = pgas::this_image();
  pgas::vector<long> v;
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k <= me; ++k)
      v.push_back(static_cast<long>(me * 1000000 + static_cast<std::size_t>(r) * 10 + k));
    v.commit();
  }
  // Everyone reads everything: image 0's values first, then image 1's, ...
  std::size_t wrong = 0;
  std::size_t i = 0;
  for (std::size_t img = 0; img < pgas::num_images(); ++img) {
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t k = 0; k <= img; ++k, ++i) {
        if (v[i] != static_cast<long>(img * 1000000 + static_cast<std::size_t>(r) * 10 + k))
          ++wrong;
      }
    }
  }
  const std::size_t total = v.size();
  v.resize(total + 10, -1L);
  pgas::sort(v);
  const bool ok = pgas::co_sum(wrong) == 0 && v.size() == total + 10 && v[0] == -1L &&
                  pgas::count(v, -1L) == 10;
  if (me == 0) {
    std::printf("vector_growth: %d commits, %zu elements, room for %zu on image 0: %s\n", rounds,
                total, v.capacity(),
                ok ? "every image read every element; resized and sorted" : "WRONG");
  }
  return ok ? 0 : 1;
}
