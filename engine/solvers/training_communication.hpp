// The communication of one training step (engine/solvers/training.hpp, step: TP, PP, CP, EP and DP):
// which fabric each group's collective runs on, given where the layout placed the group, and what it
// carries; the collectives themselves are engine/collectives.hpp's and engine/torus.hpp's.
#pragma once

#include "engine/parallelism.hpp"
#include "engine/solver.hpp"
#include "engine/solvers/training_layout.hpp"

namespace dsx::training {

// What the step's collectives carry besides the layout's degrees.
struct TrainingVolumes {
  double element_bytes = 0;             // activations, weights and gradients (bf16 for fp8)
  double activation_message_bytes = 0;  // b s h x element_bytes / cp: one TP all-reduce, one PP hop x tp
  double adapters = 0;                  // LoRA's trainable parameters (0: full training)
  double base_weight_bytes_per_param = 0;
  bool lora = false;
  int zero_stage = 0;
  // A hybrid's pipeline stage (engine/solvers/training_stages.hpp stage_weights): its parameters and
  // its routed experts' among them, whose gradients it reduces; < 0: 1 / pp of the model's (LoRA's
  // adapters are always 1 / pp of theirs).
  double stage_parameters = -1;
  double stage_expert_parameters = -1;
};

// Prices the step's communication on the node's `torus` (count 0: a switched node) into `step` (its
// *_s times, the context-parallel exchange and the Mamba layers' narrow TP all-reduces); infeasible with TrainingSolver's reason when a hierarchical
// all-to-all meets an EP group spread unevenly over nodes or pods.
PointResult price_training_communication(const PointInputs& in, const TrainingLayout& at, const TorusTopology& torus,
                                         const TrainingVolumes& volumes, StepInput& step);

}  // namespace dsx::training
