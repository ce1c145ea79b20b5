// Whether the processor is asked for write prefetches (PREFETCHW) agrees with what the kernel
// says the processor has. A wrong answer would either fall back to read prefetches (each update
// of a line another core holds waits for the other copy to go: gups on one node twice as slow)
// or execute an instruction the processor lacks. A prefetch is a hint: it changes no memory.

#include <pgas/runtime/prefetch.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

TEST(Prefetch, asks_the_processor_what_the_kernel_says_it_has) {
#if !defined(__x86_64__)
  EXPECT_FALSE(pgas::runtime::processor_prefetches_for_write)
      << "only x86-64 is asked; elsewhere the compiler's write prefetch serves";
#elif defined(__linux__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  ASSERT_TRUE(cpuinfo) << "/proc/cpuinfo is readable on Linux";
  std::string line;
  bool found = false;
  bool has = false;
  while (!found && std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0)
      continue;
    found = true;
    std::istringstream words(line.substr(line.find(':') + 1));
    // Linux names CPUID 8000_0001h ECX bit 8 "3dnowprefetch" on Intel and AMD alike.
    for (std::string w; words >> w;) has = has || w == "3dnowprefetch";
  }
  ASSERT_TRUE(found) << "a flags line in /proc/cpuinfo";
  EXPECT_EQ(pgas::runtime::processor_prefetches_for_write, has);
#else
  GTEST_SKIP() << "the processor's flags are read from Linux's /proc/cpuinfo";
#endif
}

TEST(Prefetch, a_write_prefetch_changes_nothing) {
  std::vector<std::uint64_t> table(4096);
  for (std::size_t k = 0; k < table.size(); ++k) table[k] = k;
  for (std::size_t k = 0; k < table.size(); k += 8) pgas::runtime::prefetch_for_write(&table[k]);
  for (std::size_t k = 0; k < table.size(); ++k) ASSERT_EQ(table[k], k);
}

}  // namespace
