#include <pgas/runtime/error.hpp>
#include <pgas/runtime/info.hpp>

namespace pgas::runtime {

void info::set(const char* key, const std::string& value) {
  if (handle_.empty())
    check(MPI_Info_create(handle_.out()), "MPI_Info_create");
  check(MPI_Info_set(handle_.get(), key, value.c_str()), "MPI_Info_set");
}

info window_hints::to_info() const {
  const auto text = [](bool b) { return std::string(b ? "true" : "false"); };
  info out;
  if (no_locks)
    out.set("no_locks", text(*no_locks));
  if (ordering) {
    // "none" allows MPI to reorder accumulates from one origin to one target (MPI-4.1 §12.2.1;
    // the default orders them, §12.7.2).
    out.set("accumulate_ordering",
            *ordering == accumulate_ordering::none ? "none" : "rar,raw,war,waw");
  }
  if (ops)
    out.set("accumulate_ops", *ops == accumulate_ops::same_op ? "same_op" : "same_op_no_op");
  if (same_size)
    out.set("same_size", text(*same_size));
  if (same_disp_unit)
    out.set("same_disp_unit", text(*same_disp_unit));
  if (shared_noncontig)
    out.set("alloc_shared_noncontig", text(*shared_noncontig));
  return out;
}

}  // namespace pgas::runtime
