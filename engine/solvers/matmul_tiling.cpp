#include "engine/solvers/matmul_tiling.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/tiling.hpp"

namespace dsx {

namespace {

constexpr std::array<ParamSpec, MatmulTilingSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware,
     .description = "GPU (catalog id); its kernel limits bound the tile"},
    {.name = "n", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "matrix size N of C = A x B (N x N, fp32)", .min_value = 1, .max_value = 1e6, .integer = true},
    {.name = "block_tile", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "L: a thread block computes an L x L tile of C", .min_value = 1, .max_value = 1e6,
     .integer = true},
    {.name = "thread_tile", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "V: a thread computes a V x V sub-tile in registers", .min_value = 1, .max_value = 1e6,
     .integer = true},
    {.name = "k_step", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "S: rows of A and B staged in shared memory per step (sA[S][L], sB[S][L])",
     .min_value = 1, .max_value = 1e6, .integer = true},
    {.name = "extra_registers_per_thread", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "address, index and loop registers on top of the c, a and b arrays",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6, .integer = true},
}};

constexpr std::array<MetricSpec, MatmulTilingSolver::kMetricCount> kMetrics = {{
    {"flops", Dimension::flops, "2 N^3"},
    {"global_traffic_bytes", Dimension::bytes, "global-memory reads of A and B: 2 N^3 / L x 4 B (seeds/002)"},
    {"shared_traffic_bytes", Dimension::bytes, "shared-memory reads: 2 N^3 / V x 4 B (seeds/002)"},
    {"global_intensity_flop_per_byte", Dimension::dimensionless, "flops / global_traffic_bytes = L / 4"},
    {"shared_intensity_flop_per_byte", Dimension::dimensionless, "flops / shared_traffic_bytes = V / 4"},
    {"arithmetic_ops_per_element", Dimension::dimensionless,
     "N^2 (2N - 1) multiplies and adds per element read from global memory (the slides' quiz at N = L = 2)"},
    {"thread_blocks", Dimension::count, "N^2 / L^2"},
    {"threads_per_block", Dimension::count, "(L / V)^2"},
    {"shared_memory_per_block_bytes", Dimension::bytes, "2 S L x 4 B"},
    {"shared_memory_sm_fraction", Dimension::dimensionless, "share of one SM's shared memory a block takes"},
    {"registers_per_thread", Dimension::count, "V^2 + 2V + extra 32-bit registers"},
    {"registers_per_block", Dimension::count, "registers_per_thread x threads_per_block"},
    {"on_chip_bytes_per_block", Dimension::bytes, "shared memory + 4 B x registers of one block"},
    {"barriers_per_block", Dimension::count, "__syncthreads per block: 2 N / S"},
    {"compute_s", Dimension::time, "flops / fp32 peak"},
    {"memory_s", Dimension::time, "global_traffic_bytes / memory bandwidth"},
    {"roofline_time_s", Dimension::time, "max(compute_s, memory_s)"},
}};

// Indexed by TileVerdict - 1.
constexpr std::array<std::string_view, 8> kReasons = {
    "block tile L does not divide the matrix size N",
    "thread tile V does not divide the block tile L",
    "k-step S does not divide the matrix size N",
    "limits unknown: the hardware entry gives no shared-memory, register and thread limits",
    "too many threads per block",
    "shared memory per block exceeds the limit",
    "registers per thread exceed the limit",
    "the block's registers exceed the SM's register file",
};

}  // namespace

MatmulTilingSolver::MatmulTilingSolver()
    : TabledSolver("matmul_tiling",
                   "N x N fp32 matmul tiled into L x L blocks and V x V thread tiles: traffic vs on-chip resources",
                   kParams, kMetrics, kReasons) {}

PointResult MatmulTilingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& gpu = *in.hardware;
  const MatmulTile tile{.n = in.values[Param::n],
                        .block_tile = in.values[Param::block_tile],
                        .thread_tile = in.values[Param::thread_tile],
                        .k_step = in.values[Param::k_step],
                        .extra_registers_per_thread = in.values[Param::extra_registers_per_thread]};
  const MatmulTileCost c = matmul_tile_cost(tile);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const double global_bytes = c.global_elements * kFp32Bytes;
  const double shared_bytes = c.shared_elements * kFp32Bytes;
  const double peak = gpu.peak(Precision::fp32);
  const double bandwidth = gpu.memory_bandwidth_bytes_per_s;

  out[flops] = c.flops;
  out[global_traffic_bytes] = global_bytes;
  out[shared_traffic_bytes] = shared_bytes;
  out[global_intensity_flop_per_byte] = c.flops / global_bytes;
  out[shared_intensity_flop_per_byte] = c.flops / shared_bytes;
  out[arithmetic_ops_per_element] = c.arithmetic_ops / c.global_elements;
  out[thread_blocks] = c.thread_blocks;
  out[threads_per_block] = c.threads_per_block;
  out[shared_memory_per_block_bytes] = c.shared_memory_bytes_per_block;
  out[shared_memory_sm_fraction] = gpu.shared_memory_per_sm_bytes > 0
                                       ? c.shared_memory_bytes_per_block / gpu.shared_memory_per_sm_bytes
                                       : kNaN;
  out[registers_per_thread] = c.registers_per_thread;
  out[registers_per_block] = c.registers_per_block;
  out[on_chip_bytes_per_block] = c.shared_memory_bytes_per_block + c.registers_per_block * kFp32Bytes;
  out[barriers_per_block] = c.barriers_per_block;
  out[compute_s] = peak > 0 ? c.flops / peak : kNaN;
  out[memory_s] = global_bytes / bandwidth;
  out[roofline_time_s] = peak > 0 ? std::max(out[compute_s], out[memory_s]) : kNaN;

  const TileVerdict verdict = check_matmul_tile(tile, c, gpu);
  if (verdict != TileVerdict::fits) {
    return {PointStatus::infeasible, static_cast<std::uint8_t>(static_cast<std::uint8_t>(verdict) - 1)};
  }
  return {};
}

}  // namespace dsx
