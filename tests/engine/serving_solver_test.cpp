// The serving solver: definitions (TTFT, ITL exclusive of the first token, per-replica throughput),
// memory fit, TP, batching, queueing and cost (engine/solvers/serving.hpp).
#include "engine/solvers/serving.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = ServingSolver::Param;
using M = ServingSolver::Metric;

class ServingSolverTest : public ::testing::Test {
 protected:
  const ServingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);

  PointInputs point(const PreparedModel& model, double batch, double tp) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[P::batch] = batch;
    in.values[P::tp] = tp;
    in.values[P::prompt_tokens] = 2048;
    in.values[P::output_tokens] = 256;
    return in;
  }
  std::vector<double> run(const PointInputs& in, PointStatus expected = PointStatus::ok) const {
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, expected);
    return out;
  }
};

TEST_F(ServingSolverTest, DeclarationsAreConsistent) {
  EXPECT_EQ(solver.params().size(), static_cast<std::size_t>(P::kParamCount));
  EXPECT_EQ(solver.metrics().size(), static_cast<std::size_t>(M::kMetricCount));
  EXPECT_LE(solver.params().size(), kMaxParams);
}

// No catalog price and no gpu_hour_price: the point is served as with a price, its costs unknown.
TEST_F(ServingSolverTest, NoPriceLeavesOnlyTheCostsUnknown) {
  const std::vector<double> priced = run(point(llama8b, 8, 1));
  HardwareSpec unpriced = hw;
  unpriced.price_usd = 0;
  PointInputs in = point(llama8b, 8, 1);
  in.hardware = &unpriced;
  const std::vector<double> out = run(in);
  EXPECT_TRUE(std::isnan(out[M::gpu_hour_price_usd]));
  EXPECT_TRUE(std::isnan(out[M::cost_per_million_tokens_usd]));
  EXPECT_DOUBLE_EQ(out[M::tokens_per_s], priced[M::tokens_per_s]);
  // A given GPU-hour price still prices it.
  in.values[P::gpu_hour_price] = 2;
  EXPECT_NEAR(run(in)[M::gpu_hour_price_usd], 2, 1e-12);
}

TEST_F(ServingSolverTest, Llama70bWeightsPerGpuAtTp8) {
  const auto out = run(point(llama70b, 1, 8));
  EXPECT_DOUBLE_EQ(out[M::weights_per_gpu_bytes], llama70b.eager.parameter_count * 2 / 8);
  EXPECT_NEAR(out[M::weights_per_gpu_bytes] / 1e9, 17.64, 0.01);  // 70.55B x 2 B / 8
  // KV cache of one 2,304-token sequence: 327,680 B/token at fp16.
  EXPECT_DOUBLE_EQ(out[M::kv_cache_per_token_bytes], 327680.0);
  EXPECT_DOUBLE_EQ(out[M::kv_cache_bytes], 327680.0 * 2304);
}

TEST_F(ServingSolverTest, Llama70bFp16DoesNotFitOneH100) {
  std::vector<double> out(solver.metrics().size());
  const PointResult r = solver.evaluate(point(llama70b, 1, 1), out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, ServingSolver::exceeds_memory);
  EXPECT_EQ(out[M::max_batch], 0.0);
}

TEST_F(ServingSolverTest, MaxBatchIsTheMemoryEdge) {
  const auto base = run(point(llama8b, 1, 1));
  const double edge = base[M::max_batch];
  EXPECT_GT(edge, 100);
  run(point(llama8b, edge, 1));
  run(point(llama8b, edge + 1, 1), PointStatus::infeasible);
  const double kv_seq = 131072.0 * 2304;
  EXPECT_DOUBLE_EQ(edge, std::floor((hw.memory_bytes - llama8b.eager.parameter_count * 2) / kv_seq));
}

TEST_F(ServingSolverTest, LatencyDefinitions) {
  const auto out = run(point(llama8b, 16, 1));
  EXPECT_DOUBLE_EQ(out[M::e2e_latency_s], out[M::ttft_s] + 255 * out[M::itl_s]);
  EXPECT_DOUBLE_EQ(out[M::tokens_per_s_per_user], 1 / out[M::itl_s]);
  // Continuous batching: TTFT is one prompt's prefill, shorter than the batch's.
  EXPECT_LT(out[M::ttft_s], out[M::prefill_s]);
  // ITL = decode step + the batch's prefill work spread over the output tokens.
  EXPECT_DOUBLE_EQ(out[M::itl_s], out[M::decode_step_s] + out[M::prefill_s] / 256);
  EXPECT_NEAR(out[M::tokens_per_s], 16 / out[M::itl_s], 1e-9 * out[M::tokens_per_s]);
}

