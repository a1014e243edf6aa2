// Mamba-2 (architecture `mamba2`, engine/model_builders_mamba2.cpp; Dao & Gu 2024, arXiv:2405.21060):
// parameters counted tensor by tensor from state-spaces/mamba's mamba2.py with the mamba2-2.7b and
// mamba2-130m configs, the SSD scan's FLOPs from the section 6 decomposition, the serving state
// (Mamba2.allocate_inference_cache), the training activations (mamba_split_conv1d_scan_combined's
// saved tensors) and the one all-reduce per layer under tensor parallelism (section 8.1).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/operators.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/serving.hpp"
#include "engine/solvers/training.hpp"
#include "engine/training_memory.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;

// state-spaces/mamba2-2.7b config.json: d_model 2560, n_layer 64, vocab 50277 padded to 16 (50288);
// the remaining fields are Mamba2's defaults (d_state 128, expand 2, d_conv 4, headdim 64, ngroups 1).
Values mamba2_2p7b(double ngroups = 1) {
  return {{"layers", 64}, {"d_model", 2560}, {"vocab", 50288}, {"seq_len", 2048}, {"ngroups", ngroups}};
}

const Op& op_named(const ModelGraph& g, const std::string& name) {
  for (const Op& op : g.ops) {
    if (op.name == name) return op;
  }
  throw std::runtime_error("no op " + name);
}

