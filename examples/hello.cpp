// SPMD hello: every image says hello, writes its share of a global array, reads the whole
// array back and checks it.
#include <pgas/pgas.hpp>

#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t n = 20;
  pgas_programs::command_line app{
      "Every image writes i*i into its strided share of a global array, then every image\n"
      "reads all of it back and checks.",
      "hello"};
  app.add_option("--size", n, "elements in the global array")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const std::size_t me = pgas::this_image();
  const std::size_t images = pgas::num_images();
  std::printf("hello from image %zu of %zu\n", me, images);

  pgas::array<long> squares(n);
  for (std::size_t i = me; i < n; i += images) squares[i] = static_cast<long>(i * i);
  pgas::sync_all();

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (squares[i] != static_cast<long>(i * i))
      ++wrong;
  }
  const std::size_t total_wrong = pgas::co_sum(wrong);
  if (me == 0) {
    std::printf(
        "image 0 owns %zu of %zu elements; %s\n", squares.local().size(), n,
        total_wrong == 0 ? "every image read every element correctly" : "SOME ELEMENTS WERE WRONG");
  }
  pgas::sync_all();
  return total_wrong == 0 ? 0 : 1;
}