TEST_F(ServingSolverTest, ThroughputIsPerReplicaNotTimesTp) {
  const auto tp1 = run(point(llama8b, 32, 1));
  const auto tp8 = run(point(llama8b, 32, 8));
  EXPECT_DOUBLE_EQ(tp8[M::tokens_per_s_per_gpu] * 8, tp8[M::tokens_per_s]);
  // Splitting the same batch over 8 GPUs makes each step faster, but by less than 8x (all-reduces).
  EXPECT_GT(tp8[M::tokens_per_s], tp1[M::tokens_per_s]);
  EXPECT_LT(tp8[M::tokens_per_s], 8 * tp1[M::tokens_per_s]);
  EXPECT_GT(tp8[M::decode_communication_s], 0);
  EXPECT_EQ(tp1[M::decode_communication_s], 0);
}

TEST_F(ServingSolverTest, StaticEqualsContinuousAtBatchOneAndLosesAbove) {
  EXPECT_NEAR(run(point(llama8b, 1, 1))[M::continuous_speedup_vs_static], 1.0, 1e-12);
  const auto b64 = run(point(llama8b, 64, 1));
  // Static runs E[max output] = 2 x 256 x 64 / 65 steps instead of 256 after the same batch prefill.
  const double steps = 2 * 256 * 64 / 65.0;
  EXPECT_NEAR(b64[M::continuous_speedup_vs_static],
              (b64[M::prefill_s] + steps * b64[M::decode_step_s]) / (b64[M::prefill_s] + 256 * b64[M::decode_step_s]),
              1e-12);
  EXPECT_GT(b64[M::continuous_speedup_vs_static], 1.2);
  auto in = point(llama8b, 64, 1);
  in.values[P::batching] = 1;
  const auto st = run(in);
  EXPECT_DOUBLE_EQ(st[M::tokens_per_s], b64[M::static_tokens_per_s]);
  EXPECT_DOUBLE_EQ(st[M::ttft_s], st[M::prefill_s]);
  EXPECT_DOUBLE_EQ(st[M::itl_s], st[M::decode_step_s]);
}

TEST_F(ServingSolverTest, DecodeEtaDefaults) {
  EXPECT_DOUBLE_EQ(default_decode_eta(1), 0.03);
  EXPECT_DOUBLE_EQ(default_decode_eta(32), 0.25);
  EXPECT_DOUBLE_EQ(default_decode_eta(256), 0.25);
  EXPECT_GT(default_decode_eta(8), 0.03);
  EXPECT_LT(default_decode_eta(8), 0.25);
  auto in = point(llama8b, 4, 1);
  in.values[P::eta_decode] = 0.1;
  EXPECT_DOUBLE_EQ(run(in)[M::eta_decode_used], 0.1);
}

TEST_F(ServingSolverTest, DecodeRunsTheGemmsAtAGivenEta) {
  // A decode step of 128 sequences multiplies 128-row activations by the weights, as a prefill of 128
  // tokens does: a given eta (a calibration profile's) prices both.
  auto in = point(llama8b, 128, 1);
  in.values[P::eta] = 0.5;
  const auto r = run(in);
  EXPECT_DOUBLE_EQ(r[M::eta_decode_used], 0.5);
  EXPECT_DOUBLE_EQ(run(point(llama8b, 128, 1))[M::eta_decode_used], 0.25);
  in.values[P::eta_decode] = 0.25;
  const auto seeds = run(in);
  EXPECT_NEAR(seeds[M::decode_compute_s] / r[M::decode_compute_s], 2.0, 1e-12);
}

TEST_F(ServingSolverTest, QueueingTailAndLittlesLaw) {
  const auto idle = run(point(llama8b, 16, 1));
  EXPECT_DOUBLE_EQ(idle[M::p99_latency_s], idle[M::e2e_latency_s]);
  // Little's law without arrivals: L = request throughput x time in system.
  EXPECT_DOUBLE_EQ(idle[M::concurrency], idle[M::requests_per_s] * idle[M::e2e_latency_s]);
  EXPECT_NEAR(idle[M::concurrency], 16, 0.05 * 16);
  const double capacity = 16 / idle[M::e2e_latency_s];
  auto in = point(llama8b, 16, 1);
  in.values[P::arrival_rate] = 0.9 * capacity;
  const auto busy = run(in);
  EXPECT_NEAR(busy[M::queue_utilization], 0.9, 1e-9);
  EXPECT_GT(busy[M::p99_latency_s], busy[M::e2e_latency_s]);
  EXPECT_GT(busy[M::concurrency], 0.9 * 16);
  in.values[P::arrival_rate] = 1.1 * capacity;
  std::vector<double> out(solver.metrics().size());
  const PointResult r = solver.evaluate(in, out);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, ServingSolver::queue_unstable);
}

