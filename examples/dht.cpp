// A distributed hash table on remote procedure calls: each image keeps its share of the keys in
// an ordinary std::unordered_map inside a pgas::dist_object, and inserts and finds are calls
// run at the key's owner. Every image inserts its own string keys, then finds keys every image
// inserted (and some nobody did), and checks each answer against a serial map it builds itself.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <pgas_programs/command_line.hpp>
#include <pgas_programs/string_dht.hpp>
#include <string>
#include <unordered_map>
#include <vector>

using string_dht::find;
using string_dht::insert;
using string_dht::key_of;
using string_dht::owner_of;
using string_dht::shard;
using string_dht::value_of;

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  std::size_t keys = 100000;
  pgas_programs::command_line app{
      "A distributed hash table on pgas::rpc and pgas::dist_object, checked against a serial map.",
      "dht"};
  app.add_option("--keys", keys, "keys each image inserts")->capture_default_str();
  if (const auto stop = pgas_programs::parse_command_line(app, argc, argv))
    return *stop;
  const std::size_t me = pgas::this_image();
  const std::size_t n = pgas::num_images();

  pgas::dist_object<shard> table{shard{}};
  const double t0 = MPI_Wtime();
  for (std::size_t k = 0; k < keys; ++k) insert(table, key_of(me, k), value_of(me, k));
  pgas::sync_all();  // every insert has run at its owner
  const double insert_seconds = pgas::co_max(MPI_Wtime() - t0);

  // The serial truth: every image's keys, as every image inserted them.
  std::unordered_map<std::string, std::string> serial;
  for (std::size_t img = 0; img < n; ++img) {
    for (std::size_t k = 0; k < keys; ++k) serial.emplace(key_of(img, k), value_of(img, k));
  }
  // Finds: the next image's keys in windows of futures in flight, and keys nobody inserted.
  std::size_t wrong = 0;
  const std::size_t other = (me + 1) % n;
  const std::size_t window = 256;
  const double t1 = MPI_Wtime();
  for (std::size_t first = 0; first < keys; first += window) {
    std::vector<pgas::future<std::optional<std::string>>> answers;
    for (std::size_t k = first; k < std::min(keys, first + window); ++k)
      answers.push_back(find(table, key_of(other, k)));
    for (std::size_t k = first; k < std::min(keys, first + window); ++k) {
      const auto got = answers[k - first].get();
      wrong += got == serial.at(key_of(other, k)) ? 0U : 1U;
    }
  }
  const double find_seconds = pgas::co_max(MPI_Wtime() - t1);
  for (std::size_t k = 0; k < 100; ++k)
    wrong += find(table, "absent-" + std::to_string(k)).get().has_value() ? 1U : 0U;
  // Each shard holds exactly the keys it owns.
  std::size_t owned = 0;
  for (const auto& [key, value] : serial) owned += owner_of(key) == me ? 1U : 0U;
  wrong += table->size() == owned ? 0U : 1U;
  wrong = pgas::co_sum(wrong);
  const std::size_t total = pgas::co_sum(table->size());
  if (me == 0) {
    std::printf("dht: %zu keys on %zu images; inserts %.1f M/s, finds %.2f M/s; %zu wrong (%s)\n",
                total, n, static_cast<double>(keys * n) / insert_seconds * 1e-6,
                static_cast<double>(keys * n) / find_seconds * 1e-6, wrong,
                wrong == 0 && total == keys * n ? "passed" : "FAILED");
  }
  return wrong == 0 && total == keys * n ? 0 : 1;
}
