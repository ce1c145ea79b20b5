#pragma once
// Writes this process holds back to send them together (an aggregator's buffer). Every sync
// point, and the release of any window, issues them first, so they complete with the others:
// a program never has to remember to flush before it synchronises.

#include <vector>

namespace pgas::runtime {

class deferred_writes;

namespace detail {
/// The holders that hold writes now, in the order they began to: a sync point issues these and
/// no others, so holders that hold nothing (a program's idle aggregators and maps) cost it
/// nothing. In the header, so a sync point with none pays one load and no call.
inline std::vector<deferred_writes*> holders_holding_writes;
void issue_registered_deferred_writes();
}  // namespace detail

/// Something holding writes not yet issued; it says holding() when it takes some. Not
/// copyable or movable (its address is what is listed).
class deferred_writes {
 public:
  deferred_writes() = default;
  deferred_writes(const deferred_writes&) = delete;
  deferred_writes& operator=(const deferred_writes&) = delete;
  deferred_writes(deferred_writes&&) = delete;
  deferred_writes& operator=(deferred_writes&&) = delete;
  /// Issues the writes held (they then complete as any other write does). Local.
  virtual void issue() = 0;
  /// Says this holder holds writes: the next sync point issues them. Local; one test once
  /// said, until that sync point.
  void holding() {
    if (!listed_)
      list();
  }

 protected:
  // Virtual: the friend below could otherwise delete a holder through this base (it never does).
  virtual ~deferred_writes();

 private:
  friend void detail::issue_registered_deferred_writes();
  void list();
  bool listed_ = false;
};

/// Issues every holder's writes that holds some, in the order they began to hold. Local.
inline void issue_deferred_writes() {
  if (!detail::holders_holding_writes.empty())
    detail::issue_registered_deferred_writes();
}

}  // namespace pgas::runtime
