#include "engine/precision.hpp"

namespace dsx {

namespace {
constexpr std::array<std::string_view, kPrecisionCount> kNames = {"fp64", "fp32", "tf32", "fp16", "bf16",
                                                                  "fp8",  "fp6",  "fp4",  "int8", "int4"};
}

std::string_view precision_name(Precision p) { return kNames[index_of(p)]; }

std::optional<Precision> parse_precision(std::string_view name) {
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    if (kNames[i] == name) return kAllPrecisions[i];
  }
  return std::nullopt;
}

}  // namespace dsx
