// Training Mamba layers (engine/training_memory.hpp mamba_activation_bytes_per_layer, engine/parallelism.hpp):
// the activations state-spaces/mamba's MambaInnerFn saves for backward, counted by hand tensor by
// tensor, and the tensor-parallel all-reduces of a Mamba-1 mixer (2 per mixer, one of x_proj's
// dt_rank + 2 d_state outputs), in the training solver for an attention-free Mamba stack and for Jamba.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/solvers/training.hpp"
#include "engine/training_memory.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using Values = std::map<std::string, double, std::less<>>;
using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

// state-spaces/mamba-2.8b: d 2560, 64 layers, d_state 16, expand 2, d_conv 4, dt_rank ceil(2560 / 16) = 160.
Values mamba_2p8b() {
  return {{"layers", 64}, {"d_model", 2560}, {"vocab", 50280}, {"seq_len", 2048}, {"tied_embeddings", 1}};
}
// ai21labs/Jamba-v0.1 (transformers JambaConfig defaults).
Values jamba_v01() {
  return {{"layers", 32},     {"d_model", 4096}, {"heads", 32},      {"kv_heads", 8},
          {"d_ff", 14336},    {"vocab", 65536},  {"seq_len", 2048},  {"dt_rank", 256}};
}

PointInputs inputs(const TrainingSolver& solver, const HardwareSpec& hw, const PreparedModel& model, double gpus,
                   double tp) {
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[P::gpus] = gpus;
  in.values[P::tp] = tp;
  in.values[P::pp] = 1;
  in.values[P::ep] = 1;
  in.values[P::micro_batch] = 1;
  in.values[P::global_batch] = gpus / tp * 4;
  in.values[P::zero_stage] = 3;
  in.values[P::recompute] = 1;
  return in;
}

// One Mamba-2.8B layer at s 2048, b 1, 16-bit, one GPU, MambaInnerFn's default checkpoint_lvl 1:
// the pre-norm's input 2 s d = 10,485,760; in_proj's input 2 s d = 10,485,760; xz 4 s D = 41,943,040;
// x_dbl 2 s (160 + 32) = 786,432; B and C 4 s 16 = 131,072; out 2 s D = 20,971,520; one chunk's states
// 8 D 16 = 655,360 (fp32 pairs): 85,458,944 B.
TEST(MambaTraining, LayerActivationsAreWhatTheReferenceSavesForBackward) {
  const double selective = mamba_activation_bytes_per_layer(2048, 1, 2560, 5120, 16, 192, 1, true,
                                                            Recomputation::selective, false);
  EXPECT_DOUBLE_EQ(selective, 10485760.0 + 10485760 + 41943040 + 786432 + 131072 + 20971520 + 655360);
  EXPECT_DOUBLE_EQ(selective, 85458944.0);
  // checkpoint_lvl 0 keeps conv1d_out and delta too: 4 s D more.
  EXPECT_DOUBLE_EQ(mamba_activation_bytes_per_layer(2048, 1, 2560, 5120, 16, 192, 1, true, Recomputation::none, false),
                   85458944.0 + 4.0 * 2048 * 5120);
  // Full recomputation keeps the layer's input.
  EXPECT_DOUBLE_EQ(mamba_activation_bytes_per_layer(2048, 1, 2560, 5120, 16, 192, 1, true, Recomputation::full, false),
                   2.0 * 2048 * 2560);
  // A second 2,048-token chunk stores a second set of states; the per-token tensors double with s.
  EXPECT_DOUBLE_EQ(mamba_activation_bytes_per_layer(4096, 1, 2560, 5120, 16, 192, 1, true,
                                                    Recomputation::selective, false),
                   2.0 * 85458944.0);
}

// A Jamba-v0.1 Mamba layer (d 4096, D 8192, N 16, W 256 + 32) at tp 4 with sequence parallelism:
// in_proj's input 2 s d / 4, the D-wide tensors 6 s D / 4, x_dbl and B, C whole on every rank
// s (2 x 288 + 4 x 16), the states 8 D 16 / 4, and the feed-forward with its two norms, Korthikanti et
// al.'s 34 s b h less attention's 11 s b h, / 4: 79,167,488 B. Without sequence parallelism the
// input is whole and the feed-forward keeps 7 s b h whole.
TEST(MambaTraining, HybridLayerSplitsChannelsNotXProjOutputs) {
  const double s = 2048, d = 4096, D = 8192;
  const double sp = mamba_activation_bytes_per_layer(s, 1, d, D, 16, 288, 4, true, Recomputation::selective, true);
  EXPECT_DOUBLE_EQ(sp, 2 * s * d / 4 + 6 * s * D / 4 + s * (2 * 288 + 4 * 16) + 8 * D * 16 / 4 + 23 * s * d / 4);
  EXPECT_DOUBLE_EQ(sp, 79167488.0);
  const double no_sp = mamba_activation_bytes_per_layer(s, 1, d, D, 16, 288, 4, false, Recomputation::selective, true);
  EXPECT_DOUBLE_EQ(no_sp, 2 * s * d + 6 * s * D / 4 + s * (2 * 288 + 4 * 16) + 8 * D * 16 / 4 + s * d * (7 + 16.0 / 4));
}

