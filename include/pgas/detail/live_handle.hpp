#pragma once
// A flag a container holds so that use after a move is a clear usage_error, for containers
// whose members alone cannot tell (a moved-from std::vector is merely "unspecified").

#include <pgas/runtime/error.hpp>

#include <string>
#include <utility>

namespace pgas::detail {

class live_handle {
 public:
  live_handle() noexcept = default;
  live_handle(live_handle&& other) noexcept : live_(std::exchange(other.live_, false)) {}
  live_handle& operator=(live_handle&& other) noexcept {
    if (this != &other)
      live_ = std::exchange(other.live_, false);
    return *this;
  }
  live_handle(const live_handle&) = delete;
  live_handle& operator=(const live_handle&) = delete;
  ~live_handle() = default;

  /// Throws usage_error naming `container` if its owner was moved from.
  void require(const char* container) const {
    if (!live_)
      throw usage_error(std::string("use of a moved-from ") + container);
  }

 private:
  bool live_ = true;
};

}  // namespace pgas::detail
