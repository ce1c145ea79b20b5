// A distributed hash table's inserts, string keys and values, beside hand-written MPI:
// - dht_insert / pgas: examples/dht's way, one pgas::rpc_ff per insert to the key's owner, which
//   puts it in its std::unordered_map (a pgas::dist_object); done at the sync point.
// - dht_insert / mpi_alltoallv: each image packs its pairs per owner ([length, bytes] for key and
//   value), one MPI_Alltoall of byte counts and one MPI_Alltoallv of the bytes, and each owner
//   unpacks and inserts what it received: the bulk-synchronous program a user writes by hand.
// - map_insert: pgas::unordered_map<uint64, uint64>::async_insert (combined at the caller, applied
//   by the owner) against the same all-to-all with fixed-size pairs into a std::unordered_map.
// Every variant verifies: the table sizes sum to every image's keys, and every image finds a
// sample of its own keys, with their values, in the owners' tables.
#include <pgas/pgas.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pgas_programs/string_dht.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// Gives the heap back its freed small blocks, merged and released (glibc's malloc_trim), so a
// repetition's table is built in fresh memory, as a new table is, whatever the one before freed.
void release_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

using string_dht::key_of;
using string_dht::owner_of;
using string_dht::shard;
using string_dht::value_of;

// The hand-written variant's buffers: the bytes for each destination, packed end to end, and
// what arrived. Made once and kept, cleared but not freed, from one repetition to the next, as
// a program that exchanges again and again keeps them: on the Intel VM, memory freed and taken
// anew slows the sweeps after it over any memory (bench/README), which would charge these
// buffers to the variant that runs next.
struct alltoall_buffers {
  std::vector<std::vector<char>> out;  // by destination
  std::vector<char> send;
  std::vector<char> received;
  std::vector<int> counts, displs, rcounts, rdispls;
  explicit alltoall_buffers(std::size_t images)
      : out(images), counts(images), displs(images), rcounts(images), rdispls(images) {}
  // Empties every destination's bytes, keeping the memory.
  void start() {
    for (std::vector<char>& o : out) o.clear();
  }
  // One all-to-all of the destinations' bytes: afterwards `received` holds what every image
  // sent here, in image order.
  void exchange() {
    const std::size_t p = out.size();
    send.clear();
    for (std::size_t d = 0; d < p; ++d) {
      displs[d] = static_cast<int>(send.size());
      counts[d] = static_cast<int>(out[d].size());
      send.insert(send.end(), out[d].begin(), out[d].end());
    }
    MPI_Alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (std::size_t d = 0; d < p; ++d) {
      rdispls[d] = total;
      total += rcounts[d];
    }
    received.resize(static_cast<std::size_t>(total));
    MPI_Alltoallv(send.data(), counts.data(), displs.data(), MPI_CHAR, received.data(),
                  rcounts.data(), rdispls.data(), MPI_CHAR, MPI_COMM_WORLD);
  }
};

void pack(std::vector<char>& out, const std::string& s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  const char* bytes = reinterpret_cast<const char*>(&n);
  out.insert(out.end(), bytes, bytes + sizeof n);
  out.insert(out.end(), s.begin(), s.end());
}
std::string unpack(const char*& at) {
  std::uint32_t n = 0;
  std::memcpy(&n, at, sizeof n);
  at += sizeof n;
  std::string s(at, n);
  at += n;
  return s;
}

void mpi_string_inserts(shard& table, std::size_t keys, alltoall_buffers& b) {
  const std::size_t me = pgas::this_image();
  b.start();
  for (std::size_t k = 0; k < keys; ++k) {
    const std::string key = key_of(me, k);
    std::vector<char>& to = b.out[owner_of(key)];
    pack(to, key);
    pack(to, value_of(me, k));
  }
  b.exchange();
  const std::vector<char>& in = b.received;
  for (const char* at = in.data(); at < in.data() + in.size();) {
    std::string key = unpack(at);
    table.insert_or_assign(std::move(key), unpack(at));
  }
}

std::uint64_t map_key(std::size_t image, std::size_t k) {
  return (static_cast<std::uint64_t>(image) << 40) + k;
}
std::uint64_t map_value(std::uint64_t key) {
  return key * 0x9e3779b97f4a7c15ULL;
}
std::size_t map_owner(std::uint64_t key) {
  return static_cast<std::size_t>((key * 0xbf58476d1ce4e5b9ULL) >> 32) % pgas::num_images();
}

