// Solver "scaling": the compute-optimal model size and token count of Hoffmann et al., "Training
// Compute-Optimal Large Language Models" (Chinchilla), NeurIPS 2022, arXiv:2203.15556, and what
// training it costs on a given fleet.
//
// Training compute C = 6 N D (N parameters, D tokens; the paper's FLOPs approximation, as
// engine/laws.hpp training_flops). Given C (input compute) or N (input parameters):
//   rule tokens_per_parameter: D = r N, so N = sqrt(C / (6 r)); r = 20 is the paper's compute-optimal
//     ratio (Chinchilla: 70 B parameters on 1.4 T tokens, Gopher's compute budget; abstract and
//     section 4), the ratio its Approaches 1 and 2 give.
//   rule parametric: the minimum of the fitted loss L(N, D) = E + A / N^alpha + B / D^beta under
//     C = 6 N D (section 3.3, eq. 4): N_opt = G (C / 6)^a, D_opt = (C / 6)^b / G, with
//     G = (alpha A / (beta B))^(1 / (alpha + beta)), a = beta / (alpha + beta), b = alpha / (alpha + beta).
//     Given N, D is the token count for which N is optimal: (C / 6) = (N / G)^(1 / a).
//   The fitted values (Approach 3, section 3.3 and appendix D): E = 1.69, A = 406.4, B = 410.7,
//   alpha = 0.34, beta = 0.28. At Gopher's 5.76e23 FLOPs they put the optimum at 32 B parameters and
//   93 tokens per parameter, not 20: Besiroglu et al., "Chinchilla Scaling: A replication attempt",
//   arXiv:2404.10102 (2024), trace the gap to the rounding of these published values and an
//   optimiser stopped early. The predicted_loss metric is this L(N, D) at the chosen N and D
//   (nats per token on the paper's MassiveText; not transferable to another data set).
// Training time = 6 N D / (gpus x peak x eta), peak the GEMM peak (HardwareSpec::gemm_peak; at fp8 the
// peak x fp8_gemm_relative_efficiency) (engine/laws.hpp training_time_s; eta, the model FLOPs
// utilization, defaults to the seeds/004 training_large regime, engine/efficiency.hpp); GPU-hours and
// cost = gpus x time x gpu_hour_price (engine/economics.hpp run_cost_usd); gpu_hour_price: catalog
// takes the chip's dated on-demand rental price from the catalog, and a chip without one makes the
// point infeasible.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class ScalingSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    input,
    compute_budget,
    parameters,
    rule,
    tokens_per_parameter,
    hardware,
    precision,
    eta,
    gpus,
    gpu_hour_price,
    kParamCount
  };
  enum Metric : std::size_t {
    optimal_parameters,
    optimal_tokens,
    compute_flops,
    tokens_per_parameter_ratio,
    predicted_loss,
    eta_used,
    training_time_s,
    gpu_time_s,
    cost_usd,
    kMetricCount
  };
  enum Reason : std::uint8_t { precision_unsupported, no_compute_budget, no_parameters, no_rental_price };
  enum Input : std::uint8_t { compute, parameter_count };
  enum Rule : std::uint8_t { ratio, parametric };

  ScalingSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

// Hoffmann et al. 2022, Approach 3 (section 3.3 and appendix D).
inline constexpr double kChinchillaE = 1.69;
inline constexpr double kChinchillaA = 406.4;
inline constexpr double kChinchillaB = 410.7;
inline constexpr double kChinchillaAlpha = 0.34;
inline constexpr double kChinchillaBeta = 0.28;

// L(N, D) = E + A / N^alpha + B / D^beta with the values above.
double chinchilla_loss(double parameters, double tokens);

}  // namespace dsx
