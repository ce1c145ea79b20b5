#pragma once
// Writes this process holds back to send them together (an aggregator's buffer). Every sync
// point, and the release of any window, issues them first, so they complete with the others:
// a program never has to remember to flush before it synchronises.

#include <vector>

namespace pgas::runtime {

/// Something holding writes not yet issued. Registered for its lifetime; not copyable or
/// movable (its address is what is registered).
class deferred_writes {
 public:
  deferred_writes();
  deferred_writes(const deferred_writes&) = delete;
  deferred_writes& operator=(const deferred_writes&) = delete;
  deferred_writes(deferred_writes&&) = delete;
  deferred_writes& operator=(deferred_writes&&) = delete;
  /// Issues the writes held (they then complete as any other write does). Local.
  virtual void issue() = 0;

 protected:
  ~deferred_writes();
};

namespace detail {
/// The registered holders, oldest first. In the header, so a sync point with none pays one
/// load and no call.
inline std::vector<deferred_writes*> deferred_write_holders;
void issue_registered_deferred_writes();
}  // namespace detail

/// Issues every registered holder's writes, oldest holder first. Local.
inline void issue_deferred_writes() {
  if (!detail::deferred_write_holders.empty())
    detail::issue_registered_deferred_writes();
}

}  // namespace pgas::runtime
