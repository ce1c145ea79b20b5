// HPCC RandomAccess under HPCC's rules: a table of 2^k 64-bit words, 4 x 2^k XOR updates from
// the HPCC stream, and no image looking more than 1024 updates ahead. pgas (a pgas::aggregator
// of capacity 1024 per image) beside three hand-written MPI versions written from the
// published rules: HPCC's algorithm (buckets per destination; when 1024 updates are pending the
// largest bucket goes out point-to-point while incoming buckets are applied), PRK's Random
// algorithm (one all-to-all exchange per chunk of 1024 updates), and one MPI_Accumulate per
// update. Every variant ends after an odd number of passes and is checked against a serial
// replay of every image's stream (HPCC's rule: at most 1 % of the table wrong), so a variant
// that drops its updates fails. Every variant makes its stream as it goes, as HPCC and PRK do.
#include <pgas/algorithms.hpp>

#include <mpi.h>

#include "harness.hpp"
#include <algorithm>
#include <cstdint>
#include <pgas_programs/hpcc_random.hpp>
#include <span>
#include <vector>

namespace {

constexpr std::size_t look_ahead = 1024;  // HPCC's rule

// Where a table index lives in the hand-written versions: block distribution, by shifts when
// the image count is a power of two (as an MPI programmer writes it), by division otherwise.
struct block_map {
  block_map(std::size_t table, std::size_t p) : d{pgas::block{}.bind(table, p)} {
    if ((p & (p - 1)) == 0) {
      shift = 0;
      while ((std::size_t{1} << shift) < table / p) ++shift;
      power_of_two = true;
    }
  }
  [[nodiscard]] std::size_t owner(std::size_t i) const {
    return power_of_two ? i >> shift : d.owner(i);
  }
  [[nodiscard]] std::size_t offset(std::size_t i) const {
    return power_of_two ? i & ((std::size_t{1} << shift) - 1) : d.local_offset(i);
  }
  pgas::block d;
  unsigned shift = 0;
  bool power_of_two = false;
};

// This image's stream, as HPCC generates it: 4 x table / p values from its own start.
hpcc::image_stream my_stream(std::size_t table) {
  return {pgas::this_image(), 4 * table / pgas::num_images()};
}

// HPCC's MPI algorithm.
class hpcc_algorithm {
 public:
  hpcc_algorithm(std::vector<std::uint64_t>& local, std::size_t table)
      : local_{local},
        map_{table, pgas::num_images()},
        mask_{table - 1},
        buckets_(pgas::num_images()),
        incoming_(look_ahead) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  }
  hpcc_algorithm(const hpcc_algorithm&) = delete;
  hpcc_algorithm& operator=(const hpcc_algorithm&) = delete;
  ~hpcc_algorithm() { MPI_Comm_free(&comm_); }

  void run(const hpcc::image_stream& stream) {
    const std::size_t me = pgas::this_image();
    const std::size_t p = pgas::num_images();
    done_seen_ = 0;
    MPI_Irecv(incoming_.data(), static_cast<int>(look_ahead), MPI_UINT64_T, MPI_ANY_SOURCE,
              MPI_ANY_TAG, comm_, &receive_);
    std::size_t pending = 0;
    std::size_t u = 0;
    stream.for_each([&](std::uint64_t ran) {
      const std::size_t i = ran & mask_;
      const std::size_t owner = map_.owner(i);
      if (owner == me) {
        local_[map_.offset(i)] ^= ran;
      } else {
        buckets_[owner].push_back(ran);
        if (++pending == look_ahead) {
          const auto largest =
              std::max_element(buckets_.begin(), buckets_.end(),
                               [](const auto& a, const auto& b) { return a.size() < b.size(); });
          pending -= largest->size();
          send(static_cast<int>(largest - buckets_.begin()), update_tag);
        }
      }
      if (u++ % 64 == 0)
        receive_what_came();
    });
    for (std::size_t d = 0; d < p; ++d) {
      if (!buckets_[d].empty())
        send(static_cast<int>(d), update_tag);
    }
    for (std::size_t d = 0; d < p; ++d) {
      if (d != me)
        send(static_cast<int>(d), done_tag);  // an empty message
    }
    wait_for_send();
    while (done_seen_ < p - 1) receive_what_came();
    MPI_Cancel(&receive_);
    MPI_Wait(&receive_, MPI_STATUS_IGNORE);
  }

