// Numeric precisions and their storage size.
//
// Bytes per element follow the formats themselves (fp64 8, fp32 4, tf32 stored as fp32 4, fp16/bf16 2,
// fp8/int8 1, fp6 0.75, fp4/int4 0.5); see seeds/003 (Machine Foundations, "precision formats") and
// the OCP Microscaling Formats (MX) v1.0 specification (2023) for fp6 (E2M3/E3M2) and fp4 (E2M1);
// the shared block scales of MX formats (one 8-bit scale per 32 elements, 0.25 bit per element) are
// not counted.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dsx {

enum class Precision : std::uint8_t { fp64, fp32, tf32, fp16, bf16, fp8, fp6, fp4, int8, int4 };

inline constexpr std::size_t kPrecisionCount = 10;
inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions = {
    Precision::fp64, Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16,
    Precision::fp8,  Precision::fp6,  Precision::fp4,  Precision::int8, Precision::int4};

constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp64: return 8.0;
    case Precision::fp32: return 4.0;
    case Precision::tf32: return 4.0;
    case Precision::fp16: return 2.0;
    case Precision::bf16: return 2.0;
    case Precision::fp8: return 1.0;
    case Precision::fp6: return 0.75;
    case Precision::fp4: return 0.5;
    case Precision::int8: return 1.0;
    case Precision::int4: return 0.5;
  }
  return 0.0;
}

constexpr std::size_t index_of(Precision p) { return static_cast<std::size_t>(p); }

std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view name);

}  // namespace dsx
