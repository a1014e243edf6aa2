// LoRA and QLoRA fine-tuning in the training solver: the adapter count of every linear layer of the
// blocks (Hu et al. 2021; QLoRA's placement, Dettmers et al. 2023), the frozen base's memory (bf16 or
// 4.127-bit NF4), the adapters' gradients and optimizer states, and 4 N + 6 A FLOPs per token.
#include <gtest/gtest.h>

#include <vector>

#include "engine/collectives.hpp"
#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/parallelism.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

constexpr double kFull = 0, kLora = 1, kQlora = 2;  // the finetune choices

// studies/catalog/models.yaml llama2_7b (Touvron et al. 2023 and its config.json).
const published::Values kLlama2_7b = {{"layers", 32},  {"d_model", 4096}, {"heads", 32},     {"kv_heads", 32},
                                      {"d_ff", 11008}, {"vocab", 32000},  {"seq_len", 2048}, {"gated_mlp", 1},
                                      {"norm", 1},     {"embeddings", 1}, {"rope", 1}};

PreparedModel prepared(const published::Values& v) {
  return prepare_model(build_architecture("transformer", {v.begin(), v.end()}));
}

// Rank 64 on q, k, v, o, gate, up and down of Llama 2 7B: per layer 4 (4096 + 4096) + 3 (4096 + 11008)
// = 78,080 inputs + outputs, x 32 layers x 64 = 159,907,840 trainable parameters (the count Hugging
// Face PEFT prints for this model and target set).
TEST(LoraAdapters, CountEveryLinearLayerOfTheBlocks) {
  const ServingShape s = prepared(kLlama2_7b).serving_shape;
  EXPECT_DOUBLE_EQ(s.adapter_in_out_elements, 32 * 78080.0);
  EXPECT_DOUBLE_EQ(64 * s.adapter_in_out_elements, 159907840.0);
  EXPECT_DOUBLE_EQ(s.active_adapter_in_out_elements, s.adapter_in_out_elements);
  // Mixtral 8x7B: attention 4 x 4096 + 2 (4096 + 1024), then 8 experts of 3 (4096 + 14336) each, of
  // which a token passes 2.
  const ServingShape m = prepared(published::mixtral_8x7b()).serving_shape;
  const double attention = 4 * 4096.0 + 2 * (4096 + 1024), expert = 3 * (4096.0 + 14336);
  EXPECT_DOUBLE_EQ(m.adapter_in_out_elements, 32 * (attention + 8 * expert));
  EXPECT_DOUBLE_EQ(m.active_adapter_in_out_elements, 32 * (attention + 2 * expert));
}

class LoraSolverTest : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  // H100 with room for the full-training reference point (16 B x 6.7 B parameters unsharded).
  const HardwareSpec hw = [] {
    HardwareSpec h = published::h100_sxm();
    h.memory_bytes = 1024.0 * 1024 * 1024 * 1024;
    return h;
  }();
  const PreparedModel model = prepared(kLlama2_7b);

  // One 8-GPU node, data parallel, no recomputation, ZeRO 0.
  std::vector<double> run(double finetune, double zero = 0) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::gpus] = 8;
    in.values[P::tp] = 1;
    in.values[P::global_batch] = 64;
    in.values[P::recompute] = 0;
    in.values[P::zero_stage] = zero;
    in.values[P::finetune] = finetune;
    std::vector<double> out(TrainingSolver::kMetricCount);
    EXPECT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
    return out;
  }
};

