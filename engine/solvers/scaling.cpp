#include "engine/solvers/scaling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/economics.hpp"
#include "engine/efficiency.hpp"
#include "engine/laws.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kInputs = {"compute", "parameters"};
constexpr std::array<std::string_view, 2> kRules = {"tokens_per_parameter", "parametric"};

constexpr std::array<ParamSpec, ScalingSolver::kParamCount> kParams = {{
    {.name = "input", .kind = ParamKind::choice, .choices = kInputs,
     .description = "what is given: compute (compute_budget) or parameters (the model size)", .has_default = true,
     .default_value = 0},
    {.name = "compute_budget", .kind = ParamKind::number, .dimension = Dimension::flops,
     .description = "training compute C (input compute)", .has_default = true, .default_value = 0, .min_value = 0,
     .max_value = 1e40},
    {.name = "parameters", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "model parameters N (input parameters)", .has_default = true, .default_value = 0, .min_value = 0,
     .max_value = 1e18},
    {.name = "rule", .kind = ParamKind::choice, .choices = kRules,
     .description = "tokens_per_parameter (D = r N, the Chinchilla ratio) or parametric (the minimum of the "
                    "paper's fitted loss, Approach 3)",
     .has_default = true, .default_value = 0},
    {.name = "tokens_per_parameter", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "r of rule tokens_per_parameter (20: Hoffmann et al. 2022, Chinchilla's 1.4 T tokens for 70 B "
                    "parameters)",
     .has_default = true, .default_value = 20, .min_value = 0, .max_value = 1e6, .min_exclusive = true},
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id): its peak"},
    {.name = "precision", .kind = ParamKind::precision, .description = "precision of the peak (training: bf16)",
     .has_default = true, .default_value = static_cast<double>(index_of(Precision::bf16))},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "model FLOPs utilization; 0 = the seeds/004 training_large regime default (0.475)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "gpus", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "accelerators training the model", .min_value = 1, .max_value = 1e9, .integer = true},
    {.name = "gpu_hour_price", .kind = ParamKind::number, .dimension = Dimension::money,
     .description = "price of one GPU-hour; catalog = the chip's dated rental price (its catalog rental: per_hour)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6, .word = kCatalogWord},
}};

constexpr std::array<MetricSpec, ScalingSolver::kMetricCount> kMetrics = {{
    {"optimal_parameters", Dimension::count, "N: sqrt(C / (6 r)), or G (C / 6)^a (parametric); the input N when given"},
    {"optimal_tokens", Dimension::count, "D: r N, or (C / 6)^b / G (parametric)"},
    {"compute_flops", Dimension::flops, "6 N D"},
    {"tokens_per_parameter_ratio", Dimension::dimensionless, "D / N"},
    {"predicted_loss", Dimension::dimensionless, "E + A / N^alpha + B / D^beta (Hoffmann et al. Approach 3; nats/token)"},
    {"eta_used", Dimension::dimensionless, "eta, or the training_large regime default"},
    {"training_time_s", Dimension::time, "6 N D / (gpus x peak x eta)"},
    {"gpu_time_s", Dimension::time, "gpus x training_time_s (GPU-seconds; / 3,600 for GPU-hours)"},
    {"cost_usd", Dimension::money, "gpu_time_s / 3,600 x gpu_hour_price"},
}};

constexpr std::array<std::string_view, 4> kReasons = {
    kPrecisionUnsupported,
    "input compute needs compute_budget > 0",
    "input parameters needs parameters > 0",
    "gpu_hour_price is catalog, but {hardware} has no rental price in the catalog",
};

constexpr double kAlphaPlusBeta = kChinchillaAlpha + kChinchillaBeta;

// G = (alpha A / (beta B))^(1 / (alpha + beta)) of the paper's eq. 4.
double chinchilla_g() {
  return std::pow(kChinchillaAlpha * kChinchillaA / (kChinchillaBeta * kChinchillaB), 1.0 / kAlphaPlusBeta);
}

}  // namespace

double chinchilla_loss(double parameters, double tokens) {
  return kChinchillaE + kChinchillaA / std::pow(parameters, kChinchillaAlpha) +
         kChinchillaB / std::pow(tokens, kChinchillaBeta);
}

ScalingSolver::ScalingSolver()
    : TabledSolver("scaling",
                   "Chinchilla compute-optimal model size and tokens for a compute budget or a model size; "
                   "training time and cost",
                   kParams, kMetrics, kReasons) {}

PointResult ScalingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const auto& v = in.values;
  const Precision p = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  if (!in.hardware->supports(p)) return {PointStatus::infeasible, precision_unsupported};
  const bool from_compute = static_cast<Input>(v[Param::input]) == Input::compute;
  if (from_compute && !(v[Param::compute_budget] > 0)) return {PointStatus::infeasible, no_compute_budget};
  if (!from_compute && !(v[Param::parameters] > 0)) return {PointStatus::infeasible, no_parameters};
  const bool rented = is_param_word(kParams[Param::gpu_hour_price], v[Param::gpu_hour_price]);
  if (rented && !in.hardware->rental_known()) return {PointStatus::infeasible, no_rental_price};
  const double hour_price = rented ? in.hardware->rental_usd_per_hour : v[Param::gpu_hour_price];

  double n = 0, d = 0;
  if (static_cast<Rule>(v[Param::rule]) == Rule::ratio) {
    const double r = v[Param::tokens_per_parameter];
    n = from_compute ? std::sqrt(v[Param::compute_budget] / (kTrainingFlopsPerParamToken * r)) : v[Param::parameters];
    d = r * n;
  } else {
    const double g = chinchilla_g();
    const double a = kChinchillaBeta / kAlphaPlusBeta;
    const double b = kChinchillaAlpha / kAlphaPlusBeta;
    const double c_over_6 = from_compute ? v[Param::compute_budget] / kTrainingFlopsPerParamToken
                                         : std::pow(v[Param::parameters] / g, 1.0 / a);
    n = from_compute ? g * std::pow(c_over_6, a) : v[Param::parameters];
    d = std::pow(c_over_6, b) / g;
  }
  const double eta = eta_or_default(v[Param::eta], EfficiencyRegime::training_large);
  const double t = dsx::training_time_s(n, d, v[Param::gpus], in.hardware->gemm_peak(p), eta);
  out[optimal_parameters] = n;
  out[optimal_tokens] = d;
  out[compute_flops] = training_flops(n, d);
  out[tokens_per_parameter_ratio] = d / n;
  out[predicted_loss] = chinchilla_loss(n, d);
  out[eta_used] = eta;
  out[training_time_s] = t;
  out[gpu_time_s] = v[Param::gpus] * t;
  out[cost_usd] = run_cost_usd(hour_price, v[Param::gpus], t);
  return {};
}

}  // namespace dsx