void mpi_number_inserts(std::unordered_map<std::uint64_t, std::uint64_t>& table,
                        std::size_t keys,
                        std::uint64_t round,
                        alltoall_buffers& b) {
  const std::size_t me = pgas::this_image();
  b.start();
  for (std::size_t k = 0; k < keys; ++k) {
    const std::uint64_t key = round + map_key(me, k);
    const std::uint64_t pair[2] = {key, map_value(key)};
    const char* bytes = reinterpret_cast<const char*>(pair);
    std::vector<char>& to = b.out[map_owner(pair[0])];
    to.insert(to.end(), bytes, bytes + sizeof pair);
  }
  b.exchange();
  const std::vector<char>& in = b.received;
  for (std::size_t at = 0; at < in.size(); at += 2 * sizeof(std::uint64_t)) {
    std::uint64_t pair[2];
    std::memcpy(pair, in.data() + at, sizeof pair);
    table.insert_or_assign(pair[0], pair[1]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv, "hash-table inserts: pgas rpc / unordered_map vs MPI",
                           {{"keys", "200000"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const auto reps = static_cast<int>(opt.get("reps"));
  const std::size_t keys = opt.size("keys");
  const std::size_t me = pgas::this_image();
  const std::size_t p = pgas::num_images();
  std::vector<bench::result> results;

  bench::progress("dht inserts, string keys");
  pgas::dist_object<shard> table{shard{}};
  shard hand;
  alltoall_buffers buffers(p);
  const auto string_times = bench::interleaved_medians(
      reps,
      {[&] {
         for (std::size_t k = 0; k < keys; ++k) {
           string_dht::insert(table, key_of(me, k), value_of(me, k));
         }
         pgas::sync_all();
       },
       [&] { mpi_string_inserts(hand, keys, buffers); }},
      // Each repetition fills an empty table, in memory as free as a new table finds it. Left
      // as a clear leaves it, the heap keeps 10^5 freed nodes in glibc's lists of small blocks,
      // scattered: a variant that allocates nothing large before it inserts takes them back one
      // cache miss at a time, while a variant whose buffers grow makes glibc merge them first —
      // the timing would be of the heap's history, not of the inserts.
      [&](std::size_t variant) {
        if (variant == 0) {
          table->clear();
        } else {
          hand.clear();
        }
        release_freed_memory();
      });
  // Both hold every image's keys; each image looks a sample of its own up where they went,
  // through the table's own finds (the hand-written table is swapped in: a verification, not
  // the measured path).
  const auto strings_right = [&] {
    bool ok = pgas::co_sum(table->size()) == keys * p;
    for (std::size_t k = 0; k < keys; k += 97) {
      ok = ok && string_dht::find(table, key_of(me, k)).get() ==
                     std::optional<std::string>(value_of(me, k));
    }
    return pgas::co_min(ok ? 1 : 0) == 1;
  };
  const bool pgas_strings_ok = strings_right();
  table->swap(hand);
  pgas::sync_all();
  const bool mpi_strings_ok = strings_right();
  pgas::sync_all();
  const std::string size = std::to_string(keys) + "_keys_per_image";
  const double total = static_cast<double>(keys * p);
  results.push_back(bench::report("dht_insert", "pgas", size, string_times[0],
                                  total / string_times[0] / 1e6, "Minserts/s", pgas_strings_ok));
  results.push_back(bench::report("dht_insert", "mpi_alltoallv", size, string_times[1],
                                  total / string_times[1] / 1e6, "Minserts/s", mpi_strings_ok));

  bench::progress("unordered_map async inserts, number keys");
  // Each repetition inserts keys of its own (its number in the top bits) into tables sized for
  // all of them, so neither side's timing includes making or clearing a table.
  pgas::unordered_map<std::uint64_t, std::uint64_t> map(keys * static_cast<std::size_t>(reps));
  std::unordered_map<std::uint64_t, std::uint64_t> numbers;
  numbers.reserve(keys * p * static_cast<std::size_t>(reps));
  std::uint64_t pgas_round = 0;
  std::uint64_t mpi_round = 0;
  const auto number_times = bench::interleaved_medians(
      reps, {[&] {
               const std::uint64_t round = pgas_round++ << 56;
               for (std::size_t k = 0; k < keys; ++k) {
                 const std::uint64_t key = round + map_key(me, k);
                 map.async_insert(key, map_value(key));
               }
               pgas::sync_all();
             },
             [&] { mpi_number_inserts(numbers, keys, mpi_round++ << 56, buffers); }});
  bool map_ok = pgas::co_sum(map.local_size()) == keys * p * pgas_round;
  bool numbers_ok = pgas::co_sum(numbers.size()) == keys * p * mpi_round;
  for (std::uint64_t round = 0; round < pgas_round; ++round) {
    for (std::size_t k = 0; k < keys; k += 97) {
      const std::uint64_t key = (round << 56) + map_key(me, k);
      map_ok = map_ok && map.find(key) == std::optional<std::uint64_t>(map_value(key));
    }
  }
  for (const auto& [key, value] : numbers) {
    numbers_ok = numbers_ok && value == map_value(key) && map_owner(key) == me;
  }
  map_ok = pgas::co_min(map_ok ? 1 : 0) == 1;
  numbers_ok = pgas::co_min(numbers_ok ? 1 : 0) == 1;
  results.push_back(bench::report("map_insert", "pgas", size, number_times[0],
                                  total / number_times[0] / 1e6, "Minserts/s", map_ok));
  results.push_back(bench::report("map_insert", "mpi_alltoallv", size, number_times[1],
                                  total / number_times[1] / 1e6, "Minserts/s", numbers_ok));
  return bench::summarize(results, "pgas");
}
