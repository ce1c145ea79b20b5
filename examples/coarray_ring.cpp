// A token travels around the images in a ring: each image waits for its left neighbour with
// sync_images, adds its own number to the token and hands it to its right neighbour.
#include <pgas/pgas.hpp>

#include <cstdio>
#include <pgas_programs/command_line.hpp>
#include <string>

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  int laps = 3;
  pgas_programs::command_line app{
      "Passes a token around all images with a coarray and sync_images; each image adds\n"
      "its number. Image 0 checks the total.",
      "coarray_ring"};
  app.add_option("--laps", laps, "times around the ring")
      ->capture_default_str()
      ->check(pgas_programs::non_negative_number());
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const std::size_t me = pgas::this_image();
  const std::size_t n = pgas::num_images();
  const std::size_t right = (me + 1) % n;
  const std::size_t left = (me + n - 1) % n;
  pgas::coarray<long> token(0);
  for (int lap = 0; lap < laps; ++lap) {
    if (me == 0) {
      token(right) = *token;  // image 0 adds nothing and starts the lap
      if (n > 1) {
        pgas::sync_images({right});
        pgas::sync_images({left});  // the token is back
      }
    } else {
      pgas::sync_images({left});
      token(right) = *token + static_cast<long>(me);
      pgas::sync_images({right});
    }
  }
  bool ok = true;
  if (me == 0) {
    const long want = static_cast<long>(laps) * static_cast<long>(n * (n - 1) / 2);
    ok = *token == want;
    std::printf("token after %d laps around %zu images: %ld (expected %ld) %s\n", laps, n, *token,
                want, ok ? "ok" : "WRONG");
  }
  pgas::sync_all();
  return pgas::co_broadcast(ok, 0) ? 0 : 1;
}
