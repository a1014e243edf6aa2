#include "engine/solvers/matmul_tiling.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

namespace dsx {
namespace {

using M = MatmulTilingSolver;

// NVIDIA A100 80GB (catalog): fp32 19.5 TFLOP/s, 2.039 TB/s; compute capability 8.0 limits from the
// CUDA C Programming Guide.
HardwareSpec a100() {
  HardwareSpec gpu;
  gpu.id = "a100";
  gpu.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  gpu.memory_bandwidth_bytes_per_s = 2.039e12;
  gpu.shared_memory_per_block_bytes = 163 * 1024.0;
  gpu.shared_memory_per_sm_bytes = 164 * 1024.0;
  gpu.registers_per_thread = 255;
  gpu.registers_per_sm = 65536;
  gpu.max_threads_per_block = 1024;
  return gpu;
}

struct Eval {
  PointResult result;
  std::array<double, M::kMetricCount> m{};
};

Eval run(const HardwareSpec& gpu, double n, double l, double v, double s, double extra = 0) {
  PointInputs in;
  in.hardware = &gpu;
  in.values[M::n] = n;
  in.values[M::block_tile] = l;
  in.values[M::thread_tile] = v;
  in.values[M::k_step] = s;
  in.values[M::extra_registers_per_thread] = extra;
  Eval r;
  r.result = M().evaluate(in, r.m);
  return r;
}

TEST(MatmulTiling, DeclaresOneMetricPerEnumEntry) {
  const M solver;
  EXPECT_EQ(solver.params().size(), M::kParamCount);
  EXPECT_EQ(solver.metrics().size(), M::kMetricCount);
  EXPECT_EQ(solver.metrics()[M::roofline_time_s].name, "roofline_time_s");
  EXPECT_EQ(solver.reasons().size(), 8U);
}

// seeds/002: global traffic 2N^3 / L, shared 2N^3 / V, fp32.
TEST(MatmulTiling, FeasibleTileMetrics) {
  const HardwareSpec gpu = a100();
  const Eval r = run(gpu, 4096, 128, 8, 32);
  ASSERT_EQ(r.result.status, PointStatus::ok);
  const double n3 = 4096.0 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(r.m[M::flops], 2 * n3);
  EXPECT_DOUBLE_EQ(r.m[M::global_traffic_bytes], 2 * n3 / 128 * 4);
  EXPECT_DOUBLE_EQ(r.m[M::shared_traffic_bytes], 2 * n3 / 8 * 4);
  EXPECT_DOUBLE_EQ(r.m[M::global_intensity_flop_per_byte], 32);
  EXPECT_DOUBLE_EQ(r.m[M::shared_intensity_flop_per_byte], 2);
  EXPECT_DOUBLE_EQ(r.m[M::thread_blocks], 1024);
  EXPECT_DOUBLE_EQ(r.m[M::threads_per_block], 256);
  EXPECT_DOUBLE_EQ(r.m[M::shared_memory_per_block_bytes], 32768);
  EXPECT_DOUBLE_EQ(r.m[M::shared_memory_sm_fraction], 32768 / (164 * 1024.0));
  EXPECT_DOUBLE_EQ(r.m[M::registers_per_thread], 80);
  EXPECT_DOUBLE_EQ(r.m[M::registers_per_block], 80 * 256);
  EXPECT_DOUBLE_EQ(r.m[M::on_chip_bytes_per_block], 32768 + 80 * 256 * 4);
  EXPECT_DOUBLE_EQ(r.m[M::barriers_per_block], 256);
  // L = 128 gives 32 FLOP/byte, above the A100's fp32 ridge 19.5 / 2.039 = 9.6: compute-bound.
  EXPECT_DOUBLE_EQ(r.m[M::compute_s], 2 * n3 / 19.5e12);
  EXPECT_DOUBLE_EQ(r.m[M::roofline_time_s], r.m[M::compute_s]);
}

TEST(MatmulTiling, SmallBlockTilesAreMemoryBound) {
  const HardwareSpec gpu = a100();
  // L = 16: 4 FLOP/byte, below the fp32 ridge.
  const Eval r = run(gpu, 4096, 16, 2, 16);
  ASSERT_EQ(r.result.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(r.m[M::global_intensity_flop_per_byte], 4);
  EXPECT_DOUBLE_EQ(r.m[M::roofline_time_s], r.m[M::memory_s]);
  EXPECT_GT(r.m[M::memory_s], r.m[M::compute_s]);
}

// seeds/002 quiz: 2 x 2 matmul, Load A, Load B, C = matmul(A, B): 12 operations / 8 elements = 1.5.
TEST(MatmulTiling, SlidesQuizRow) {
  const HardwareSpec gpu = a100();
  const Eval r = run(gpu, 2, 2, 1, 2);
  ASSERT_EQ(r.result.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(r.m[M::arithmetic_ops_per_element], 1.5);
  EXPECT_DOUBLE_EQ(r.m[M::global_traffic_bytes], 8 * 4);
}

TEST(MatmulTiling, InfeasibleTilesNameTheLimit) {
  const HardwareSpec gpu = a100();
  const M solver;
  const auto reason = [&](const Eval& r) {
    EXPECT_EQ(r.result.status, PointStatus::infeasible);
    return solver.reasons()[r.result.reason];
  };
  EXPECT_EQ(reason(run(gpu, 2, 16, 1, 2)), "block tile L does not divide the matrix size N");
  EXPECT_EQ(reason(run(gpu, 4096, 64, 3, 8)), "thread tile V does not divide the block tile L");
  EXPECT_EQ(reason(run(gpu, 4096, 64, 4, 3)), "k-step S does not divide the matrix size N");
  EXPECT_EQ(reason(run(gpu, 4096, 64, 1, 8)), "too many threads per block");
  EXPECT_EQ(reason(run(gpu, 4096, 256, 16, 128)), "shared memory per block exceeds the limit");
  EXPECT_EQ(reason(run(gpu, 4096, 128, 16, 64)), "registers per thread exceed the limit");
  EXPECT_EQ(reason(run(gpu, 4096, 64, 2, 8, 60)), "the block's registers exceed the SM's register file");
  // Metrics are still written for an infeasible tile.
  EXPECT_DOUBLE_EQ(run(gpu, 4096, 64, 1, 8).m[M::threads_per_block], 4096);
}

TEST(MatmulTiling, UnknownLimitsAreInfeasible) {
  HardwareSpec npu = a100();
  npu.shared_memory_per_block_bytes = 0;
  const Eval r = run(npu, 4096, 128, 8, 32);
  EXPECT_EQ(r.result.status, PointStatus::infeasible);
  EXPECT_EQ(M().reasons()[r.result.reason],
            "limits unknown: the hardware entry gives no shared-memory, register and thread limits");
  EXPECT_TRUE(std::isfinite(r.m[M::global_traffic_bytes]));
}

}  // namespace
}  // namespace dsx
