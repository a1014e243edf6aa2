// The compute price of Mamba-1's selective scan (engine/operators.hpp, engine/graph.hpp): its FLOPs run
// on the vector units at the fp32 rate, as the reference kernel's scalar float arithmetic does
// (state-spaces/mamba csrc/selective_scan/selective_scan_fwd_kernel.cuh), and the training solver
// prices each scan through the roofline (engine/parallelism.hpp StepInput::scan_flops_per_token)
// instead of as memory traffic alone. Checked against hand calculations.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/dispatch.hpp"
#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/operators.hpp"
#include "engine/parallelism.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

// studies/catalog/hardware.yaml a100_80gb_sxm: fp32 19.5, fp16 312 TFLOP/s, 2,039 GB/s.
HardwareSpec a100() {
  HardwareSpec hw = published::a100_80gb_sxm();
  hw.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  return hw;
}

// One Mamba-2.8B layer's scan over 2,048 tokens (D 5,120, N 16): 9 x 2,048 x 5,120 x 16 + 2 x 2,048 x
// 5,120 = 1,530,920,960 FLOP; reads x and Delta (20,971,520) and B and C (65,536), writes y
// (10,485,760), holds A and D (87,040): 63,219,712 B at fp16. On an A100 at eta 1: 78.5 us at the
// 19.5 TFLOP/s vector rate against 31.0 us of memory, compute-bound; at the tensor-core peak it
// would have been 4.9 us of compute under the same 31.0 us, memory-bound.
TEST(ScanPricing, SelectiveScanRunsOnTheVectorUnits) {
  EXPECT_TRUE(runs_on_vector_units(OpKind::selective_scan));
  EXPECT_FALSE(runs_on_vector_units(OpKind::ssd_scan));
  ModelGraph g;
  g.ops.push_back(selective_scan("scan", 2048, 5120, 16, 1));
  const Op& op = g.ops.front();
  EXPECT_EQ(op.flops_per_sample, 1'530'920'960.0);
  EXPECT_EQ(op.input_elements_per_sample + op.output_elements_per_sample + op.weight_elements, 31'609'856.0);
  const HardwareSpec hw = a100();
  const ExecutionBreakdown b = execute_graph(g, hw, Precision::fp16, 1, 1.0, 0.0);
  EXPECT_NEAR(b.compute_s, 1'530'920'960.0 / 19.5e12, 1e-15);
  EXPECT_NEAR(b.compute_s, 78.5e-6, 0.1e-6);
  EXPECT_EQ(b.memory_s, 0);
  EXPECT_EQ(b.compute_bound_ops, 1);
  ModelGraph tensor = g;
  tensor.ops.front().kind = OpKind::elementwise;  // the peak roof it had before
  const ExecutionBreakdown t = execute_graph(tensor, hw, Precision::fp16, 1, 1.0, 0.0);
  EXPECT_NEAR(t.compute_s + t.memory_s, 63'219'712.0 / 2.039e12, 1e-12);
  EXPECT_EQ(t.memory_bound_ops, 1);
  EXPECT_NEAR(b.compute_s / (t.compute_s + t.memory_s), 2.53, 0.01);
}

// training_step adds, per token of the shard, what the scans' compute takes beyond their bytes:
// max(0, F / (peak x eta) - B / bandwidth). 4 tokens per micro-batch x 2 micro-batches on one GPU;
// F = 3,000 FLOP per token at 1 TFLOP/s x 0.5, B = 1,000 B per token at 1 TB/s: 6 ns - 1 ns = 5 ns per
// token, 40 ns in all. Bytes that outweigh the FLOPs add nothing.
TEST(ScanPricing, TrainingStepPricesTheScanThroughTheRoofline) {
  StepInput in;
  in.parameters = 1e6;
  in.layers = 1;
  in.hidden = 64;
  in.seq_len = 4;
  in.microbatches = 2;
  in.peak_flops_per_s = 100e12;
  in.compute_efficiency = 0.5;
  in.memory_bytes_per_s = 1e12;
  in.split_memory_bytes_per_token = 1000;
  const StepResult base = training_step(in);
  in.scan_flops_per_token = 3000;
  in.scan_memory_bytes_per_token = 1000;
  in.scan_peak_flops_per_s = 1e12;
  EXPECT_NEAR(training_step(in).compute_s - base.compute_s, 8 * 5e-9, 1e-18);
  in.scan_flops_per_token = 100;
  EXPECT_EQ(training_step(in).compute_s, base.compute_s);
}

// What the training solver takes from Mamba-2.8B's graph: 64 layers x 1,530,920,960 / 2,048 tokens =
// 47,841,280 FLOP per token forward (three times that for forward and backward), 64 x 31,522,816 /
// 2,048 activation elements, on the vector units.
TEST(ScanPricing, ShapeCarriesMambaOneScans) {
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(build_architecture("mamba", {{"layers", 64}, {"d_model", 2560}, {"vocab", 50280},
                                                               {"seq_len", 2048}}),
                                   s));
  EXPECT_EQ(s.scan_flops_per_token, 64 * 1'530'920'960.0 / 2048);
  EXPECT_EQ(s.scan_elements_per_token, 64 * (31'522'816.0) / 2048);
  EXPECT_TRUE(s.scan_on_vector_units);
}

// Serving prices the scans by the rule training uses (engine/dispatch.hpp scan_peak_flops_per_s):
// on the A100 (312 TFLOP/s fp16, 19.5 fp32) Mamba-2.8B's 47,841,280 scan FLOP per token run at
// 19.5 TFLOP/s, so a 2,048-token prefill at eta 1 takes 2,048 x 47,841,280 x (1 / 19.5e12 - 1 / 312e12)
// = 4.71 ms more compute than with them at the tensor-core peak; Mamba-2's SSD scan keeps that peak.
TEST(ScanPricing, ServingPricesTheScansAsTrainingDoes) {
  const HardwareSpec hw = a100();
  EXPECT_EQ(scan_peak_flops_per_s(hw, Precision::fp16, true, hw.gemm_peak(Precision::fp16)), 19.5e12);
  EXPECT_EQ(scan_peak_flops_per_s(hw, Precision::fp16, false, hw.gemm_peak(Precision::fp16)),
            hw.gemm_peak(Precision::fp16));
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(build_architecture("mamba", {{"layers", 64}, {"d_model", 2560}, {"vocab", 50280},
                                                               {"seq_len", 2048}}),
                                   s));
  ServingDevice tensor{.peak_flops_per_s = 312e12, .memory_bandwidth_bytes_per_s = 2.039e12};
  ServingDevice vector = tensor;
  vector.scan_peak_flops_per_s = 19.5e12;
  const double extra_s = prefill_time(s, vector, 2048, 1, 1.0).compute_s - prefill_time(s, tensor, 2048, 1, 1.0).compute_s;
  EXPECT_NEAR(extra_s, 2048 * 47'841'280.0 * (1 / 19.5e12 - 1 / 312e12), 1e-12);
  EXPECT_NEAR(extra_s, 4.71e-3, 0.01e-3);
  // A decode step of 64 sequences: 64 tokens' scans, whatever the context.
  const double decode_extra_s =
      decode_step_time(s, vector, 64, 1000, 1.0).compute_s - decode_step_time(s, tensor, 64, 1000, 1.0).compute_s;
  EXPECT_NEAR(decode_extra_s, 64 * 47'841'280.0 * (1 / 19.5e12 - 1 / 312e12), 1e-13);
}

}  // namespace
}  // namespace dsx
