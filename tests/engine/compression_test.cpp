// The compression solver against hand calculations: int4 weight bytes with AWQ/GPTQ group scales, a
// memory-bound decode speeding up by the bytes ratio, a compute-bound step that weight-only
// quantization cannot speed up, and 2:4 sparsity doubling the linear FLOP rate where supported.
#include "engine/solvers/compression.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/registry.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using C = CompressionSolver;

double idx(Precision p) { return static_cast<double>(index_of(p)); }

class CompressionTest : public ::testing::Test {
 protected:
  const CompressionSolver solver;
  const HardwareSpec h100 = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);

  PointInputs point(const HardwareSpec& hw, const PreparedModel& model, Precision weight, double batch) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[C::weight_precision] = idx(weight);
    in.values[C::batch] = batch;
    return in;
  }
  std::vector<double> run(const PointInputs& in, PointStatus expected = PointStatus::ok) const {
    std::vector<double> out(C::kMetricCount);
    EXPECT_EQ(solver.evaluate(in, out).status, expected);
    return out;
  }
};

TEST_F(CompressionTest, Int4WeightBytesCountGroupScales) {
  // 8.03e9 parameters x (0.5 B + (2 B fp16 scale + 0.5 B zero point) / 128) = 0.51953125 B each,
  // against 2 B at fp16: a ratio of 2 / 0.51953125 = 3.8496, not 4.
  const double params = llama8b.serving_shape.parameter_count;
  EXPECT_NEAR(params, 8.03e9, 0.01e9);
  const auto out = run(point(h100, llama8b, Precision::int4, 1));
  EXPECT_DOUBLE_EQ(out[C::baseline_weights_bytes], params * 2.0);
  EXPECT_DOUBLE_EQ(out[C::compressed_weights_bytes], params * 0.51953125);
  EXPECT_NEAR(out[C::compression_ratio], 3.8496, 1e-4);
  // Without group scales (group_size 0) the ratio is the bit-width ratio.
  PointInputs in = point(h100, llama8b, Precision::int4, 1);
  in.values[C::group_size] = 0;
  EXPECT_DOUBLE_EQ(run(in)[C::compression_ratio], 4.0);
  // Nothing here is a published accuracy figure.
  EXPECT_TRUE(std::isnan(out[C::accuracy_delta]));
}

TEST_F(CompressionTest, MemoryBoundDecodeSpeedsUpByTheBytesRatio) {
  // Batch 1, one token: ~2 x 8e9 FLOPs against ~15 GB of weights, far below the H100's ridge
  // (989 TFLOP/s / 3.35 TB/s = 295 FLOP/B), so both steps are bandwidth-bound and the speed-up is
  // the ratio of bytes moved, close to the weights' 3.85 (activations stay fp16).
  const auto out = run(point(h100, llama8b, Precision::int4, 1));
  EXPECT_DOUBLE_EQ(out[C::baseline_latency_s], out[C::baseline_bytes_moved] / h100.memory_bandwidth_bytes_per_s);
  EXPECT_DOUBLE_EQ(out[C::compressed_latency_s], out[C::compressed_memory_s]);
  EXPECT_NEAR(out[C::speedup], out[C::baseline_bytes_moved] / out[C::compressed_bytes_moved], 1e-12);
  EXPECT_GT(out[C::speedup], 3.7);
  EXPECT_LT(out[C::speedup], 3.85);
  // ~15 GB / 3.35 TB/s ~ 4.5 ms at fp16.
  EXPECT_NEAR(out[C::baseline_latency_s], 2 * 7.5e9 / 3.35e12, 0.2e-3);
  // int8 weights: half the bytes plus (2 + 1) / 128 of scales, ~1.95x.
  const auto int8 = run(point(h100, llama8b, Precision::int8, 1));
  EXPECT_NEAR(int8[C::speedup], 2.0 / (1.0 + 3.0 / 128), 0.02);
}

TEST_F(CompressionTest, ComputeBoundBatchGainsNothingFromWeightOnly) {
  // Batch 2,048 decode: ~2,048 FLOP per weight byte at fp16, far above the ridge; weight-only int4
  // keeps the fp16 compute, so the step takes exactly as long.
  const auto out = run(point(h100, llama8b, Precision::int4, 2048));
  EXPECT_GT(out[C::compressed_compute_s], out[C::compressed_memory_s]);
  EXPECT_DOUBLE_EQ(out[C::speedup], 1.0);
  EXPECT_DOUBLE_EQ(out[C::compressed_latency_s], out[C::flops] / h100.peak(Precision::fp16));
  // FP8 weights and activations at the same batch run at the fp8 peak: 1,979 / 989 = 2x.
  PointInputs in = point(h100, llama8b, Precision::fp8, 2048);
  in.values[C::quantize] = C::weights_activations;
  EXPECT_NEAR(run(in)[C::speedup], 1979.0 / 989.0, 1e-9);
}