TEST_F(LoraSolverTest, FrozenBaseHasNoGradientsOrOptimizerStates) {
  EXPECT_EQ(solver.params()[P::finetune].default_value, kFull);
  EXPECT_EQ(solver.params()[P::lora_rank].default_value, 64);
  const std::vector<double> full = run(kFull), lora = run(kLora), qlora = run(kQlora);
  const double n = full[M::trainable_parameters], a = 159907840.0;
  EXPECT_DOUBLE_EQ(lora[M::trainable_parameters], a);
  EXPECT_NEAR(lora[M::weights_bytes], 2 * n + 2 * a, 1);
  EXPECT_NEAR(lora[M::gradients_bytes], 2 * a, 1);
  EXPECT_NEAR(lora[M::optimizer_bytes], 12 * a, 1);  // fp32 master + AdamW moments of the adapters
  // QLoRA: 4-bit NF4 with double-quantized constants, 4.127 bits per base parameter.
  EXPECT_NEAR(qlora[M::weights_bytes], n * 4.127 / 8 + 2 * a, 1);
  EXPECT_DOUBLE_EQ(qlora[M::optimizer_bytes], lora[M::optimizer_bytes]);
  EXPECT_DOUBLE_EQ(qlora[M::activations_bytes], full[M::activations_bytes]);
  EXPECT_NEAR(full[M::memory_per_gpu_bytes] - lora[M::memory_per_gpu_bytes], 14 * n - 16 * a, 1);
  // The checkpoint holds the adapters' weights, master and moments only.
  EXPECT_NEAR(lora[M::checkpoint_bytes], 14 * a, 1);
  EXPECT_LT(lora[M::dp_comm_s], full[M::dp_comm_s] / 10);
}

// ZeRO-3 over the 8 GPUs of one node (NVLink, 450 GB/s, 0.5 us): the adapters' gradients are
// reduce-scattered, the weights (the 4.127-bit base and the bf16 adapters) all-gathered twice.
TEST_F(LoraSolverTest, ZeroThreeGathersTheFrozenBase) {
  const std::vector<double> full = run(kFull, 3), qlora = run(kQlora, 3);
  const double n = full[M::trainable_parameters], a = 159907840.0;
  HierarchicalFabric node;
  node.gpus_per_node = 8;
  node.intra_bandwidth_bytes_per_s = 450e9;
  node.intra_alpha_s = 0.5e-6;
  node.nic_bandwidth_bytes_per_s = 50e9;
  node.nics_per_node = 8;
  node.inter_alpha_s = 5e-6;
  EXPECT_NEAR(full[M::dp_comm_s], 1.5 * hierarchical_all_reduce_s(2 * n, 1, node), 1e-12);
  EXPECT_NEAR(qlora[M::dp_comm_s],
              0.5 * hierarchical_all_reduce_s(2 * a, 1, node) +
                  hierarchical_all_reduce_s(n * 4.127 / 8 + 2 * a, 1, node),
              1e-12);
  EXPECT_NEAR(qlora[M::weights_bytes], (n * 4.127 / 8 + 2 * a) / 8, 1);
}

// Frozen weights skip their weight-gradient GEMMs: 4 N + 6 A + 12 L h s FLOPs per token against
// 6 N + 12 L h s (Narayanan et al. SC'21, eq. 3: backward = input + weight gradients).
TEST_F(LoraSolverTest, ComputesFourNPlusSixA) {
  const std::vector<double> full = run(kFull), lora = run(kLora);
  const double n = full[M::active_parameters], a = 159907840.0, attention = 12.0 * 32 * 4096 * 2048;
  EXPECT_DOUBLE_EQ(model_flops_per_token(a, 32, 4096, 2048, n), 4 * n + 6 * a + attention);
  // The GEMMs and the causal attention (half its FLOPs, at attention_eta = eta) take the FLOPs'
  // ratio; the memory-bound work is the same for both.
  EXPECT_DOUBLE_EQ(lora[M::memory_bound_s], full[M::memory_bound_s]);
  EXPECT_NEAR((lora[M::compute_s] - lora[M::memory_bound_s]) / (full[M::compute_s] - full[M::memory_bound_s]),
              (4 * n + 6 * a + attention / 2) / (6 * n + attention / 2), 1e-12);
  // MFU counts the FLOPs the fine-tune needs, so it stays near eta while the step shortens.
  EXPECT_NEAR(lora[M::mfu] / full[M::mfu], full[M::step_time_s] / lora[M::step_time_s] *
                                               (4 * n + 6 * a + attention) / (6 * n + attention),
              1e-12);
  EXPECT_NEAR(lora[M::time_to_train_6pd_s] / lora[M::time_to_train_s], (4 * n + 6 * a) / (4 * n + 6 * a + attention),
              1e-9);
}

}  // namespace
}  // namespace dsx
