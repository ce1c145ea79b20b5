// The race checker's records, clocks and check (race_check.hpp says what it decides and when).
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/rma.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pgas::runtime::race_check {

namespace detail {
bool on = false;
int unrecorded = 0;
}  // namespace detail

namespace {
// Constant-initialised, so set safely by static initialisers of any translation unit.
bool element_checks_compiled_out = false;
}  // namespace

bool note_code_without_element_checks() noexcept {
  element_checks_compiled_out = true;
  return true;
}

bool code_without_element_checks() noexcept {
  return element_checks_compiled_out;
}

namespace {

// One access, or a run of accesses of one call, by this process.
struct record {
  std::uint64_t window;  // its name (names.hpp): the same on every process
  std::uint64_t first;   // bytes [first, end) of the target's exposure, displacement × disp_unit
  std::uint64_t end;
  std::int32_t target;  // world rank
  std::uint32_t site;   // index into sites
  std::uint32_t clock;  // index of the clock snapshot it was made under
  access kind;
};

// Where an access was made: a file, line and function of the user's program.
struct site {
  std::string file;
  std::uint32_t line = 0;
  std::string function;
};

struct checker_state {
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the world's, for sync_images' clocks
  int me = 0;
  int images = 1;
  std::vector<std::uint64_t> clock;      // this process's vector clock, one entry per world rank
  std::vector<std::uint64_t> snapshots;  // clocks records were made under, `images` entries each
  bool snapshot_current = false;         // the last snapshot is `clock`
  std::vector<record> records;
  std::vector<site> sites;
  std::map<std::tuple<const char*, std::uint32_t, const char*>, std::uint32_t> site_of;
  std::unordered_map<std::uint64_t, description> descriptions;
  std::vector<std::string> reports;
  // The last window noted and its disp_unit: asking MPI for the attribute per access is slow.
  const window* last_window = nullptr;
  std::uint64_t last_name = 0;
  std::uint64_t last_disp_unit = 1;
};

checker_state& state() {
  static checker_state s;
  return s;
}

constexpr std::size_t compact_above = std::size_t{1} << 20;  // records before merging runs

std::uint32_t current_snapshot(checker_state& s) {
  if (!s.snapshot_current) {
    s.snapshots.insert(s.snapshots.end(), s.clock.begin(), s.clock.end());
    s.snapshot_current = true;
  }
  return static_cast<std::uint32_t>(s.snapshots.size() / s.clock.size() - 1);
}

std::uint32_t site_index(checker_state& s, const watchdog::source_location* where) {
  if (where != nullptr && where->line() == 0)
    where = nullptr;  // a reference made without a location
  if (where == nullptr && watchdog::detail::innermost != nullptr)
    where = &watchdog::detail::innermost->where;
  const auto key = where == nullptr
                       ? std::tuple<const char*, std::uint32_t, const char*>{nullptr, 0, nullptr}
                       : std::tuple{where->file_name(), static_cast<std::uint32_t>(where->line()),
                                    where->function_name()};
  const auto [it, added] = s.site_of.try_emplace(key, static_cast<std::uint32_t>(s.sites.size()));
  if (added) {
    if (where == nullptr) {
      s.sites.push_back({"", 0,
                         "an access whose call the checker cannot name (a global_ptr or "
                         "iterator dereferenced)"});
    } else {
      s.sites.push_back(
          {where->file_name(), static_cast<std::uint32_t>(where->line()), where->function_name()});
    }
  }
  return it->second;
}

// Sorts the records and merges runs of one call under one clock that touch or overlap.
void compact(checker_state& s) {
  auto& r = s.records;
  std::sort(r.begin(), r.end(), [](const record& a, const record& b) {
    return std::tie(a.window, a.target, a.site, a.clock, a.kind, a.first) <
           std::tie(b.window, b.target, b.site, b.clock, b.kind, b.first);
  });
  std::size_t out = 0;
  for (std::size_t k = 0; k < r.size(); ++k) {
    if (out > 0) {
      record& last = r[out - 1];
      if (last.window == r[k].window && last.target == r[k].target && last.site == r[k].site &&
          last.clock == r[k].clock && last.kind == r[k].kind && r[k].first <= last.end) {
        last.end = std::max(last.end, r[k].end);
        continue;
      }
    }
    r[out++] = r[k];
  }
  r.resize(out);
}

// A release: what a receiver joins, then this process's own entry moves on, so that what it
// does from now on is not ordered by this release.
std::vector<std::uint64_t> release(checker_state& s) {
  std::vector<std::uint64_t> sent = s.clock;
  ++s.clock[static_cast<std::size_t>(s.me)];
  s.snapshot_current = false;
  return sent;
}

void acquire(checker_state& s, std::span<const std::uint64_t> received) {
  for (std::size_t k = 0; k < s.clock.size(); ++k) s.clock[k] = std::max(s.clock[k], received[k]);
  s.snapshot_current = false;
}

// ---- The check ----

// A record as the checker sees it: whose, with its clock and site resolved.
struct seen {
  std::uint64_t window;
  std::uint64_t first;
  std::uint64_t end;
  std::int32_t target;
  std::int32_t image;
  access kind;
  const std::uint64_t* clock;
  const site* where;
};

// Appends the trivially copyable value v to bytes.
template <class V>
void put_bytes(std::vector<char>& bytes, const V& v) {
  const auto* p = reinterpret_cast<const char*>(&v);
  bytes.insert(bytes.end(), p, p + sizeof(V));
}
void put_string(std::vector<char>& bytes, const std::string& text) {
  put_bytes(bytes, static_cast<std::uint32_t>(text.size()));
  bytes.insert(bytes.end(), text.begin(), text.end());
}
// Reads what put_bytes wrote at `at`, moving `at` on.
template <class V>
V take_bytes(const char*& at) {
  V v;
  std::memcpy(&v, at, sizeof(V));
  at += sizeof(V);
  return v;
}
std::string take_string(const char*& at) {
  const auto n = take_bytes<std::uint32_t>(at);
  std::string text(at, n);
  at += n;
  return text;
}

// What one process sent a checker: its clocks, its sites, and the records for the checker.
struct from_image {
  std::vector<std::uint64_t> clocks;
  std::vector<site> sites;
};

const char* verb(access kind) {
  switch (kind) {
    case access::read:
      return "read";
    case access::write:
      return "wrote";
    default:
      return "updated (accumulate or atomic)";
  }
}

std::string place(const site& where) {
  if (where.file.empty())
    return where.function;
  return where.file + ":" + std::to_string(where.line) + " (" + where.function + ")";
}

bool conflict(access a, access b) {
  return (a != access::read || b != access::read) && (a != access::update || b != access::update);
}

// True when a happens before b.
bool before(const seen& a, const seen& b) {
  const auto i = static_cast<std::size_t>(a.image);
  return b.clock[i] >= a.clock[i];
}

void report(checker_state& s, const seen& a, const seen& b) {
  const std::uint64_t byte = std::max(a.first, b.first);
  std::string what;
  const auto d = s.descriptions.find(a.window);
  if (d != s.descriptions.end()) {
    std::string index;
    try {
      index = std::to_string(d->second.index(static_cast<std::size_t>(a.target), byte));
    } catch (const std::exception&) {
      index = "?";
    }
    what = d->second.container + " element " + index + " (in image " + std::to_string(a.target) +
           "'s memory)";
  } else {
    what = "byte " + std::to_string(byte) + " of image " + std::to_string(a.target) +
           "'s part of a window";
  }
  std::string line = "pgas race check: " + what + ": image " + std::to_string(a.image) + " " +
                     verb(a.kind) + " it at " + place(*a.where) + ", and image " +
                     std::to_string(b.image) + " " + verb(b.kind) + " it at " + place(*b.where) +
                     "; no sync point, event, lock or future orders the two";
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  s.reports.push_back(std::move(line));
}

// Compares the accesses of different images to one target's bytes, sorted by first byte; one
// report per pair of sites.
void check_records(checker_state& s, std::vector<seen>& all) {
  std::sort(all.begin(), all.end(), [](const seen& a, const seen& b) {
    return std::tie(a.window, a.target, a.first) < std::tie(b.window, b.target, b.first);
  });
  std::set<std::tuple<const site*, const site*, std::uint64_t>> said;
  std::vector<std::size_t> active;  // indices of accesses that may overlap the next one
  for (std::size_t k = 0; k < all.size(); ++k) {
    const seen& b = all[k];
    std::erase_if(active, [&](std::size_t j) {
      return all[j].window != b.window || all[j].target != b.target || all[j].end <= b.first;
    });
    for (const std::size_t j : active) {
      const seen& a = all[j];
      if (a.image == b.image || !conflict(a.kind, b.kind) || before(a, b) || before(b, a))
        continue;
      const auto key = a.where < b.where ? std::tuple{a.where, b.where, a.window}
                                         : std::tuple{b.where, a.where, a.window};
      if (said.insert(key).second)
        report(s, a, b);
    }
    active.push_back(k);
  }
}

// Sends every record `selected` keeps to the process of comm that checks it, checks what
// arrives, and forgets what was sent. Collective over comm.
template <class Selected>
void check_over(MPI_Comm comm, Selected selected) {
  checker_state& s = state();
  int size = 0;
  int rank = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  std::vector<int> members(static_cast<std::size_t>(size));
  check(MPI_Allgather(&s.me, 1, MPI_INT, members.data(), 1, MPI_INT, comm), "MPI_Allgather");
  std::unordered_map<int, int> member_of;
  for (int m = 0; m < size; ++m) member_of[members[static_cast<std::size_t>(m)]] = m;
  // Who checks a record: the target, which has the window's description; a member chosen by
  // the window's name when the target is not in comm.
  const auto checker_of = [&](const record& r) {
    const auto it = member_of.find(r.target);
    return it != member_of.end()
               ? it->second
               : static_cast<int>((r.window ^ static_cast<std::uint64_t>(r.target)) %
                                  static_cast<std::uint64_t>(size));
  };
  compact(s);  // one record per run of one call under one clock: the check compares fewer
  std::vector<std::vector<record>> outgoing(static_cast<std::size_t>(size));
  std::vector<record> kept;
  for (const record& r : s.records) {
    if (selected(r)) {
      outgoing[static_cast<std::size_t>(checker_of(r))].push_back(r);
    } else {
      kept.push_back(r);
    }
  }
  std::vector<char> bytes;
  std::vector<int> counts(static_cast<std::size_t>(size), 0);
  std::vector<int> offsets(static_cast<std::size_t>(size), 0);
  int too_many = 0;
  for (std::size_t to = 0; to < outgoing.size(); ++to) {
    const std::size_t start = bytes.size();
    if (!outgoing[to].empty()) {
      put_bytes(bytes, static_cast<std::uint64_t>(s.snapshots.size()));
      bytes.insert(bytes.end(), reinterpret_cast<const char*>(s.snapshots.data()),
                   reinterpret_cast<const char*>(s.snapshots.data() + s.snapshots.size()));
      put_bytes(bytes, static_cast<std::uint64_t>(s.sites.size()));
      for (const site& w : s.sites) {
        put_string(bytes, w.file);
        put_bytes(bytes, w.line);
        put_string(bytes, w.function);
      }
      put_bytes(bytes, static_cast<std::uint64_t>(outgoing[to].size()));
      for (const record& r : outgoing[to]) put_bytes(bytes, r);
    }
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      too_many = 1;
      break;
    }
    offsets[to] = static_cast<int>(start);
    counts[to] = static_cast<int>(bytes.size() - start);
  }
  // Agreed before the exchange: one image throwing alone would leave the others waiting in it.
  int too_many_anywhere = 0;
  check(MPI_Allreduce(&too_many, &too_many_anywhere, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (too_many_anywhere != 0) {
    throw usage_error(
        "pgas race check: more accesses to check at this sync point than one "
        "exchange can carry (2 GiB on some image); add sync points");
  }
  std::vector<int> arriving(static_cast<std::size_t>(size), 0);
  check(MPI_Alltoall(counts.data(), 1, MPI_INT, arriving.data(), 1, MPI_INT, comm), "MPI_Alltoall");
  std::vector<int> arriving_at(static_cast<std::size_t>(size), 0);
  std::size_t total = 0;
  for (std::size_t from = 0; from < arriving.size(); ++from) {
    arriving_at[from] = static_cast<int>(total);
    total += static_cast<std::size_t>(arriving[from]);
  }
  std::vector<char> received(total);
  check(MPI_Alltoallv(bytes.data(), counts.data(), offsets.data(), MPI_BYTE, received.data(),
                      arriving.data(), arriving_at.data(), MPI_BYTE, comm),
        "MPI_Alltoallv");
  s.records = std::move(kept);
  if (s.records.empty()) {
    s.snapshots.clear();
    s.snapshot_current = false;
  }
  std::vector<from_image> senders(static_cast<std::size_t>(size));
  std::vector<record> raw;
  std::vector<std::size_t> raw_from;
  for (std::size_t from = 0; from < arriving.size(); ++from) {
    if (arriving[from] == 0)
      continue;
    const char* at = received.data() + arriving_at[from];
    from_image& f = senders[from];
    f.clocks.resize(take_bytes<std::uint64_t>(at));
    std::memcpy(f.clocks.data(), at, f.clocks.size() * sizeof(std::uint64_t));
    at += f.clocks.size() * sizeof(std::uint64_t);
    f.sites.resize(take_bytes<std::uint64_t>(at));
    for (site& w : f.sites) {
      w.file = take_string(at);
      w.line = take_bytes<std::uint32_t>(at);
      w.function = take_string(at);
    }
    const auto n = take_bytes<std::uint64_t>(at);
    for (std::uint64_t k = 0; k < n; ++k) {
      raw.push_back(take_bytes<record>(at));
      raw_from.push_back(from);
    }
  }
  std::vector<seen> all;
  all.reserve(raw.size());
  for (std::size_t k = 0; k < raw.size(); ++k) {
    const record& r = raw[k];
    const from_image& f = senders[raw_from[k]];
    all.push_back({r.window, r.first, r.end, r.target, members[raw_from[k]], r.kind,
                   f.clocks.data() + std::size_t{r.clock} * s.clock.size(), &f.sites[r.site]});
  }
  check_records(s, all);
}

void join_over(checker_state& s, MPI_Comm comm) {
  std::vector<std::uint64_t> joined(s.clock.size());
  check(MPI_Allreduce(s.clock.data(), joined.data(), static_cast<int>(s.clock.size()), MPI_UINT64_T,
                      MPI_MAX, comm),
        "MPI_Allreduce");
  s.clock = std::move(joined);
  ++s.clock[static_cast<std::size_t>(s.me)];
  s.snapshot_current = false;
}

}  // namespace

namespace detail {
void note(const window& w,
          int target,
          MPI_Aint disp,
          std::size_t bytes,
          access kind,
          const watchdog::source_location* where) {
  checker_state& s = state();
  if (bytes == 0 || s.clock.empty() || unrecorded > 0)
    return;
  if (s.last_window != &w || s.last_name != w.name()) {
    s.last_window = &w;
    s.last_name = w.name();
    s.last_disp_unit = static_cast<std::uint64_t>(w.disp_unit());
  }
  const std::uint64_t first = static_cast<std::uint64_t>(disp) * s.last_disp_unit;
  record r{s.last_name,
           first,
           first + bytes,
           static_cast<std::int32_t>(w.world_rank_of(target)),
           site_index(s, where),
           current_snapshot(s),
           kind};
  if (!s.records.empty()) {
    record& last = s.records.back();
    if (last.window == r.window && last.target == r.target && last.site == r.site &&
        last.clock == r.clock && last.kind == r.kind && r.first <= last.end &&
        r.end >= last.first) {
      last.first = std::min(last.first, r.first);
      last.end = std::max(last.end, r.end);
      return;
    }
  }
  s.records.push_back(r);
  if (s.records.size() >= compact_above && (s.records.size() & (s.records.size() - 1)) == 0)
    compact(s);
}
}  // namespace detail

std::string readable_name(const std::type_info& type) {
  int status = 0;
  char* name = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string out = status == 0 && name != nullptr ? name : type.name();
  std::free(name);  // NOLINT: __cxa_demangle's buffer comes from malloc
  return out;
}

void describe(const window& w, description d) {
  if (!detail::on)
    return;
  state().descriptions[w.name()] = std::move(d);
}

void configure(MPI_Comm world) {
  const char* value = std::getenv("PGAS_CHECK");
  const std::string text = value == nullptr ? "0" : value;
  if (text != "0" && text != "1" && !text.empty())
    throw usage_error("PGAS_CHECK must be 0 or 1 (the race checker off or on), not \"" + text +
                      "\"");
  detail::on = text == "1";
  if (!detail::on)
    return;
  checker_state& s = state();
  check(MPI_Comm_rank(world, &s.me), "MPI_Comm_rank");
  check(MPI_Comm_size(world, &s.images), "MPI_Comm_size");
  check(MPI_Comm_dup(world, &s.comm), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  s.clock.assign(static_cast<std::size_t>(s.images), 0);
  s.clock[static_cast<std::size_t>(s.me)] = 1;  // others' 0: nothing of theirs seen yet
  if (element_checks_compiled_out && s.me == 0)
    std::fprintf(stderr,
                 "pgas race check: this program has code compiled with PGAS_RACE_CHECK=0 (the "
                 "default under NDEBUG); its single-element accesses (a[i], global_ref, atomics, "
                 "aggregator updates) are not checked. Compile with -DPGAS_RACE_CHECK=1 to check "
                 "them.\n");
}

void finish() noexcept {
  if (!detail::on)
    return;
  checker_state& s = state();
  try {
    check_over(s.comm, [](const record&) { return true; });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pgas race check: the last check failed: %s\n", e.what());
  }
  MPI_Comm_free(&s.comm);
  s = checker_state{};
  detail::on = false;
}

void at_barrier(MPI_Comm comm) {
  if (!detail::on)
    return;
  check_over(comm, [](const record&) { return true; });
  join_over(state(), comm);
}

void at_release(const window& w) noexcept {
  if (!detail::on)
    return;
  checker_state& s = state();
  try {
    const std::uint64_t name = w.name();
    check_over(w.comm(), [name](const record& r) { return r.window == name; });
    s.descriptions.erase(name);
    if (s.last_name == name)
      s.last_window = nullptr;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pgas race check: checking a released window failed: %s\n", e.what());
  }
}

void at_pairwise_sync(const std::vector<int>& partners) {
  if (!detail::on || partners.empty())
    return;
  checker_state& s = state();
  const std::vector<std::uint64_t> sent = release(s);
  std::vector<std::uint64_t> received(partners.size() * sent.size());
  std::vector<MPI_Request> requests(2 * partners.size(), MPI_REQUEST_NULL);
  const int n = static_cast<int>(sent.size());
  for (std::size_t k = 0; k < partners.size(); ++k) {
    check(MPI_Irecv(received.data() + k * sent.size(), n, MPI_UINT64_T, partners[k], 0, s.comm,
                    &requests[2 * k]),
          "MPI_Irecv");
    check(MPI_Isend(sent.data(), n, MPI_UINT64_T, partners[k], 0, s.comm, &requests[2 * k + 1]),
          "MPI_Isend");
  }
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  for (std::size_t k = 0; k < partners.size(); ++k)
    acquire(s, std::span<const std::uint64_t>(received).subspan(k * sent.size(), sent.size()));
}

void join_clocks(MPI_Comm comm) {
  if (detail::on)
    join_over(state(), comm);
}

clock_boxes::clock_boxes(MPI_Comm comm) {
  if (!detail::on)
    return;
  const std::size_t bytes = state().clock.size() * sizeof(std::uint64_t);
  boxes_ = window::allocate(comm, bytes, static_cast<int>(sizeof(std::uint64_t)));
  std::memset(boxes_.base(), 0, bytes);
  boxes_.sync_memory();
  check(MPI_Barrier(comm), "MPI_Barrier");  // every box is zero before anyone sends
}

void clock_boxes::send(int target) {
  if (!detail::on || !boxes_.valid())
    return;
  const std::vector<std::uint64_t> sent = release(state());
  accumulate(boxes_, std::span<const std::uint64_t>(sent), target, 0, reduce_op::max);
  boxes_.flush(target);
}

void clock_boxes::receive(int source) {
  if (!detail::on || !boxes_.valid())
    return;
  checker_state& s = state();
  std::vector<std::uint64_t> received(s.clock.size());
  const std::vector<std::uint64_t> nothing(s.clock.size(), 0);
  get_accumulate(boxes_, std::span<const std::uint64_t>(nothing),
                 std::span<std::uint64_t>(received), source, 0, reduce_op::no_op);
  acquire(s, received);
}

const std::vector<std::string>& reports() noexcept {
  return state().reports;
}

}  // namespace pgas::runtime::race_check
