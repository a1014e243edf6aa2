// The efficiency factor eta = achieved FLOP/s / peak FLOP/s (seeds/004 "Understanding the Efficiency
// Parameter"): the one number the analytical model cannot derive, so it is taken by regime or
// calibrated from a measurement, never silently 0.5.
//
// Regime table (seeds/004, "The Efficiency Guide Table"; ranges from MLPerf, PaLM and Megatron-LM
// reports):
//   training_large          Megatron-LM-class training of a large Transformer   0.40 - 0.55
//   training_eager_small    PyTorch eager training of a small model             0.08 - 0.15
//   decode_bs1              inference decode at batch 1                         0.01 - 0.05
//   decode_batched          inference decode at batch 32 and more               0.15 - 0.35
//   prefill_long_context    inference prefill over a long context               0.30 - 0.50
//   tinyml                  TFLite Micro on a microcontroller (ESP32)           0.05 - 0.15
// Default point of each range: its arithmetic midpoint (low + high) / 2. With it, "within the range" is
// exactly "within (high - low) / (high + low) of the default", the tolerance a study uses to check a
// calibrated eta against the table.
//
// Calibration (seeds/004, "How to Calibrate Efficiency", step 3):
//   eta = achieved FLOP/s / peak = throughput x FLOPs per item / (devices x peak FLOP/s)
// An eta above 1 means the inputs contradict each other (throughput, FLOPs per item or peak is wrong):
// the seed's own example, 1,200 tokens/s x 1.4e12 FLOPs/token on a 989 TFLOP/s H100, gives 1.70.
// Training regimes count forward + backward = 3 x forward FLOPs per item (the backward pass costs two
// forward passes: Kaplan et al. 2020, arXiv:2001.08361, C = 6N per token).
//
// Least squares: given the throughputs each measurement would reach at eta = 1 (ideal_i) and the
// measured ones (m_i), the single eta minimising sum (eta x ideal_i / m_i - 1)^2, the relative error
// of the prediction, is sum(r_i) / sum(r_i^2) with r_i = ideal_i / m_i.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace dsx {

enum class EfficiencyRegime : std::uint8_t {
  training_large,
  training_eager_small,
  decode_bs1,
  decode_batched,
  prefill_long_context,
  tinyml,
};

inline constexpr std::size_t kEfficiencyRegimeCount = 6;

struct RegimeEfficiency {
  EfficiencyRegime regime;
  std::string_view name;       // as a study writes it: "decode_bs1"
  std::string_view scenario;   // the seed's row: "Inference decode, batch=1"
  double low = 0;
  double high = 0;
  double default_eta = 0;      // (low + high) / 2
  bool training = false;       // forward + backward FLOPs per item
  std::string_view rationale;  // the seed's "Rationale" column
  std::string_view label;      // short words a report's tables and figures print: "Decode, batch 1"
};

inline constexpr std::array<RegimeEfficiency, kEfficiencyRegimeCount> kRegimeEfficiencies = {{
    {EfficiencyRegime::training_large, "training_large", "Training (Megatron-LM, large Transformer)", 0.40, 0.55,
     (0.40 + 0.55) / 2, true, "Well-optimized GEMM + FlashAttention", "Training, large Transformer"},
    {EfficiencyRegime::training_eager_small, "training_eager_small", "Training (PyTorch eager, small model)", 0.08,
     0.15, (0.08 + 0.15) / 2, true, "Kernel launch overhead dominates", "Training, eager small model"},
    {EfficiencyRegime::decode_bs1, "decode_bs1", "Inference decode, batch=1", 0.01, 0.05, (0.01 + 0.05) / 2, false,
     "Memory-bound; compute nearly idle", "Decode, batch 1"},
    {EfficiencyRegime::decode_batched, "decode_batched", "Inference decode, batch=32+", 0.15, 0.35,
     (0.15 + 0.35) / 2, false, "Batch amortizes weight loading", "Decode, batch 32+"},
    {EfficiencyRegime::prefill_long_context, "prefill_long_context", "Inference prefill, long context", 0.30, 0.50,
     (0.30 + 0.50) / 2, false, "Compute-bound GEMM + attention", "Prefill, long context"},
    {EfficiencyRegime::tinyml, "tinyml", "TinyML (TFLite Micro on ESP32)", 0.05, 0.15, (0.05 + 0.15) / 2, false,
     "Interpreter overhead, no tensor cores", "TinyML"},
}};

// The regime names in enum order (a solver's `regime` choices).
inline constexpr std::array<std::string_view, kEfficiencyRegimeCount> kEfficiencyRegimeNames = {
    "training_large", "training_eager_small", "decode_bs1", "decode_batched", "prefill_long_context", "tinyml"};

const RegimeEfficiency& regime_efficiency(EfficiencyRegime regime);
std::optional<EfficiencyRegime> parse_efficiency_regime(std::string_view name);

// The regime's default eta (midpoint of the seed's range).
double default_eta(EfficiencyRegime regime);

// The eta a solver uses: `eta` when one was given (> 0), else the regime's default. A solver declares
// eta with default 0 ("not given") and range [0, 1].
double eta_or_default(double eta, EfficiencyRegime regime);

// True when eta lies in the regime's range [low, high].
bool eta_in_regime_range(double eta, EfficiencyRegime regime);

// Forward FLOPs per item times the pass factor: 3 for the training regimes, 1 otherwise.
double regime_flops_per_item(double forward_flops_per_item, EfficiencyRegime regime);

struct EtaCalibration {
  double achieved_flops_per_s = 0;  // per device
  double eta = 0;                   // achieved / peak
  bool consistent = true;           // eta <= 1: the inputs can all be right
};

// seeds/004 step 3: eta = throughput x FLOPs per item / (devices x peak). `throughput_per_s` is the
// items per second of all `devices` together.
EtaCalibration calibrate_eta(double throughput_per_s, double flops_per_item, double peak_flops_per_s,
                             double devices = 1);

// Least-squares eta over several measurements (relative error; see above). Both spans have the same
// length, every value > 0; returns 0 for empty input.
double fit_eta(std::span<const double> ideal_throughputs, std::span<const double> measured_throughputs);

}  // namespace dsx
