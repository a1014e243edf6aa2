// Numeric precisions and their storage size.
//
// Bytes per element follow the formats themselves (fp32 4, tf32 stored as fp32 4, fp16/bf16 2,
// fp8/int8 1, int4 0.5); see seeds/003 (Machine Foundations, "precision formats").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dsx {

enum class Precision : std::uint8_t { fp32, tf32, fp16, bf16, fp8, int8, int4 };

inline constexpr std::size_t kPrecisionCount = 7;
inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions = {
    Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16,
    Precision::fp8,  Precision::int8, Precision::int4};

constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32: return 4.0;
    case Precision::tf32: return 4.0;
    case Precision::fp16: return 2.0;
    case Precision::bf16: return 2.0;
    case Precision::fp8: return 1.0;
    case Precision::int8: return 1.0;
    case Precision::int4: return 0.5;
  }
  return 0.0;
}

constexpr std::size_t index_of(Precision p) { return static_cast<std::size_t>(p); }

std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view name);

}  // namespace dsx
