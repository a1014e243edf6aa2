#include "engine/parallelism.hpp"

#include <gtest/gtest.h>

#include "engine/laws.hpp"

namespace dsx {
namespace {

TEST(Parallelism, DataParallelDegreeNeedsIntegerDivision) {
  EXPECT_DOUBLE_EQ(data_parallel_degree(1024, 8, 4), 32.0);
  EXPECT_DOUBLE_EQ(data_parallel_degree(1024, 8, 3), 0.0);
  EXPECT_DOUBLE_EQ(data_parallel_degree(8, 8, 2), 0.0);
  EXPECT_DOUBLE_EQ(data_parallel_degree(8, 8, 1), 1.0);
}

// Issue 4 check / Narayanan et al. 2021 section 2.2.1: (p-1)/(m+p-1) = 3/19 for p = 4, m = 16.
TEST(Parallelism, PipelineBubbleThreeNineteenths) {
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(4, 16, 1), 3.0 / 19.0);
  EXPECT_DOUBLE_EQ(pipeline_stretch(4, 16, 1), 1.0 + 3.0 / 16.0);
  // Bubble / step = (stretch - 1) / stretch: the two forms agree.
  EXPECT_NEAR((pipeline_stretch(4, 16, 1) - 1) / pipeline_stretch(4, 16, 1), 3.0 / 19.0, 1e-15);
  // Interleaving with v chunks divides the bubble time by v (section 2.2.2).
  EXPECT_DOUBLE_EQ(pipeline_stretch(4, 16, 2) - 1, (pipeline_stretch(4, 16, 1) - 1) / 2);
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(1, 16, 1), 0.0);
}

// Korthikanti et al. 2022 (measured-calibration.json TRN-08): GPT 1T, L = 128, h = 25600, s = 2048,
// V = 51200, batch 512 on 512 A100s (312 TFLOP/s), 71.49 s per iteration -> MFU 56.3%. PaLM's
// 6N + 12 L H Q T with N = 12 L h^2 + V h equals Megatron's 72 B L s h^2 (1 + s/6h + V/(12 h L)).
TEST(Parallelism, PalmMfuReproducesMegatronOneTrillion) {
  const double L = 128, h = 25600, s = 2048, V = 51200;
  const double n = 12 * L * h * h + V * h;
  const double tokens = 512 * s;
  const double mfu = model_flops_per_token(n, L, h, s) * tokens / (71.49 * 512 * 312e12);
  EXPECT_NEAR(mfu, 0.563, 0.563 * 0.01);
  // Selective recomputation adds only the attention core: HFU 57.0% in the same table.
  const double hfu = hardware_flops_per_token(n, L, h, s, 1) * tokens / (71.49 * 512 * 312e12);
  EXPECT_NEAR(hfu, 0.570, 0.570 * 0.01);
  // Full recomputation adds a whole forward: 8N + 16 L H Q T.
  EXPECT_DOUBLE_EQ(hardware_flops_per_token(n, L, h, s, 2), 8 * n + 16 * L * h * s);
}

StepInput llama70b_step() {
  StepInput in;
  in.parameters = 70.6e9;
  in.layers = 80;
  in.hidden = 8192;
  in.seq_len = 4096;
  in.micro_batch = 1;
  in.microbatches = 16;
  in.tensor_parallel = 8;
  in.pipeline_parallel = 4;
  in.data_parallel = 32;
  in.gpus = 1024;
  in.peak_flops_per_s = 989e12;
  in.compute_efficiency = 0.5;
  return in;
}

TEST(Parallelism, EachGpuComputesItsOwnShard) {
  StepInput in = llama70b_step();
  const StepResult r = training_step(in);
  const double per_gpu_flops = model_flops_per_token(in.parameters, 80, 8192, 4096) * 16 * 4096 / 32;
  EXPECT_NEAR(r.compute_s, per_gpu_flops / (989e12 * 0.5), 1e-12);
  EXPECT_NEAR(r.bubble_s / r.step_s, 3.0 / 19.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.tokens_per_step, 32 * 16 * 4096);  // DP replicas only, not x TP x PP
  // No communication: MFU = eta x (1 - bubble fraction).
  EXPECT_NEAR(r.mfu, 0.5 * 16.0 / 19.0, 1e-12);
  EXPECT_NEAR(r.scaling_efficiency, 16.0 / 19.0, 1e-12);
  // Cross-check with T = 6 P D / (N X MFU) (ignoring the attention term, a few % for 70B at 4k).
  const double t_iron = training_time_s(in.parameters, r.tokens_per_step, 1024, 989e12, r.mfu);
  EXPECT_NEAR(t_iron / r.step_s, 6 * in.parameters / model_flops_per_token(in.parameters, 80, 8192, 4096), 1e-9);
}

TEST(Parallelism, CommunicationAndOverlap) {
  StepInput in = llama70b_step();
  in.tp_all_reduce_s = 1e-4;
  in.pp_p2p_s = 2e-4;
  in.dp_all_reduce_s = 0.5;
  const StepResult r = training_step(in);
  EXPECT_NEAR(r.tp_comm_s, 4 * 20 * 16 * 1e-4, 1e-12);
  EXPECT_NEAR(r.pp_comm_s, 2 * 16 * 2e-4, 1e-12);
  EXPECT_DOUBLE_EQ(r.dp_comm_s, 0.5);
  in.dp_overlap = 0.8;
  in.tp_overlap = 0.5;
  const StepResult o = training_step(in);
  EXPECT_NEAR(o.dp_comm_s, 0.1, 1e-12);
  EXPECT_NEAR(o.tp_comm_s, r.tp_comm_s / 2, 1e-12);
  EXPECT_LT(o.step_s, r.step_s);
  EXPECT_GT(o.mfu, r.mfu);
  in.recompute = 2;
  const StepResult f = training_step(in);
  EXPECT_NEAR(f.tp_comm_s, 6 * 20 * 16 * 1e-4 * 0.5, 1e-12);
  EXPECT_GT(f.hfu, f.mfu);
}

}  // namespace
}  // namespace dsx