TEST_F(CompressionTest, TwoFourDoublesTheLinearComputeRoof) {
  // Prefill of 8 prompts x 512 tokens at fp16 with 2:4 sparsity: the linear FLOPs run at 2 x 989
  // TFLOP/s, attention at 989; weights are half the values plus 2-bit indices: 0.5 x (2 + 0.25) B.
  PointInputs in = point(h100, llama8b, Precision::fp16, 8);
  in.values[C::phase] = C::prefill;
  in.values[C::context_tokens] = 512;
  in.values[C::structured_2_4] = 1;
  const auto out = run(in);
  const double linear = llama8b.serving_shape.linear_flops_per_token * 8 * 512;
  const double peak = h100.peak(Precision::fp16);
  EXPECT_NEAR(out[C::compressed_compute_s], (out[C::flops] - linear) / peak + linear / (2 * peak),
              1e-12 * out[C::compressed_compute_s]);
  EXPECT_GT(out[C::speedup], 1.9);
  EXPECT_LE(out[C::speedup], 2.0);
  EXPECT_DOUBLE_EQ(out[C::compression_ratio], 2.0 / 1.125);
  // A part without sparse tensor cores (Volta) is infeasible with 2:4.
  HardwareSpec volta = h100;
  volta.id = "v100_16gb_sxm2";
  volta.sparse_speedup = 0;
  in.hardware = &volta;
  run(in, PointStatus::infeasible);
}

TEST_F(CompressionTest, UnstructuredSparsitySavesBytesNotFlops) {
  // 50% unstructured at fp16: 0.5 x 2 B + 0.125 B bitmask = 1.125 B per weight; compute-bound
  // prefill keeps every dense FLOP, so no speed-up.
  PointInputs in = point(h100, llama8b, Precision::fp16, 8);
  in.values[C::phase] = C::prefill;
  in.values[C::context_tokens] = 512;
  in.values[C::sparsity] = 0.5;
  const auto out = run(in);
  EXPECT_DOUBLE_EQ(out[C::compression_ratio], 2.0 / 1.125);
  EXPECT_DOUBLE_EQ(out[C::speedup], 1.0);
  in.values[C::structured_2_4] = 1;
  run(in, PointStatus::infeasible);
}

TEST_F(CompressionTest, InfeasibleAndUnknowns) {
  // W8A8 needs an int8 peak (this H100 spec lists none); weight-only int4 needs no int4 peak.
  EXPECT_FALSE(h100.supports(Precision::int8));
  PointInputs in = point(h100, llama8b, Precision::int8, 1);
  in.values[C::quantize] = C::weights_activations;
  run(in, PointStatus::infeasible);
  EXPECT_FALSE(h100.supports(Precision::int4));
  run(point(h100, llama8b, Precision::int4, 1));
  // Llama 70B: 141 GB at fp16 does not fit 80 GiB, ~36.7 GB at int4 does.
  const auto big = run(point(h100, llama70b, Precision::int4, 1));
  EXPECT_EQ(big[C::baseline_fits], 0.0);
  EXPECT_LT(big[C::compressed_memory_bytes], h100.memory_bytes);
  run(point(h100, llama70b, Precision::fp16, 1), PointStatus::infeasible);
  // Unknown TDP: unknown energy.
  HardwareSpec no_tdp = h100;
  no_tdp.tdp_w = 0;
  const auto e = run(point(no_tdp, llama8b, Precision::int4, 1));
  EXPECT_TRUE(std::isnan(e[C::compressed_energy_per_inference_j]));
  EXPECT_GT(run(point(h100, llama8b, Precision::int4, 1))[C::compressed_energy_per_inference_j], 0.0);
}

TEST_F(CompressionTest, AQuantizedKvCacheHalvesItsBytesAndTheDecodeReadsOfIt) {
  // Llama 3 8B: 2 x 32 layers x 8 KV heads x 128 x 2 B = 128 KiB of KV per token at fp16; 8 sequences
  // of 16,384 tokens hold 16 GiB of it. An fp8 cache (vLLM's kv_cache_dtype fp8) holds 8 GiB.
  PointInputs in = point(h100, llama8b, Precision::fp16, 8);
  in.values[C::context_tokens] = 16384;
  const auto fp16_kv = run(in);
  const double kv_fp16 = 8 * 16384 * 131072.0;
  EXPECT_DOUBLE_EQ(fp16_kv[C::compressed_memory_bytes] - fp16_kv[C::compressed_weights_bytes], kv_fp16);
  in.values[C::kv_cache] = 1;  // fp8
  const auto fp8_kv = run(in);
  EXPECT_DOUBLE_EQ(fp8_kv[C::compressed_memory_bytes] - fp8_kv[C::compressed_weights_bytes], kv_fp16 / 2);
  EXPECT_DOUBLE_EQ(fp8_kv[C::baseline_memory_bytes], fp16_kv[C::baseline_memory_bytes]);  // the baseline keeps fp16
  // The decode step reads every cached token once: half the cache's bytes fewer (and one new token
  // per sequence written at one byte instead of two).
  const double saved = fp16_kv[C::compressed_bytes_moved] - fp8_kv[C::compressed_bytes_moved];
  EXPECT_NEAR(saved, kv_fp16 / 2, 0.001 * kv_fp16);
  EXPECT_GT(fp8_kv[C::speedup], fp16_kv[C::speedup]);
  in.values[C::kv_cache] = 3;  // int4: a quarter of the bytes
  EXPECT_DOUBLE_EQ(run(in)[C::compressed_memory_bytes] - fp16_kv[C::compressed_weights_bytes], kv_fp16 / 4);
}

TEST_F(CompressionTest, IsRegistered) { EXPECT_NE(find_solver("compression"), nullptr); }

}  // namespace
}  // namespace dsx
