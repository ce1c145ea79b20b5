// The one main of every pgas test binary: each image runs every test, image 0 prints the
// usual report, other images print only their failures (with their image number), and every
// image exits with the worst result of all.
#include <pgas/runtime/environment.hpp>

#include <mpi.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

// What images other than 0 print: each failure, where it happened and in which test.
class failure_printer : public ::testing::EmptyTestEventListener {
  // Noted at the start: asking gtest for the current test while it reports a result would
  // take a lock it already holds.
  void OnTestStart(const ::testing::TestInfo& test) override {
    current_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "image %zu: %s failed at %s:%d\n%s\n", pgas::this_image(), current_.c_str(),
                 result.file_name() != nullptr ? result.file_name() : "?", result.line_number(),
                 result.message());
  }
  std::string current_;
};

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (pgas::this_image() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new failure_printer);  // gtest owns it
  }
  int result = RUN_ALL_TESTS();
  int worst = result;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst != 0 && result == 0 && pgas::this_image() != 0) {
    std::fprintf(stderr, "image %zu: a test failed on another image\n", pgas::this_image());
  }
  return worst;
}
