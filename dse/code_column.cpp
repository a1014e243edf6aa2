#include "dse/code_column.hpp"

namespace dsx {

namespace {

template <class To, class From>
std::vector<To> widened(std::vector<From>& from) {
  std::vector<To> to;
  to.reserve(from.capacity());
  to.assign(from.begin(), from.end());
  std::vector<From>().swap(from);
  return to;
}

}  // namespace

void CodeColumn::reserve(std::size_t rows) {
  if (width_ == 1) {
    narrow_.reserve(rows);
  } else if (width_ == 2) {
    middle_.reserve(rows);
  } else {
    wide_.reserve(rows);
  }
}

void CodeColumn::widen_for(std::uint32_t code) {
  if (width_ == 1 && code <= 0xffffu) {
    middle_ = widened<std::uint16_t>(narrow_);
    width_ = 2;
  } else if (width_ == 1) {
    wide_ = widened<std::uint32_t>(narrow_);
    width_ = 4;
  } else if (width_ == 2) {
    wide_ = widened<std::uint32_t>(middle_);
    width_ = 4;
  }
}

std::vector<std::uint32_t> CodeColumn::codes() const {
  std::vector<std::uint32_t> out(size_);
  for (std::size_t r = 0; r < size_; ++r) out[r] = (*this)[r];
  return out;
}

bool operator==(const CodeColumn& a, const CodeColumn& b) {
  if (a.size_ != b.size_) return false;
  for (std::size_t r = 0; r < a.size_; ++r) {
    if (a[r] != b[r]) return false;
  }
  return true;
}

}  // namespace dsx
