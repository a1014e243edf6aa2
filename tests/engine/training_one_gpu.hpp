// Engine tests of the training solver's offload: one GPU, full recomputation, ZeRO 0, 8
// micro-batches of one sequence, every other parameter at its default. The offload tests set what
// they examine (offload, host memory bandwidth and capacity) on top.
#pragma once

#include "engine/solvers/training.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {

inline PointInputs one_gpu_training(const TrainingSolver& solver, const HardwareSpec& hw, const PreparedModel& model) {
  using P = TrainingSolver::Param;
  PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  set_defaults(solver, in);
  in.values[P::gpus] = 1;
  in.values[P::tp] = 1;
  in.values[P::pp] = 1;
  in.values[P::micro_batch] = 1;
  in.values[P::global_batch] = 8;
  in.values[P::recompute] = 2;
  in.values[P::zero_stage] = 0;
  return in;
}

}  // namespace dsx
