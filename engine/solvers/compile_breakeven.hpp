// Solver "compile_breakeven": when does a one-time compile (torch.compile, XLA, TensorRT build) pay for
// itself? seeds/000 lab_07 "ML Frameworks", Act 2 Panel B ("Compilation ROI Calculator") and "The
// Scaling Challenge".
//
// Break-even (the seed's Math Peek):
//   dt = 1 / throughput_eager - 1 / throughput_compiled       device time saved per inference
//   N  = compile_time / dt                                     inferences that repay the compile
// ResNet-50: 30 s / (1/1450 - 1/2150 s per image) = 133,607 images, the seed's "~134,000" (its Math
// Peek writes the saving as 0.000224 s/image, 0.0002245 cut short, which gives 133,929).
// throughput_compiled = throughput_eager x (1 + gain): gain is the seed's "throughput gain" slider
// (5%, 30%, 48%, 100%); ResNet-50's 48% is 2,150 / 1,450 - 1 = 48.3% rounded.
//
// Deployment (Panel B's volume and duration sliders). Traffic arrives at `volume` inferences per
// second for `duration`; the process compiles once at start and serves everything on one device:
//   inferences      = max(run_inferences, volume x duration)
// A deployment serves at least one run: "1 run" is duration 0 with run_inferences inferences (one by
// default: the seed's "CI pipeline running a model once per PR"). Then
//   cumulative_time_saved = inferences x dt       (device time; the timeline's rising line)
//   net_time_saved        = cumulative_time_saved - compile_time
//   roi                   = net_time_saved / compile_time   (-1 when nothing is saved, 0 at break-even)
//   justified             = 1 when net_time_saved > 0, else 0 ("Compilation Not Justified")
//   breakeven_elapsed     = 0 if run_inferences >= N, else N / volume   (the timeline's crossover)
// A point that never pays back within its duration is a valid, feasible row with justified = 0.
// Infeasible: a volume above throughput_eager, which one eager process cannot serve (more devices
// would each pay their own compile; not modelled).
#pragma once

#include "engine/solver.hpp"

namespace dsx {

// Device time saved per inference by running compiled instead of eager (s); negative when slower.
double compile_time_saved_per_inference_s(double throughput_eager_per_s, double throughput_compiled_per_s);

// Inferences after which the compile time is repaid: compile_time / saved per inference; +inf when
// compiled mode saves nothing.
double compile_breakeven_inferences(double compile_time_s, double throughput_eager_per_s,
                                    double throughput_compiled_per_s);

class CompileBreakevenSolver final : public TabledSolver {
 public:
  enum Param : std::size_t { compile_time, throughput_eager, gain, volume, duration, run_inferences, kParamCount };
  enum Metric : std::size_t {
    compiled_throughput_inferences_per_s,
    time_saved_per_inference_s,
    breakeven_inferences,
    breakeven_eager_time_s,
    breakeven_elapsed_s,
    breakeven_days,
    inferences,
    eager_time_s,
    compiled_time_s,
    cumulative_time_saved_s,
    compile_overhead_s,
    net_time_saved_s,
    roi,
    payback_fraction,
    justified,
    overall_speedup,
    eager_busy_fraction,
    kMetricCount
  };
  enum Reason : std::uint8_t { volume_exceeds_eager_throughput };

  CompileBreakevenSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
