// A column of dictionary codes, one a row (dse/results.hpp: a table's axis labels and details), held
// in the fewest bytes that hold its largest code: 1 a row while every code is below 256, 2 below
// 65,536, else 4. A sweep's axis rarely has more than 256 values, so a row of five axes costs 5 or
// 6 bytes instead of 20.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dsx {

class CodeColumn {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Bytes a code takes: 1, 2 or 4.
  std::size_t width() const { return width_; }
  std::uint32_t operator[](std::size_t row) const {
    return width_ == 1 ? narrow_[row] : width_ == 2 ? std::uint32_t{middle_[row]} : wide_[row];
  }
  void push_back(std::uint32_t code) {
    if (code > max_code()) widen_for(code);
    if (width_ == 1) {
      narrow_.push_back(static_cast<std::uint8_t>(code));
    } else if (width_ == 2) {
      middle_.push_back(static_cast<std::uint16_t>(code));
    } else {
      wide_.push_back(code);
    }
    ++size_;
  }
  void set(std::size_t row, std::uint32_t code) {
    if (code > max_code()) widen_for(code);
    if (width_ == 1) {
      narrow_[row] = static_cast<std::uint8_t>(code);
    } else if (width_ == 2) {
      middle_[row] = static_cast<std::uint16_t>(code);
    } else {
      wide_[row] = code;
    }
  }
  // Room for `rows` codes of the present width (a wider code later moves them once).
  void reserve(std::size_t rows);
  // Drops the codes and keeps the width and the capacity (a table refilled block after block).
  void clear() {
    narrow_.clear();
    middle_.clear();
    wide_.clear();
    size_ = 0;
  }
  // Bytes held (capacity, not size).
  std::size_t heap_bytes() const {
    return narrow_.capacity() + middle_.capacity() * sizeof(std::uint16_t) + wide_.capacity() * sizeof(std::uint32_t);
  }
  // Where the codes are held, for tests that a refilled column keeps its room.
  const void* data() const {
    return width_ == 1 ? static_cast<const void*>(narrow_.data())
                       : width_ == 2 ? static_cast<const void*>(middle_.data()) : static_cast<const void*>(wide_.data());
  }
  // The codes, whatever their width.
  std::vector<std::uint32_t> codes() const;
  friend bool operator==(const CodeColumn& a, const CodeColumn& b);

 private:
  std::uint32_t max_code() const { return width_ == 1 ? 0xffu : width_ == 2 ? 0xffffu : 0xffffffffu; }
  void widen_for(std::uint32_t code);

  std::size_t width_ = 1;
  std::size_t size_ = 0;
  std::vector<std::uint8_t> narrow_;
  std::vector<std::uint16_t> middle_;
  std::vector<std::uint32_t> wide_;
};

}  // namespace dsx
