// The attention solver against the FlashAttention papers' FLOP convention and hand-counted traffic,
// on an H100 SXM (132 SMs, 989 TFLOP/s fp16, 3.35 TB/s).
#include "engine/solvers/attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

using A = AttentionSolver;

std::vector<double> run(double kv_heads, double causal, double pass, double kernel, PointResult* result = nullptr) {
  static const HardwareSpec hw = published::h100_sxm();
  PointInputs in;
  in.hardware = &hw;
  in.values[A::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[A::batch] = 2;
  in.values[A::heads] = 16;
  in.values[A::kv_heads] = kv_heads;
  in.values[A::head_dim] = 128;
  in.values[A::seq_len] = 8192;
  in.values[A::kv_seq_len] = 0;
  in.values[A::causal] = causal;
  in.values[A::pass] = pass;
  in.values[A::kernel] = kernel;
  in.values[A::query_tile] = 128;
  in.values[A::eta] = 1;
  in.values[A::memory_efficiency] = 1;
  in.values[A::launch_overhead] = 0;
  std::vector<double> m(A::kMetricCount);
  const PointResult r = AttentionSolver().evaluate(in, m);
  if (result != nullptr) *result = r;
  return m;
}

TEST(Attention, CountsFlopsAsTheFlashAttentionBenchmarksDo) {
  // 4 x batch 2 x heads 16 x 8192^2 x 128 = 1,099,511,627,776 FLOP forward; causal halves it,
  // backward is 2.5x, both 3.5x.
  const double forward = 4.0 * 2 * 16 * 8192.0 * 8192 * 128;
  EXPECT_DOUBLE_EQ(run(0, 0, 0, 0)[A::flops], forward);
  EXPECT_DOUBLE_EQ(run(0, 1, 0, 0)[A::flops], forward / 2);
  EXPECT_DOUBLE_EQ(run(0, 0, 1, 0)[A::flops], 2.5 * forward);
  EXPECT_DOUBLE_EQ(run(0, 0, 2, 0)[A::flops], 3.5 * forward);
}

TEST(Attention, FusedIsComputeBoundWithWavesOfQueryTiles) {
  const auto m = run(0, 0, 0, 0);
  // 2 x 16 x 8192/128 = 2,048 query tiles over 132 SMs: 16 waves, efficiency 2048 / 2112 = 0.9697;
  // compute = 1.0995e12 / 989e12 / 0.9697 = 1.1465 ms.
  EXPECT_DOUBLE_EQ(m[A::tiles], 2048);
  EXPECT_DOUBLE_EQ(m[A::waves], 16);
  EXPECT_NEAR(m[A::time_s], 4.0 * 2 * 16 * 8192.0 * 8192 * 128 / 989e12 / (2048.0 / 2112), 1e-15);
  // Q, K, V and O once: 4 x 2 x 16 x 8192 x 128 x 2 B = 268,435,456 B (0.08 ms: far from the bound).
  EXPECT_DOUBLE_EQ(m[A::bytes_moved], 268435456);
}

TEST(Attention, UnfusedMovesTheScoreMatrixAndGroupedQueriesShareKeys) {
  // Unfused forward adds 4 passes over the 8192 x 8192 scores of 32 heads: 4 x 32 x 8192^2 x 2 B.
  EXPECT_DOUBLE_EQ(run(0, 0, 0, 1)[A::bytes_moved], 268435456 + 4.0 * 32 * 8192 * 8192 * 2);
  // With 4 KV heads, K and V are a quarter: Q and O 2 x 16 + K and V 2 x 4 heads of 2 x 8192 x 128 x 2 B.
  EXPECT_DOUBLE_EQ(run(4, 0, 0, 0)[A::bytes_moved], (2 * 16 + 2 * 4) * 2.0 * 8192 * 128 * 2);
  PointResult r;
  run(5, 0, 0, 0, &r);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, A::kv_heads_must_divide_heads);
}

}  // namespace
}  // namespace dsx