 private:
  static constexpr int update_tag = 1;
  static constexpr int done_tag = 2;
  void receive_what_came() {
    int flag = 1;
    while (flag != 0) {
      MPI_Status st;
      MPI_Test(&receive_, &flag, &st);
      if (flag == 0)
        break;
      if (st.MPI_TAG == update_tag) {
        int n = 0;
        MPI_Get_count(&st, MPI_UINT64_T, &n);
        for (int k = 0; k < n; ++k) {
          const std::uint64_t ran = incoming_[static_cast<std::size_t>(k)];
          local_[map_.offset(ran & mask_)] ^= ran;
        }
      } else {
        ++done_seen_;
      }
      MPI_Irecv(incoming_.data(), static_cast<int>(look_ahead), MPI_UINT64_T, MPI_ANY_SOURCE,
                MPI_ANY_TAG, comm_, &receive_);
    }
  }
  void wait_for_send() {
    int flag = 0;
    while (true) {
      MPI_Test(&send_, &flag, MPI_STATUS_IGNORE);
      if (flag != 0)
        break;
      receive_what_came();  // a peer may wait for us to take its bucket first
    }
  }
  void send(int dest, int tag) {
    wait_for_send();
    outgoing_.clear();
    if (tag == update_tag)
      outgoing_.swap(buckets_[static_cast<std::size_t>(dest)]);
    MPI_Isend(outgoing_.data(), static_cast<int>(outgoing_.size()), MPI_UINT64_T, dest, tag, comm_,
              &send_);
  }

  std::vector<std::uint64_t>& local_;
  block_map map_;
  std::uint64_t mask_;
  std::vector<std::vector<std::uint64_t>> buckets_;
  std::vector<std::uint64_t> incoming_;
  std::vector<std::uint64_t> outgoing_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Request receive_ = MPI_REQUEST_NULL;
  MPI_Request send_ = MPI_REQUEST_NULL;
  std::size_t done_seen_ = 0;
};

