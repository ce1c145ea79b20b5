#include <pgas/runtime/error.hpp>
#include <pgas/runtime/machine.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <hwloc.h>
#include <string>
#include <sys/sysinfo.h>
#include <unistd.h>

namespace pgas::runtime {
namespace {

// Sizes of the first cache object of each level hwloc reports, by level (1 to 5); 0 where a
// level is absent. Unified and data caches only: instruction caches hold no table.
struct levels {
  std::size_t bytes[6] = {};
};

levels from_hwloc() {
  levels out;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0)
    return out;
  if (hwloc_topology_load(topology) == 0) {
    constexpr hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                          HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
    for (int level = 1; level <= 5; ++level) {
      const hwloc_obj_t cache = hwloc_get_obj_by_type(topology, types[level - 1], 0);
      if (cache != nullptr && cache->attr != nullptr &&
          cache->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION) {
        out.bytes[level] = static_cast<std::size_t>(cache->attr->cache.size);
      }
    }
  }
  hwloc_topology_destroy(topology);
  return out;
}

std::size_t from_libc(int name) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<std::size_t>(v) : 0;
}

// A size the user gives in the environment (a machine whose caches hwloc misreads, or a test
// that wants a given path); 0 when unset.
std::size_t from_environment(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0')
    return 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || v[0] == '-' || n == 0)
    throw usage_error(std::string(name) + " must be a positive number of bytes, not \"" + v + "\"");
  return static_cast<std::size_t>(n);
}

cache_sizes read_caches() {
  const std::size_t core_given = from_environment("PGAS_CORE_CACHE_BYTES");
  const std::size_t shared_given = from_environment("PGAS_SHARED_CACHE_BYTES");
  levels found = core_given != 0 && shared_given != 0 ? levels{} : from_hwloc();
  if (core_given != 0)
    found.bytes[2] = core_given;
  if (shared_given != 0) {
    found.bytes[3] = shared_given;
    found.bytes[4] = found.bytes[5] = 0;
  }
  if (found.bytes[2] == 0)
    found.bytes[2] = from_libc(_SC_LEVEL2_CACHE_SIZE);
  if (found.bytes[3] == 0)
    found.bytes[3] = from_libc(_SC_LEVEL3_CACHE_SIZE);
  cache_sizes out{found.bytes[2], 0};
  for (int level = 5; level >= 2 && out.shared == 0; --level) out.shared = found.bytes[level];
  if (out.per_core == 0)
    out.per_core = std::size_t{1} << 20;
  if (out.shared == 0)
    out.shared = std::size_t{32} << 20;
  out.shared = std::max(out.shared, out.per_core);
  return out;
}

}  // namespace

void check_cache_settings() {
  (void)from_environment("PGAS_CORE_CACHE_BYTES");
  (void)from_environment("PGAS_SHARED_CACHE_BYTES");
}

const cache_sizes& machine_caches() {
  static const cache_sizes caches = read_caches();
  return caches;
}

std::size_t transparent_huge_page_bytes() noexcept {
  static const std::size_t bytes = [] {
    std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
    if (f == nullptr)
      return std::size_t{0};
    unsigned long long n = 0;
    const bool read = std::fscanf(f, "%llu", &n) == 1;
    std::fclose(f);
    // A power of two, or no size at all.
    return read && n > 0 && (n & (n - 1)) == 0 ? static_cast<std::size_t>(n) : std::size_t{0};
  }();
  return bytes;
}

std::size_t machine_memory_bytes() noexcept {
  struct sysinfo info {};
  if (sysinfo(&info) != 0)
    return SIZE_MAX;
  return (static_cast<std::size_t>(info.totalram) + info.totalswap) * info.mem_unit;
}

void require_memory(const char* what, std::size_t count, std::size_t bytes_each) {
  const std::size_t memory = machine_memory_bytes();
  if (bytes_each == 0 || count <= memory / bytes_each)
    return;
  throw usage_error(std::string(what) + ": " + std::to_string(count) + " of " +
                    std::to_string(bytes_each) + " bytes each need more than the " +
                    std::to_string(memory) + " bytes of memory this machine has");
}

}  // namespace pgas::runtime