// Per layer, d = 2560, D = 5120, H = 80, G = 1, N = 128, k = 4:
//   RMSNorm 2,560; in_proj 2,560 x (2 x 5,120 + 2 x 128 + 80 = 10,576) = 27,074,560;
//   conv1d over 5,120 + 256 = 5,376 channels, 4 taps and a bias: 26,880; A_log, D, dt_bias: 240;
//   gated norm 5,120; out_proj 5,120 x 2,560 = 13,107,200: 40,216,560.
// 64 layers + the tied table 50,288 x 2,560 = 128,737,280 + the final norm 2,560: 2,702,599,680,
// the "2.7B" of the checkpoint's name. mamba2-130m (d 768, 24 layers): per layer 768 + 768 x 3,352 +
// 1,792 x 5 + 72 + 1,536 + 1,536 x 768 = 3,765,320; 24 of them + 50,288 x 768 + 768 = 128,989,632.
TEST(Mamba2, ParametersAreTheReferenceModulesTensors) {
  const ModelGraph g = build_architecture("mamba2", mamba2_2p7b());
  EXPECT_EQ(g.parameter_count, 2'702'599'680.0);
  EXPECT_LT(std::abs(g.parameter_count / 2.7e9 - 1), 0.01);
  const ModelGraph small = build_architecture(
      "mamba2", {{"layers", 24}, {"d_model", 768}, {"vocab", 50288}, {"seq_len", 2048}});
  EXPECT_EQ(small.parameter_count, 128'989'632.0);
  EXPECT_LT(std::abs(small.parameter_count / 130e6 - 1), 0.01);
  // Untied, the LM head adds its own table.
  Values untied = mamba2_2p7b();
  untied["tied_embeddings"] = 0;
  EXPECT_EQ(build_architecture("mamba2", untied).parameter_count, 2'702'599'680.0 + 50288.0 * 2560);
  // The in_proj writes z, x, B, C and dt in one matmul.
  const Op& in_proj = op_named(g, "ssm_in_proj");
  EXPECT_EQ(in_proj.weight_elements, 2560.0 * 10576);
  EXPECT_EQ(in_proj.flops_per_sample, 2.0 * 2048 * 2560 * 10576);
}

// The SSD scan of one 2.7B layer over T = 2,048 tokens in c = 8 chunks of Q = 256:
//   C B^T      2 x 8 x 256^2 x 1 x 128    =    134,217,728
//   diagonal   2 x 8 x 256^2 x 5,120      =  5,368,709,120
//   states     2 x 2,048 x 5,120 x 128    =  2,684,354,560
//   passing    2 x 8 x 5,120 x 128        =     10,485,760
//   off-diag.  2 x 2,048 x 5,120 x 128    =  2,684,354,560
//   skip       2 x 2,048 x 5,120          =     20,971,520
//   total                                   10,903,093,248
// Reads x 10,485,760, dt 163,840, B and C 524,288, the C B^T blocks twice 1,048,576 and the states
// four times 20,971,520 = 33,193,984 elements; writes 10,485,760.
TEST(Mamba2, SsdScanCountsTheChunkedAlgorithm) {
  const ModelGraph g = build_architecture("mamba2", mamba2_2p7b());
  const Op& scan = op_named(g, "ssd_scan");
  EXPECT_EQ(scan.kind, OpKind::ssd_scan);
  EXPECT_EQ(op_roof(scan.kind), OpRoof::gemm);
  EXPECT_EQ(scan.flops_per_sample, 10'903'093'248.0);
  EXPECT_EQ(scan.input_elements_per_sample, 33'193'984.0);
  EXPECT_EQ(scan.output_elements_per_sample, 10'485'760.0);
  EXPECT_EQ(scan.weight_elements, 240.0);
  EXPECT_EQ(scan.kernels, 5u);
  EXPECT_EQ(scan.state_elements, 5120.0 * 128);
  // A sequence shorter than the chunk is one chunk of its own length: T = 100 gives
  // 2 x 100^2 x 5,248 + 4 x 100 x 5,120 x 128 + 2 x 5,120 x 128 + 2 x 100 x 5,120 = 369,438,720.
  const Op short_scan = ssd_scan("s", {.length = 100, .heads = 80, .head_dim = 64, .groups = 1, .state = 128}, 1);
  EXPECT_EQ(short_scan.flops_per_sample, 369'438'720.0);
  // Halving the chunk halves the intra-chunk part and doubles the state passing.
  const Op q128 = ssd_scan(
      "s", {.length = 2048, .heads = 80, .head_dim = 64, .groups = 1, .state = 128, .chunk = 128}, 1);
  EXPECT_EQ(q128.flops_per_sample, 5'502'926'848.0 / 2 + 5'368'709'120.0 + 2 * 10'485'760.0 + 20'971'520.0);
}

// One sequence holds 64 x (conv_state 5,376 x 4 + ssm_state 80 x 64 x 128) = 64 x 676,864 =
// 43,319,296 elements, 86,638,592 B at 16 bits, whatever the context.
TEST(Mamba2, ServingStateIsConvAndSsmStatePerSequence) {
  ServingShape s;
  ASSERT_TRUE(derive_serving_shape(build_architecture("mamba2", mamba2_2p7b()), s));
  EXPECT_EQ(s.attention_layers, 0);
  EXPECT_EQ(s.recurrent_layers, 64);
  EXPECT_EQ(s.ssd_layers, 64);
  EXPECT_EQ(s.d_model, 2560);
  EXPECT_EQ(s.recurrent_channels, 5120);
  EXPECT_EQ(s.recurrent_state_size, 128);
  EXPECT_EQ(s.recurrent_heads, 80);
  EXPECT_EQ(s.recurrent_groups, 1);
  EXPECT_EQ(s.recurrent_state_elements, 43'319'296.0);
  EXPECT_EQ(sequence_cache_bytes(s, 1'000, 2), 86'638'592.0);
  EXPECT_EQ(sequence_cache_bytes(s, 100'000, 2), 86'638'592.0);
  EXPECT_FALSE(s.scan_on_vector_units);
  // One all-reduce per layer against Mamba-1's two.
  EXPECT_EQ(tp_all_reduces_per_pass(s), 64);
  ServingShape m1;
  ASSERT_TRUE(derive_serving_shape(build_architecture("mamba", {{"layers", 64}, {"d_model", 2560}, {"vocab", 50280},
                                                                {"seq_len", 2048}}),
                                   m1));
  EXPECT_EQ(tp_all_reduces_per_pass(m1), 128);
  EXPECT_TRUE(m1.scan_on_vector_units);
  // Mamba-1's state is unchanged by reading it from the ops: 64 x 5,120 x (4 + 16).
  EXPECT_EQ(m1.recurrent_state_elements, 6'553'600.0);
}

// tp must divide ngroups (mamba2.py asserts ngroups % world_size == 0): mamba2-2.7b's one group
// keeps it on one GPU; with 2 groups tp 2 serves it.
TEST(Mamba2, ServingTensorParallelNeedsTheGroups) {
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel one = prepare_model(build_architecture("mamba2", mamba2_2p7b(1)));
  const PreparedModel two = prepare_model(build_architecture("mamba2", mamba2_2p7b(2)));
  const ServingSolver solver;
  using P = ServingSolver::Param;
  PointInputs in;
  in.hardware = &hw;
  in.model = &one;
  set_defaults(solver, in);
  in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[P::batch] = 8;
  std::vector<double> out(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  in.values[P::tp] = 2;
  EXPECT_EQ(solver.evaluate(in, out).reason, ServingSolver::tp_must_divide_channels);
  in.model = &two;
  EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
}

// One layer at s 2,048, b 1, 16 bits (engine/training_memory.hpp): in_proj's input 2 s d = 10,485,760,
// zxbcdt 2 s 10,576 = 43,319,296, out_x 2 s D = 20,971,520, rstd 4 s G = 8,192; the stack's norm input
// 2 s d: 85,270,528 B. At tp 2 with 2 groups and sequence parallelism every term halves.
TEST(Mamba2, TrainingActivationsAreWhatTheFusedFunctionSaves) {
  EXPECT_EQ(mamba2_activation_bytes_per_layer(2048, 1, 2560, 5120, 80, 1, 128, 1, true, Recomputation::selective,
                                              false),
            85'270'528.0);
  EXPECT_EQ(mamba2_activation_bytes_per_layer(2048, 1, 2560, 5120, 80, 1, 128, 1, true, Recomputation::none, false),
            85'270'528.0);
  EXPECT_EQ(mamba2_activation_bytes_per_layer(2048, 1, 2560, 5120, 80, 1, 128, 1, true, Recomputation::full, false),
            2.0 * 2048 * 2560);
  const double s = 2048;
  EXPECT_EQ(mamba2_activation_bytes_per_layer(s, 1, 2560, 5120, 80, 2, 128, 2, true, Recomputation::selective, false),
            (4 * s * 2560 + 2 * s * (10240 + 512 + 80) + 2 * s * 5120 + 4 * s * 2) / 2);
}

// The training solver: 64 layers of the above with one micro-batch in flight; at tp 2 (2 groups) one
// all-reduce of b s d x 2 B per layer forward and one backward (ar(S) = S / 450 GB/s + 2 x 0.5 us at
// 2 ranks on NVLink), none after a projection inside the mixer as Mamba-1 needs.
TEST(Mamba2, TrainingAllReducesOncePerLayer) {
  const TrainingSolver solver;
  using P = TrainingSolver::Param;
  using M = TrainingSolver::Metric;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel one = prepare_model(build_architecture("mamba2", mamba2_2p7b(1)));
  const PreparedModel two = prepare_model(build_architecture("mamba2", mamba2_2p7b(2)));
  PointInputs in;
  in.hardware = &hw;
  in.model = &one;
  set_defaults(solver, in);
  in.values[P::gpus] = 8;
  in.values[P::tp] = 1;
  in.values[P::pp] = 1;
  in.values[P::ep] = 1;
  in.values[P::micro_batch] = 1;
  in.values[P::global_batch] = 32;
  in.values[P::zero_stage] = 3;
  in.values[P::recompute] = 1;
  std::vector<double> out(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::activations_bytes], 64 * 85'270'528.0);
  in.values[P::tp] = 2;
  in.values[P::global_batch] = 16;
  EXPECT_EQ(solver.evaluate(in, out).reason, TrainingSolver::tp_must_divide_recurrent_channels);
  in.model = &two;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const auto ar = [](double bytes) { return bytes / 450e9 + 2 * 0.5e-6; };
  const double m = out[M::microbatches];
  EXPECT_EQ(m, 4.0);
  EXPECT_NEAR(out[M::tp_comm_s], 64 * m * 2 * ar(2048.0 * 2560 * 2), 1e-12);
}

}  // namespace
}  // namespace dsx
