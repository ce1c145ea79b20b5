#include <pgas/runtime/code_address.hpp>
#include <pgas/runtime/error.hpp>

#include <algorithm>
#include <cstddef>
#include <link.h>
#include <string>
#include <vector>

namespace pgas::runtime {
namespace {

// One loaded object: where the linker placed it and the span of its loadable segments.
struct loaded_object {
  std::uintptr_t bias = 0;
  std::uintptr_t low = 0;
  std::uintptr_t high = 0;
};

// The linker's list, in its order; read again when an address falls outside every object read
// so far (a library opened since). Used from the thread that runs pgas calls only, as the
// engine that asks it.
class object_table {
 public:
  std::uint64_t name(const void* function) {
    // Streams of calls name one function over and over: the last answer is kept.
    if (function == last_function_ && function != nullptr)
      return last_name_;
    const auto at = reinterpret_cast<std::uintptr_t>(function);
    for (int attempt = 0; attempt < 2; ++attempt) {
      for (std::size_t k = 0; k < objects_.size(); ++k) {
        if (at >= objects_[k].low && at < objects_[k].high) {
          last_function_ = function;
          last_name_ = (static_cast<std::uint64_t>(k) << offset_bits) | (at - objects_[k].bias);
          return last_name_;
        }
      }
      read();
    }
    throw usage_error(
        "a remote call names a function that lies in no loaded object of this program");
  }
  const void* address(std::uint64_t portable) {
    if (portable == last_portable_ && last_address_ != nullptr)
      return last_address_;
    const std::size_t k = portable >> offset_bits;
    const std::uintptr_t offset = portable & ((std::uint64_t{1} << offset_bits) - 1);
    if (k >= objects_.size())
      read();
    if (k >= objects_.size() || objects_[k].bias + offset >= objects_[k].high) {
      throw usage_error(
          "a message names a function this program does not have: every image must "
          "run the same program with the same libraries");
    }
    last_portable_ = portable;
    last_address_ = reinterpret_cast<const void*>(objects_[k].bias + offset);
    return last_address_;
  }

 private:
  // An object is at most 2^40 bytes; the index takes the rest.
  static constexpr unsigned offset_bits = 40;
  void read() {
    objects_.clear();
    last_function_ = last_address_ = nullptr;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
          loaded_object o;
          o.bias = info->dlpi_addr;
          o.low = UINTPTR_MAX;
          for (int h = 0; h < info->dlpi_phnum; ++h) {
            const ElfW(Phdr)& p = info->dlpi_phdr[h];
            if (p.p_type != PT_LOAD)
              continue;
            o.low = std::min<std::uintptr_t>(o.low, info->dlpi_addr + p.p_vaddr);
            o.high = std::max<std::uintptr_t>(o.high, info->dlpi_addr + p.p_vaddr + p.p_memsz);
          }
          if (o.low == UINTPTR_MAX)
            o.low = o.high = 0;
          static_cast<std::vector<loaded_object>*>(out)->push_back(o);
          return 0;
        },
        &objects_);
  }
  std::vector<loaded_object> objects_;
  const void* last_function_ = nullptr;
  std::uint64_t last_name_ = 0;
  std::uint64_t last_portable_ = 0;
  const void* last_address_ = nullptr;
};

object_table& table() {
  static object_table t;
  return t;
}

}  // namespace

std::uint64_t portable_code_address(const void* function) {
  return table().name(function);
}

const void* local_code_address(std::uint64_t portable) {
  return table().address(portable);
}

}  // namespace pgas::runtime
