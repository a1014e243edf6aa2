#include "engine/solvers/memory_bandwidth.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace dsx {

namespace {

constexpr std::array<std::string_view, 6> kOperations = {"copy", "scale", "add", "triad", "read", "write"};
constexpr std::array<double, 6> kWords = {2, 2, 3, 3, 1, 1};

constexpr std::array<ParamSpec, MemoryBandwidthSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "operation", .kind = ParamKind::choice, .choices = kOperations,
     .description = "STREAM kernel: copy and scale move 2 words per element, add and triad 3, read and write 1",
     .has_default = true, .default_value = 3},
    {.name = "bytes", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "size of one array", .min_value = 1, .max_value = 1e15},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the datasheet memory bandwidth on a long stream (default 1: the "
                    "datasheet; the calibration profile gives the measured fraction)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "launch_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "fixed time per kernel: launch and ramp (default 0; the calibration profile gives the measured one)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
}};

constexpr std::array<MetricSpec, MemoryBandwidthSolver::kMetricCount> kMetrics = {{
    {"time_s", Dimension::time, "launch_overhead + bytes_moved / (memory_efficiency x peak bandwidth)"},
    {"achieved_bandwidth_bytes_per_s", Dimension::bandwidth, "bytes_moved / time_s (what STREAM reports)"},
    {"peak_bandwidth_bytes_per_s", Dimension::bandwidth, "datasheet memory bandwidth (catalog)"},
    {"peak_fraction", Dimension::dimensionless, "achieved / peak bandwidth", MetricDomain::fraction},
    {"bytes_moved", Dimension::bytes, "words per element x bytes"},
}};

constexpr std::array<std::string_view, 1> kReasons = {"the hardware entry gives no memory bandwidth"};

}  // namespace

double stream_words_per_element(std::size_t operation) { return kWords.at(operation); }

MemoryBandwidthSolver::MemoryBandwidthSolver()
    : TabledSolver("memory_bandwidth", "STREAM-style kernel: achieved memory bandwidth and time of one array operation",
                   kParams, kMetrics, kReasons) {}

PointResult MemoryBandwidthSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const double peak = in.hardware->memory_bandwidth_bytes_per_s;
  if (!(peak > 0)) return {PointStatus::infeasible, no_memory_bandwidth};
  const auto& v = in.values;
  const double moved = kWords[static_cast<std::size_t>(v[Param::operation])] * v[Param::bytes];
  const double t = v[Param::launch_overhead] + moved / (v[Param::memory_efficiency] * peak);
  out[time_s] = t;
  out[achieved_bandwidth_bytes_per_s] = moved / t;
  out[peak_bandwidth_bytes_per_s] = peak;
  out[peak_fraction] = moved / t / peak;
  out[bytes_moved] = moved;
  return {};
}

}  // namespace dsx