TEST(MambaTraining, SolverTrainsAMambaStackWithItsOwnActivations) {
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("mamba", mamba_2p8b()));
  ASSERT_FALSE(model.is_transformer);
  PointInputs in = inputs(solver, hw, model, 8, 1);
  std::vector<double> out(solver.metrics().size());
  const PointResult r = solver.evaluate(in, out);
  ASSERT_EQ(r.status, PointStatus::ok) << static_cast<int>(r.reason);
  // 64 layers, one micro-batch in flight without pipelining.
  EXPECT_DOUBLE_EQ(out[M::activations_bytes], 64 * 85458944.0);
  EXPECT_EQ(out[M::tp_comm_s], 0.0);
  // Model FLOPs per token are 6 N (PaLM appendix B, no attention): the scan's 9 D d_state FLOPs per
  // token and layer are not in MFU; compute_s prices them through the roofline at the vector rate
  // (tests/engine/scan_pricing_test.cpp).
  EXPECT_NEAR(out[M::mfu] * 989e12 * 8 / out[M::tokens_per_s], 6 * 2'768'345'600.0, 1e3);
  EXPECT_GT(out[M::memory_bound_s], 0.0);
  // tp must divide the D = 5,120 channels; 5120 / 3 is not whole, and 3 does not nest with 8-GPU nodes either,
  // so take a 6-GPU node.
  in.values[P::gpus_per_node] = 6;
  in.values[P::gpus] = 6;
  in.values[P::tp] = 3;
  in.values[P::global_batch] = 8;
  EXPECT_EQ(solver.evaluate(in, out).reason, TrainingSolver::tp_must_divide_recurrent_channels);
}

// tp 2 on NVLink (450 GB/s one way, alpha 0.5 us): per layer and micro-batch a Mamba stack's mixer
// all-reduces b s d x 2 B after out_proj and b s (dt_rank + 2 d_state) x 2 B after x_proj, forward and
// backward: 2 (ar(b s d 2) + ar(b s 192 2)) with ar(S) = S / B + 2 alpha at 2 ranks.
TEST(MambaTraining, MambaStackAllReducesTwicePerMixer) {
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("mamba", mamba_2p8b()));
  PointInputs in = inputs(solver, hw, model, 8, 2);
  std::vector<double> out(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  const auto ar = [](double bytes) { return bytes / 450e9 + 2 * 0.5e-6; };
  const double m = out[M::microbatches];
  EXPECT_EQ(m, 4.0);
  const double per_layer = 2 * (ar(2048.0 * 2560 * 2) + ar(2048.0 * 192 * 2));
  EXPECT_NEAR(out[M::tp_comm_s], 64 * m * per_layer, 1e-12);
  // Full recomputation repeats the forward's two.
  in.values[P::recompute] = 2;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  EXPECT_NEAR(out[M::tp_comm_s], 64 * m * 1.5 * per_layer, 1e-12);
}

// Jamba-v0.1: 4 attention layers and 28 Mamba layers, each with a feed-forward. Per micro-batch the
// forward all-reduces twice d wide in every layer (mixer and feed-forward) and once R + 2N = 288 wide
// in each Mamba layer; the stage's activations are 4 attention layers (Korthikanti et al. Table 2 with
// sequence parallelism, 34 s b h / t) and 28 Mamba layers.
TEST(MambaTraining, JambaCountsEachLayerKind) {
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel model = prepare_model(build_architecture("jamba", jamba_v01()));
  PointInputs in = inputs(solver, hw, model, 64, 4);
  std::vector<double> out(solver.metrics().size());
  const PointResult r = solver.evaluate(in, out);
  ASSERT_EQ(r.status, PointStatus::ok) << static_cast<int>(r.reason);
  const double s = 2048, d = 4096;
  EXPECT_DOUBLE_EQ(out[M::activations_bytes], 4 * 34 * s * d / 4 + 28 * 79167488.0);
  const auto ar = [](double bytes) { return 2.0 * 3 / 4 * bytes / 450e9 + 2 * 3 * 0.5e-6; };
  const double m = out[M::microbatches];
  EXPECT_NEAR(out[M::tp_comm_s], m * 2 * (32 * 2 * ar(s * d * 2) + 28 * ar(s * 288 * 2)), 1e-12);
}

}  // namespace
}  // namespace dsx