TEST_F(ServingSolverTest, CostFromAmortisedPrice) {
  const auto out = run(point(llama8b, 32, 2));
  const double hour = 31250.0 / (3 * 365 * 24);
  EXPECT_DOUBLE_EQ(out[M::gpu_hour_price_usd], hour);
  EXPECT_DOUBLE_EQ(out[M::cost_per_million_tokens_usd], 2 * hour / 3600 / out[M::tokens_per_s] * 1e6);
  auto in = point(llama8b, 32, 2);
  in.values[P::gpu_hour_price] = 2.0;
  EXPECT_DOUBLE_EQ(run(in)[M::gpu_hour_price_usd], 2.0);
}

TEST_F(ServingSolverTest, Fp8KvHalvesTheCache) {
  auto in = point(llama8b, 1, 1);
  in.values[P::kv_precision] = static_cast<double>(index_of(Precision::fp8));
  EXPECT_DOUBLE_EQ(run(in)[M::kv_cache_per_token_bytes], 65536.0);
}

TEST_F(ServingSolverTest, InfeasibleReasons) {
  std::vector<double> out(solver.metrics().size());
  auto in = point(llama8b, 1, 3);
  EXPECT_EQ(solver.evaluate(in, out).reason, ServingSolver::tp_must_divide_heads);
  in = point(llama8b, 1, 1);
  in.values[P::precision] = static_cast<double>(index_of(Precision::int4));
  EXPECT_EQ(solver.evaluate(in, out).reason, ServingSolver::precision_unsupported);
  HardwareSpec no_link = hw;
  no_link.accelerator_link_bandwidth_bytes_per_s = 0;
  in = point(llama8b, 1, 2);
  in.hardware = &no_link;
  EXPECT_EQ(solver.evaluate(in, out).reason, ServingSolver::tp_needs_link);
}

// batch 0 runs the replica at the largest batch whose KV cache fits: the same numbers as asking for
// max_batch explicitly, and a batch one larger no longer fits.
TEST_F(ServingSolverTest, BatchZeroIsTheLargestBatchThatFits) {
  PointInputs in = point(llama8b, 0, 1);
  in.values[P::prompt_tokens] = 1000;
  in.values[P::output_tokens] = 1000;
  const std::vector<double> max_load = run(in);
  const double fit = max_load[M::max_batch];
  ASSERT_GT(fit, 1);
  EXPECT_EQ(max_load[M::batch_used], fit);
  EXPECT_LE(max_load[M::memory_bytes], hw.memory_bytes);
  in.values[P::batch] = fit;
  EXPECT_EQ(run(in)[M::tokens_per_s], max_load[M::tokens_per_s]);
  in.values[P::batch] = fit + 1;
  EXPECT_GT(run(in, PointStatus::infeasible)[M::memory_bytes], hw.memory_bytes);
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

// Fixed-length requests: a static batch takes exactly output_tokens steps, so its throughput is
// B x output / (prefill + output x step); uniform lengths wait for the longest, 2 x mean x B / (B + 1).
TEST_F(ServingSolverTest, FixedOutputLengthsRunAStaticBatchForExactlyTheOutputSteps) {
  PointInputs in = point(llama8b, 64, 1);
  in.values[P::batching] = 1;
  in.values[P::output_lengths] = 1;
  const std::vector<double> fixed = run(in);
  const double steps = in.values[P::output_tokens];
  EXPECT_NEAR(fixed[M::tokens_per_s], 64 * steps / (fixed[M::prefill_s] + steps * fixed[M::decode_step_s]),
              1e-9 * fixed[M::tokens_per_s]);
  in.values[P::output_lengths] = 0;
  const std::vector<double> uniform = run(in);
  const double uniform_steps = 2 * steps * 64 / 65;
  EXPECT_NEAR(uniform[M::tokens_per_s],
              64 * steps / (uniform[M::prefill_s] + uniform_steps * uniform[M::decode_step_s]),
              1e-9 * uniform[M::tokens_per_s]);
}

// memory_efficiency divides the weight and KV streams' bandwidth; step_overhead adds to every iteration.
TEST_F(ServingSolverTest, MemoryEfficiencyAndStepOverheadEnterTheDecodeStep) {
  PointInputs in = point(llama8b, 1, 1);
  const std::vector<double> ideal = run(in);
  in.values[P::memory_efficiency] = 0.5;
  in.values[P::step_overhead] = 1e-3;
  const std::vector<double> real = run(in);
  EXPECT_NEAR(real[M::decode_memory_s], 2 * ideal[M::decode_memory_s], 1e-12);
  EXPECT_NEAR(real[M::decode_step_s], 2 * ideal[M::decode_step_s] + 1e-3, 1e-9);
}

}  // namespace
}  // namespace dsx
