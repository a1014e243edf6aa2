// Fleet reliability and checkpointing.
//
//   Fleet MTBF: components in series with independent exponential lifetimes, so failure rates add:
//   lambda = sum_i count_i / MTTF_i, MTBF = 1 / lambda. mlsysim's component MTTFs (GPU 50,000 h,
//   NIC 150,000 h, PSU 100,000 h) and a DGX H100 node of 8 GPUs, 8 NICs and 2 PSUs give
//   2.333e-4 failures/h per node and 66.96 h for 64 nodes.
//   Checkpoint interval (compute time between checkpoints that each take delta):
//     Young 1974 ("A first order approximation to the optimum checkpoint interval", CACM 17(9)):
//       tau = sqrt(2 delta M)
//     Daly 2006 ("A higher order estimate of the optimum checkpoint interval for restart dumps",
//       FGCS 22(3), eq. 37): tau = sqrt(2 delta M) (1 + sqrt(delta / (2M)) / 3 + delta / (18 M)) - delta
//       for delta < 2M, else tau = M.
//   Goodput (first order, Daly 2006 section 3): the fraction of wall time that is useful work is
//     1 - delta / (tau + delta) - (R + (tau + delta) / 2) / M,
//   where each failure costs a restart R plus, on average, half a checkpoint period of rework.
//   mlsysim omits the rework term (its section 6.13).
#pragma once

namespace dsx {

inline constexpr double kGpuMttfHours = 50000.0;
inline constexpr double kNicMttfHours = 150000.0;
inline constexpr double kPsuMttfHours = 100000.0;

struct ComponentCount {
  double count = 0;
  double mttf_h = 0;
};

// Failures per hour of `units` identical units, each made of `components`.
double failure_rate_per_h(const ComponentCount* components, int component_count, double units);
double mtbf_h(double failure_rate_per_h);

double young_interval_s(double checkpoint_s, double mtbf_s);
double daly_interval_s(double checkpoint_s, double mtbf_s);
double goodput_fraction(double interval_s, double checkpoint_s, double restart_s, double mtbf_s);

}  // namespace dsx
