#include "engine/solvers/gemm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/waves.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 5> kOutputs = {"auto", "same", "fp16", "bf16", "fp32"};
// Output tiles a library chooses among, largest first (ties go to the earlier).
constexpr std::array<std::array<double, 2>, 6> kTiles = {{{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64}}};

constexpr std::array<ParamSpec, GemmSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id); its compute_units give the waves"},
    {.name = "precision", .kind = ParamKind::precision, .description = "precision of A and B and of the peak"},
    {.name = "m", .kind = ParamKind::number, .dimension = Dimension::count, .description = "rows of A and C",
     .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "n", .kind = ParamKind::number, .dimension = Dimension::count, .description = "columns of B and C",
     .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "k", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "the inner dimension: columns of A, rows of B", .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "independent multiplies of this shape in one call (batched GEMM)", .has_default = true,
     .default_value = 1, .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "output", .kind = ParamKind::choice, .choices = kOutputs,
     .description = "precision of C: auto (the inputs', 16-bit for 8-bit and narrower inputs), same, fp16, bf16 or fp32",
     .has_default = true, .default_value = 0},
    {.name = "tile_m", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "rows of an output tile; 0 with tile_n 0: the library's best of six common tiles",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 4096, .integer = true},
    {.name = "tile_n", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "columns of an output tile; 0 with tile_m 0: the library's best", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 4096, .integer = true},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of the dense peak full waves of full tiles reach (default 1: the datasheet; the "
                    "calibration profile gives the measured one)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the datasheet memory bandwidth (default 1; calibrated)", .has_default = true,
     .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "launch_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "fixed time of one call: launch, prologue and epilogue (default 0; calibrated)", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1},
}};

constexpr std::array<MetricSpec, GemmSolver::kMetricCount> kMetrics = {{
    {"time_s", Dimension::time, "launch_overhead + max(compute_s, memory_s)"},
    {"achieved_flops_per_s", Dimension::flop_rate, "flops / time_s (what a GEMM benchmark reports)"},
    {"peak_fraction", Dimension::dimensionless, "achieved_flops_per_s / dense peak of the precision", MetricDomain::fraction},
    {"flops", Dimension::flops, "2 M N K x batch"},
    {"bytes_moved", Dimension::bytes, "(M K + K N) x input bytes + M N x output bytes, x batch"},
    {"compute_s", Dimension::time, "waves x 2 tile_m tile_n K / (eta x peak / compute units)"},
    {"memory_s", Dimension::time, "bytes_moved / (memory_efficiency x memory bandwidth)"},
    {"tiles", Dimension::count, "ceil(M / tile_m) x ceil(N / tile_n) x batch"},
    {"waves", Dimension::count, "ceil(tiles / compute units); 1 when the units are unknown"},
    {"wave_efficiency", Dimension::dimensionless, "tiles / (waves x compute units)", MetricDomain::fraction},
    {"tile_efficiency", Dimension::dimensionless, "M N / (padded M x padded N)", MetricDomain::fraction},
    {"tile_m_used", Dimension::count, "output tile rows (chosen or given)"},
    {"tile_n_used", Dimension::count, "output tile columns (chosen or given)"},
    {"arithmetic_intensity_flop_per_byte", Dimension::dimensionless, "flops / bytes_moved"},
}};

constexpr std::array<std::string_view, 2> kReasons = {
    kPrecisionUnsupported,
    "tile_m and tile_n are both 0 (the library chooses) or both given",
};

}  // namespace

GemmTiling gemm_tiling(double m, double n, double k, double batch, double tile_m, double tile_n, double units,
                       double flops_per_s) {
  GemmTiling t;
  const double rows = std::ceil(m / tile_m), cols = std::ceil(n / tile_n);
  t.tiles = rows * cols * batch;
  t.tile_efficiency = m * n / (rows * tile_m * cols * tile_n);
  const double work_per_tile = 2 * tile_m * tile_n * k;
  const Waves w = wave_quantization(t.tiles, units);
  t.waves = w.count;
  t.wave_efficiency = w.efficiency;
  t.compute_s = units > 0 ? w.time_s(work_per_tile, flops_per_s, units) : t.tiles * work_per_tile / flops_per_s;
  return t;
}

GemmSolver::GemmSolver()
    : TabledSolver("gemm", "one GEMM (or a batch): tile and wave quantization, roofline, fixed call cost", kParams,
                   kMetrics, kReasons) {}

PointResult GemmSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const Precision p = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  if (!hw.supports(p)) return {PointStatus::infeasible, precision_unsupported};
  if ((v[Param::tile_m] == 0) != (v[Param::tile_n] == 0)) return {PointStatus::infeasible, tile_needs_both_sides};
  const double M = v[Param::m], N = v[Param::n], K = v[Param::k], B = v[Param::batch];
  const double rate = v[Param::eta] * hw.gemm_peak(p);
  const double units = hw.compute_units;
  GemmTiling best;
  double tm = v[Param::tile_m], tn = v[Param::tile_n];
  if (tm > 0) {
    best = gemm_tiling(M, N, K, B, tm, tn, units, rate);
  } else {
    best.compute_s = std::numeric_limits<double>::infinity();
    for (const auto& tile : kTiles) {
      const GemmTiling t = gemm_tiling(M, N, K, B, tile[0], tile[1], units, rate);
      if (t.compute_s < best.compute_s) {
        best = t;
        tm = tile[0];
        tn = tile[1];
      }
    }
  }
  const double in_bytes = bytes_per_element(p);
  const std::size_t output_choice = static_cast<std::size_t>(v[Param::output]);
  const double out_bytes = output_choice == 0   ? std::max(in_bytes, 2.0)
                           : output_choice == 1 ? in_bytes
                           : output_choice == 4 ? 4.0
                                                : 2.0;
  const double moved = ((M * K + K * N) * in_bytes + M * N * out_bytes) * B;
  const double memory = moved / (v[Param::memory_efficiency] * hw.memory_bandwidth_bytes_per_s);
  const double total_flops = 2 * M * N * K * B;
  const double t = v[Param::launch_overhead] + std::max(best.compute_s, memory);
  out[time_s] = t;
  out[achieved_flops_per_s] = total_flops / t;
  out[peak_fraction] = total_flops / t / hw.peak(p);
  out[flops] = total_flops;
  out[bytes_moved] = moved;
  out[compute_s] = best.compute_s;
  out[memory_s] = memory;
  out[tiles] = best.tiles;
  out[waves] = best.waves;
  out[wave_efficiency] = best.wave_efficiency;
  out[tile_efficiency] = best.tile_efficiency;
  out[tile_m_used] = tm;
  out[tile_n_used] = tn;
  out[arithmetic_intensity_flop_per_byte] = total_flops / moved;
  return {};
}

}  // namespace dsx