// PRK's Random algorithm (MPI1/Random): the stream made in look_ahead lanes (`lanes`, from
// stream.lanes), one value of each lane per chunk, put straight into fixed per-owner buckets of
// look_ahead slots; the bucket sizes and then the buckets are exchanged in one all-to-all each,
// and every image XORs what it received into its table.
void prk_algorithm(std::vector<std::uint64_t>& local,
                   const hpcc::image_stream& stream,
                   std::vector<std::uint64_t> lanes,
                   std::size_t table) {
  const std::size_t p = pgas::num_images();
  const block_map map{table, p};
  const std::uint64_t mask = table - 1;
  std::vector<int> sizes(p), displs(p), rsizes(p), rdispls(p);
  for (std::size_t d = 0; d < p; ++d) displs[d] = static_cast<int>(d * look_ahead);
  std::vector<std::uint64_t> buckets(p * look_ahead), received(p * look_ahead);
  const auto exchange = [&] {
    MPI_Alltoall(sizes.data(), 1, MPI_INT, rsizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (std::size_t d = 0; d < p; ++d) {
      rdispls[d] = total;
      total += rsizes[d];
    }
    MPI_Alltoallv(buckets.data(), sizes.data(), displs.data(), MPI_UINT64_T, received.data(),
                  rsizes.data(), rdispls.data(), MPI_UINT64_T, MPI_COMM_WORLD);
    for (int k = 0; k < total; ++k) {
      const std::uint64_t r = received[static_cast<std::size_t>(k)];
      local[map.offset(r & mask)] ^= r;
    }
    std::fill(sizes.begin(), sizes.end(), 0);
  };
  const auto bucket = [&](std::uint64_t ran) {
    const std::size_t d = map.owner(ran & mask);
    buckets[d * look_ahead + static_cast<std::size_t>(sizes[d]++)] = ran;
  };
  for (std::size_t step = 0; step < stream.count / lanes.size(); ++step) {
    for (auto& ran : lanes) bucket(ran = hpcc::next(ran));
    exchange();
  }
  stream.rest(lanes.size()).for_each(bucket);
  exchange();
}

// One MPI_Accumulate (MPI_BXOR) per update, completed at the end: the rules allow it, and it
// is what fine-grained code without aggregation does, with the flushes its MPI needs
// (bench::most_operations_unflushed).
void accumulate_per_update(MPI_Win win, const hpcc::image_stream& stream, std::size_t table) {
  const block_map map{table, pgas::num_images()};
  const std::uint64_t mask = table - 1;
  std::size_t started = 0;
  stream.for_each([&](const std::uint64_t ran) {
    const std::size_t i = ran & mask;
    MPI_Accumulate(&ran, 1, MPI_UINT64_T, static_cast<int>(map.owner(i)),
                   static_cast<MPI_Aint>(map.offset(i)), 1, MPI_UINT64_T, MPI_BXOR, win);
    if (++started % bench::most_operations_unflushed() == 0)
      MPI_Win_flush_all(win);
  });
  MPI_Win_flush_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
}

// This image's part of the table (block distribution, t[i] = i at first) after one pass of the
// first `count` updates of every image's stream, replayed serially here: the answer every
// variant must match, computed without any of them.
std::vector<std::uint64_t> after_one_pass(std::size_t table, std::size_t count) {
  const std::size_t p = pgas::num_images();
  const auto d = pgas::block{}.bind(table, p);
  const std::size_t first = d.global_index(pgas::this_image(), 0);
  std::vector<std::uint64_t> out(d.local_size(pgas::this_image()));
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = first + k;
  for (std::size_t img = 0; img < p; ++img) {
    hpcc::image_stream stream{img, 4 * table / p};
    stream.count = count;
    stream.for_each([&](std::uint64_t ran) {
      const std::size_t at = (ran & (table - 1)) - first;
      if (at < out.size())
        out[at] ^= ran;  // unsigned: indices below `first` wrap past the end
    });
  }
  return out;
}

// Words of this image's part that differ from `want`, summed over the images.
std::size_t wrong_words(std::span<const std::uint64_t> local,
                        const std::vector<std::uint64_t>& want) {
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < local.size(); ++k) wrong += local[k] != want[k] ? 1U : 0U;
  return pgas::co_sum(wrong);
}

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  const bench::options opt(argc, argv,
                           "HPCC RandomAccess with a look-ahead of 1024: pgas vs hand-written MPI",
                           {{"log_size", "23"}, {"accumulate_share", "16"}});
  if (opt.stop())
    return opt.failed() ? 2 : 0;
  const std::size_t table = std::size_t{1} << opt.size("log_size");
  const std::size_t p = pgas::num_images();
  const hpcc::image_stream stream = my_stream(table);
  const double updates = static_cast<double>(stream.count * p);
  const std::string size = "table=2^" + std::to_string(opt.get("log_size")) +
                           ",updates=" + std::to_string(stream.count * p) + ",look_ahead=1024";
  // Per-update accumulates are slow: they run on 1/accumulate_share of the stream, and their
  // rate is what compares.
  const std::size_t share = std::max<std::size_t>(1, opt.size("accumulate_share"));
  hpcc::image_stream few = stream;
  few.count /= share;

  const auto d = pgas::block{}.bind(table, p);
  const auto fresh = [&] {
    std::vector<std::uint64_t> local(d.local_size(pgas::this_image()));
    for (std::size_t k = 0; k < local.size(); ++k) local[k] = d.global_index(pgas::this_image(), k);
    return local;
  };
  pgas::array<std::uint64_t> t(table);
  for (std::size_t k = 0; k < t.local().size(); ++k) t.local()[k] = t.global_index(k);
  pgas::sync_all();
  std::vector<std::uint64_t> hpcc_table = fresh();
  std::vector<std::uint64_t> prk_table = fresh();
  std::uint64_t* acc_base = nullptr;
  MPI_Win acc_win = MPI_WIN_NULL;
  MPI_Win_allocate(static_cast<MPI_Aint>(d.local_size(pgas::this_image()) * sizeof(std::uint64_t)),
                   sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &acc_base, &acc_win);
  {
    const auto init = fresh();
    std::copy(init.begin(), init.end(), acc_base);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, acc_win);
  hpcc_algorithm hpcc_run(hpcc_table, table);

  // PRK's lanes: the aggregator and PRK's algorithm make the stream the same way.
  const std::vector<std::uint64_t> lanes = stream.lanes(look_ahead);
  const auto pgas_pass = [&] {
    pgas::aggregator agg(t, pgas::reduce_op::bxor, look_ahead);
    const std::uint64_t mask = table - 1;
    stream.for_each_by_lanes(lanes, [&](std::uint64_t ran) { agg.add(ran & mask, ran); });
    pgas::sync_all();
  };
  const auto hpcc_pass = [&] {
    hpcc_run.run(stream);
    MPI_Barrier(MPI_COMM_WORLD);
  };
  const auto prk_pass = [&] { prk_algorithm(prk_table, stream, lanes, table); };
  const auto acc_pass = [&] { accumulate_per_update(acc_win, few, table); };
  // PRK's algorithm on the stream PRK's own program makes, to show where that program's speed
  // comes from: its image i starts lane j at SEQSEED + (count / 1024)·j + (table / p)·i and
  // runs every lane over half its span twice. The image offset is the table's part, not the
  // stream's, so at two images 768 of image 1's lanes repeat image 0's at the same step: the
  // owner meets most entries twice within one batch, the second time in cache (and the two
  // XORs cancel, which PRK's check accepts). Not HPCC's rules (disjoint streams), so not a
  // baseline for pgas: its own kernel, compared with nothing. The table returns to its start.
  constexpr std::int64_t prk_seed = 834568137686317453LL;
  std::vector<std::uint64_t> prk_seed_lanes(look_ahead);
  for (std::size_t j = 0; j < look_ahead; ++j) {
    prk_seed_lanes[j] =
        hpcc::starts(prk_seed + static_cast<std::int64_t>((stream.count / look_ahead) * j +
                                                          d.local_size(0) * pgas::this_image()));
  }
  hpcc::image_stream half = stream;
  half.count = stream.count / 2;
  std::vector<std::uint64_t> prk_seed_table = fresh();
  const auto prk_seeds_pass = [&] {
    prk_algorithm(prk_seed_table, half, prk_seed_lanes, table);
    prk_algorithm(prk_seed_table, half, prk_seed_lanes, table);
  };
  const int reps = static_cast<int>(opt.get("reps"));
  const std::vector<double> medians =
      bench::interleaved_medians(reps, {pgas_pass, hpcc_pass, prk_pass, acc_pass, prk_seeds_pass});
  // XOR is its own inverse: after an odd number of passes every table holds one pass's result.
  if (reps % 2 == 0) {
    pgas_pass();
    hpcc_pass();
    prk_pass();
    acc_pass();
  }
  const std::vector<std::uint64_t> want = after_one_pass(table, stream.count);
  const std::vector<std::uint64_t> want_few = after_one_pass(table, few.count);
  const std::size_t wrong_pgas = wrong_words(t.local(), want);
  MPI_Win_sync(acc_win);
  const std::span<const std::uint64_t> acc_table(acc_base, d.local_size(pgas::this_image()));
  const double allowed = 0.01 * static_cast<double>(table);
  std::vector<bench::result> results;
  results.push_back(bench::report("gups", "pgas_aggregator", size, medians[0],
                                  updates / medians[0] * 1e-9, "GUP/s",
                                  static_cast<double>(wrong_pgas) <= allowed));
  results.push_back(bench::report("gups", "mpi_hpcc_algorithm", size, medians[1],
                                  updates / medians[1] * 1e-9, "GUP/s",
                                  static_cast<double>(wrong_words(hpcc_table, want)) <= allowed));
  results.push_back(bench::report("gups", "mpi_prk_algorithm", size, medians[2],
                                  updates / medians[2] * 1e-9, "GUP/s",
                                  static_cast<double>(wrong_words(prk_table, want)) <= allowed));
  results.push_back(
      bench::report("gups", "mpi_accumulate_per_update", size, medians[3],
                    static_cast<double>(few.count * p) / medians[3] * 1e-9, "GUP/s",
                    static_cast<double>(wrong_words(acc_table, want_few)) <= allowed));
  results.push_back(bench::report("gups_prk_seeds", "mpi_prk_algorithm", size, medians[4],
                                  static_cast<double>(2 * half.count * p) / medians[4] * 1e-9,
                                  "GUP/s", prk_seed_table == fresh()));
  MPI_Win_unlock_all(acc_win);
  MPI_Win_free(&acc_win);
  return bench::summarize(results, "pgas_aggregator");
}
