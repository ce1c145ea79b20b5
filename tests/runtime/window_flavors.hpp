#pragma once
// The window flavors with memory, as a test parameter: each makes a window over world.

#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/window.hpp>

#include <gtest/gtest.h>

#include "../support/one_node.hpp"
#include <memory>
#include <string>
#include <vector>

namespace pgas::test {

enum class memory_flavor { create_owned, create_caller_memory, allocate, allocate_shared };

inline std::string name_of(memory_flavor f) {
  switch (f) {
    case memory_flavor::create_owned:
      return "create_owned";
    case memory_flavor::create_caller_memory:
      return "create_caller_memory";
    case memory_flavor::allocate:
      return "allocate";
    case memory_flavor::allocate_shared:
      return "allocate_shared";
  }
  return "unknown";
}

inline runtime::window_flavor expected_flavor(memory_flavor f) {
  switch (f) {
    case memory_flavor::create_owned:
    case memory_flavor::create_caller_memory:
      return runtime::window_flavor::create;
    case memory_flavor::allocate:
      return runtime::window_flavor::allocate;
    case memory_flavor::allocate_shared:
      return runtime::window_flavor::shared;
  }
  return runtime::window_flavor::dynamic;
}

/// A window of the given flavor and the caller memory it may need, which must outlive it.
struct flavored_window {
  std::unique_ptr<std::vector<std::byte>> caller_memory;
  runtime::window win;
};

/// A fixture parameterised by flavor: a job across nodes (scripts/two-hosts) skips the
/// shared-memory flavor, on every image alike, rather than fail in MPI_Win_allocate_shared.
class with_memory_flavor : public ::testing::TestWithParam<memory_flavor> {
 protected:
  void SetUp() override {
    if (GetParam() == memory_flavor::allocate_shared && !pgas_test::world_on_one_node())
      GTEST_SKIP() << "a shared-memory window needs every image on one node";
  }
};

inline flavored_window make_window(memory_flavor f, std::size_t bytes, int disp_unit) {
  const MPI_Comm comm = runtime::world_comm();
  flavored_window out;
  switch (f) {
    case memory_flavor::create_owned:
      out.win = runtime::window::create(comm, bytes, disp_unit);
      break;
    case memory_flavor::create_caller_memory:
      out.caller_memory = std::make_unique<std::vector<std::byte>>(bytes);
      out.win = runtime::window::create(comm, out.caller_memory->data(), bytes, disp_unit);
      break;
    case memory_flavor::allocate:
      out.win = runtime::window::allocate(comm, bytes, disp_unit);
      break;
    // with_memory_flavor runs this flavor only where world is a shared-memory communicator.
    case memory_flavor::allocate_shared:
      out.win = runtime::window::allocate_shared(comm, bytes, disp_unit);
      break;
  }
  return out;
}

inline const std::vector<memory_flavor> all_memory_flavors = {
    memory_flavor::create_owned, memory_flavor::create_caller_memory, memory_flavor::allocate,
    memory_flavor::allocate_shared};

}  // namespace pgas::test
