#include "dse/physics_fingerprint.hpp"

#include <bit>
#include <cstdint>
#include <exception>
#include <vector>

#include "dse/grid.hpp"
#include "dse/study_loader.hpp"

namespace dsx {

namespace {

constexpr std::uint64_t kDroppedMantissaBits = 12;

std::uint64_t rounded_bits(double v) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t half = std::uint64_t{1} << (kDroppedMantissaBits - 1);
  const std::uint64_t mask = ~((std::uint64_t{1} << kDroppedMantissaBits) - 1);
  // Round half up on the magnitude; a carry into the exponent is the correctly rounded neighbour.
  // NaN and infinity keep their bits (their mantissa is not a magnitude).
  const std::uint64_t exponent = (bits >> 52U) & 0x7FFU;
  if (exponent == 0x7FFU) return bits;
  return (bits + half) & mask;
}

}  // namespace

std::string physics_fingerprint(const ResolvedStudy& study) {
  const Grid grid(study);
  const Solver& solver = *study.solver;
  const std::uint64_t size = grid.size();
  const std::uint64_t probes = size < kFingerprintProbes ? size : kFingerprintProbes;
  std::vector<double> metrics(solver.metrics().size());
  std::string record;
  PointInputs inputs;
  for (std::uint64_t k = 0; k < probes; ++k) {
    const std::uint64_t index = k * (size / probes) + k * (size % probes) / probes;  // floor(k size / probes)
    std::fill(metrics.begin(), metrics.end(), 0.0);
    PointResult result{PointStatus::error, 0};
    try {
      grid.inputs(index, inputs);
      result = solver.evaluate(inputs, metrics);
    } catch (const std::exception&) {
      result = {PointStatus::error, 0};
    }
    record += std::to_string(index);
    record += ':';
    record += std::to_string(static_cast<int>(result.status));
    record += ':';
    record += std::to_string(result.reason);
    if (result.status == PointStatus::ok) {
      for (const double v : metrics) {
        record += ',';
        record += study_loading::hex64(rounded_bits(v));
      }
    }
    record += ';';
  }
  return study_loading::hex64(study_loading::fnv1a(record));
}

}  // namespace dsx
