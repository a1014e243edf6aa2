// The training solver's tables (engine/solvers/training.hpp): its parameters with their choices, its
// metrics and its reasons, and what evaluate() reads behind a choice's index.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "engine/precision.hpp"
#include "engine/solver.hpp"
#include "engine/training_memory.hpp"

namespace dsx::training {

// The choices of `precision` and `optimizer`, in the order of their names.
inline constexpr std::array<Precision, 5> kComputePrecision = {Precision::fp32, Precision::tf32, Precision::bf16,
                                                               Precision::fp16, Precision::fp8};
inline constexpr std::array<Optimizer, 5> kOptimizerKind = {Optimizer::adam, Optimizer::adam_8bit, Optimizer::adafactor,
                                                            Optimizer::sgd_momentum, Optimizer::lion};
// What each offload choice moves to host memory.
struct OffloadParts {
  bool optimizer, weights, activations;
};
inline constexpr std::array<OffloadParts, 8> kOffloadParts = {{{false, false, false},
                                                               {true, false, false},
                                                               {false, true, false},
                                                               {false, false, true},
                                                               {true, true, false},
                                                               {true, false, true},
                                                               {false, true, true},
                                                               {true, true, true}}};
inline constexpr int kFp8WeightCastCached = 1;
inline constexpr int kLora = 1, kQlora = 2;
inline constexpr double kNf4BytesPerParam = 4.127 / 8;  // QLoRA section 3: NF4 + double-quantized constants

std::span<const ParamSpec> param_specs();
std::span<const MetricSpec> metric_specs();
std::span<const std::string_view> reasons();

}  // namespace dsx::training
