// The one main of every pgas test binary: each image runs every test, image 0 prints the
// usual report, other images print only their failures (with their image number), and every
// image exits with the worst result of all.
//
// The images agree on each test's outcome when it ends, so a check that fails on one image
// fails the test on every image, in the report of each. An image whose test failed early (an
// ASSERT, an exception) may have left the others waiting in one of the test's collectives;
// it waits a grace period for them at the agreement and then ends the job with a message
// naming the test, so such a failure is reported at once rather than as a CTest timeout.
#include <pgas/runtime/environment.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

std::string name_of(const ::testing::TestInfo& test) {
  return std::string(test.test_suite_name()) + "." + test.name();
}

// What images other than 0 print: each failure, where it happened and in which test.
class failure_printer : public ::testing::EmptyTestEventListener {
  // Noted at the start: asking gtest for the current test while it reports a result would
  // take a lock it already holds.
  void OnTestStart(const ::testing::TestInfo& test) override { current_ = name_of(test); }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed())
      return;
    std::fprintf(stderr, "image %zu: %s failed at %s:%d\n%s\n", pgas::this_image(),
                 current_.c_str(), result.file_name() != nullptr ? result.file_name() : "?",
                 result.line_number(), result.message());
  }
  std::string current_;
};

// Seconds an image whose test failed waits for the others at the agreement before it ends the
// job: long enough for a slow image on a loaded machine to finish a passing test, far below
// the CTest timeout. PGAS_TEST_AGREEMENT_SECONDS overrides it.
double agreement_grace_seconds() {
  if (const char* s = std::getenv("PGAS_TEST_AGREEMENT_SECONDS"))
    return std::atof(s);
  return 20.0;
}

// Agrees on every test's outcome (an allreduce on a communicator of its own, so it never meets
// a test's traffic). Appended after the result printer: gtest calls OnTestEnd in reverse order,
// so a failure added here is in the test's result before the printer reports it.
class outcome_agreement : public ::testing::EmptyTestEventListener {
 public:
  outcome_agreement() { MPI_Comm_dup(MPI_COMM_WORLD, &comm_); }
  ~outcome_agreement() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0)
      MPI_Comm_free(&comm_);
  }
  outcome_agreement(const outcome_agreement&) = delete;
  outcome_agreement& operator=(const outcome_agreement&) = delete;

  void OnTestEnd(const ::testing::TestInfo& test) override {
    const int failed_here = test.result()->Failed() ? 1 : 0;
    int images_failed = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(&failed_here, &images_failed, 1, MPI_INT, MPI_SUM, comm_, &request);
    if (failed_here == 0) {
      MPI_Wait(&request, MPI_STATUS_IGNORE);  // if another image ends the job, this one ends too
    } else if (!wait_a_while(request)) {
      std::fprintf(stderr,
                   "image %zu: %s failed here, and the other images did not reach its end within "
                   "%g s (they wait in one of its collectives): ending the job\n",
                   pgas::this_image(), name_of(test).c_str(), agreement_grace_seconds());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (failed_here == 0 && images_failed > 0) {
      ADD_FAILURE() << "this test failed on " << images_failed
                    << " other image(s); see their messages";
    }
  }

 private:
  static bool wait_a_while(MPI_Request& request) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(agreement_grace_seconds());
    for (;;) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done != 0)
        return true;
      if (std::chrono::steady_clock::now() > until)
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

int main(int argc, char** argv) {
  pgas::environment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (pgas::this_image() != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new failure_printer);  // gtest owns it
  }
  listeners.Append(new outcome_agreement);
  int result = RUN_ALL_TESTS();
  int worst = result;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst != 0 && result == 0 && pgas::this_image() != 0) {
    std::fprintf(stderr, "image %zu: a test failed on another image\n", pgas::this_image());
  }
  return worst;
}
