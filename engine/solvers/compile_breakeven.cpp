#include "engine/solvers/compile_breakeven.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace dsx {

namespace {

constexpr double kSecondsPerDay = 86400.0;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr std::array<ParamSpec, CompileBreakevenSolver::kParamCount> kParams = {{
    {.name = "compile_time", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "one-time compile cost paid at start (seeds/000: ~30 s ResNet-50, ~10 s KWS, 10-300 s range)",
     .min_value = 0, .max_value = 1e9, .min_exclusive = true},
    {.name = "throughput_eager", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "inferences per second in eager mode on one device (seeds/000: ResNet-50 1,450 img/s)",
     .min_value = 0, .max_value = 1e15, .min_exclusive = true},
    {.name = "gain", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "throughput gain of compiled mode: compiled / eager - 1 (seeds/000: 5%, 30%, 48%, 100%)",
     .min_value = 0, .max_value = 100, .min_exclusive = true},
    {.name = "volume", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "inference requests arriving per unit time ('10 k/day', '100 /h')",
     .min_value = 0, .max_value = 1e15, .min_exclusive = true},
    {.name = "duration", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "deployment length from the compile on ('1 day', '1 week', '1 year' = 365 days); "
                    "0 s = a single run",
     .min_value = 0, .max_value = 1e11},
    {.name = "run_inferences", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "inferences in one run: the least a deployment serves (1 = the seed's CI job that runs "
                    "the model once)",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 1e15, .integer = true},
}};

constexpr std::array<MetricSpec, CompileBreakevenSolver::kMetricCount> kMetrics = {{
    {"compiled_throughput_inferences_per_s", Dimension::rate, "throughput_eager x (1 + gain)"},
    {"time_saved_per_inference_s", Dimension::time, "1 / throughput_eager - 1 / compiled throughput", MetricDomain::real},
    {"breakeven_inferences", Dimension::count, "compile_time / time saved per inference (seeds/000 Act 2)"},
    {"breakeven_eager_time_s", Dimension::time, "eager device time to run the break-even inferences back to back"},
    {"breakeven_elapsed_s", Dimension::time,
     "deployment time until the compile is repaid: break-even inferences / volume (0 when one run repays it)"},
    {"breakeven_days", Dimension::dimensionless, "breakeven_elapsed_s in days of 86,400 s"},
    {"inferences", Dimension::count, "inferences served: max(run_inferences, volume x duration)"},
    {"eager_time_s", Dimension::time, "device time to serve them eagerly"},
    {"compiled_time_s", Dimension::time, "compile time + device time to serve them compiled"},
    {"cumulative_time_saved_s", Dimension::time, "inferences x time saved per inference", MetricDomain::real},
    {"compile_overhead_s", Dimension::time, "the one-time compile cost (the timeline's flat line)"},
    {"net_time_saved_s", Dimension::time, "cumulative time saved - compile time; negative: eager is faster overall", MetricDomain::real},
    {"roi", Dimension::dimensionless, "net time saved / compile time: -1 nothing saved, 0 break-even"},
    {"payback_fraction", Dimension::dimensionless,
     "cumulative time saved / compile time: the share of the compile repaid, above 100% net-positive"},
    {"justified", Dimension::dimensionless, "1 when compiling is net-positive over the duration, 0 when not"},
    {"overall_speedup", Dimension::dimensionless, "eager_time_s / compiled_time_s, compile included"},
    {"eager_busy_fraction", Dimension::dimensionless, "volume / throughput_eager: share of the device busy eagerly"},
}};

constexpr std::array<std::string_view, 1> kReasons = {
    "volume exceeds throughput_eager: one eager process cannot serve it"};

}  // namespace

double compile_time_saved_per_inference_s(double throughput_eager_per_s, double throughput_compiled_per_s) {
  return 1.0 / throughput_eager_per_s - 1.0 / throughput_compiled_per_s;
}

double compile_breakeven_inferences(double compile_time_s, double throughput_eager_per_s,
                                    double throughput_compiled_per_s) {
  const double saved = compile_time_saved_per_inference_s(throughput_eager_per_s, throughput_compiled_per_s);
  return saved > 0 ? compile_time_s / saved : kInfinity;
}

CompileBreakevenSolver::CompileBreakevenSolver()
    : TabledSolver("compile_breakeven",
                   "compilation break-even and ROI over a deployment (seeds/000 lab_07 Act 2)",
                   kParams, kMetrics, kReasons) {}

PointResult CompileBreakevenSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const double t_compile = in.values[Param::compile_time];
  const double thr_eager = in.values[Param::throughput_eager];
  const double thr_compiled = thr_eager * (1.0 + in.values[Param::gain]);
  const double rate = in.values[Param::volume];
  const double run = in.values[Param::run_inferences];

  const double saved_each = compile_time_saved_per_inference_s(thr_eager, thr_compiled);
  const double n_breakeven = compile_breakeven_inferences(t_compile, thr_eager, thr_compiled);
  const double n = std::max(run, rate * in.values[Param::duration]);
  const double saved = n * saved_each;
  const double eager = n / thr_eager;
  const double compiled = t_compile + n / thr_compiled;
  const double elapsed = run >= n_breakeven ? 0.0 : n_breakeven / rate;

  out[compiled_throughput_inferences_per_s] = thr_compiled;
  out[time_saved_per_inference_s] = saved_each;
  out[breakeven_inferences] = n_breakeven;
  out[breakeven_eager_time_s] = n_breakeven / thr_eager;
  out[breakeven_elapsed_s] = elapsed;
  out[breakeven_days] = elapsed / kSecondsPerDay;
  out[inferences] = n;
  out[eager_time_s] = eager;
  out[compiled_time_s] = compiled;
  out[cumulative_time_saved_s] = saved;
  out[compile_overhead_s] = t_compile;
  out[net_time_saved_s] = saved - t_compile;
  out[roi] = (saved - t_compile) / t_compile;
  out[payback_fraction] = saved / t_compile;
  out[justified] = saved > t_compile ? 1.0 : 0.0;
  out[overall_speedup] = eager / compiled;
  out[eager_busy_fraction] = rate / thr_eager;
  if (rate > thr_eager) return {PointStatus::infeasible, volume_exceeds_eager_throughput};
  return {};
}

}  // namespace dsx
