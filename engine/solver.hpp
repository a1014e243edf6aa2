// One interface, many solvers: a solver declares the parameters it reads and the metrics it writes,
// and evaluates one design point. The registry (engine/registry.hpp) maps study names to solvers.
//
// Contract for evaluate(): pure, thread-safe, allocation-free, no string formatting. It writes
// exactly metrics().size() values into `metrics_out`. An infeasible point (does not fit, unsupported
// precision) returns PointStatus::infeasible with a reason index into reasons(); its metrics may be
// NaN. A bug throws; the sweep turns the exception into an error row.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/fusion.hpp"
#include "engine/hardware.hpp"
#include "engine/units.hpp"

namespace dsx {

enum class ParamKind : std::uint8_t {
  hardware,   // a catalog hardware id; a second one (a prefill pool's) may be optional (see PointInputs)
  model,      // a catalog model id; a second one (a speculative draft) may be optional (see PointInputs)
  precision,  // fp64 ... int4 (value = index into kAllPrecisions)
  choice,     // one of `choices` (value = index)
  number,     // a quantity of `dimension`
};

struct ParamSpec {
  std::string_view name;
  ParamKind kind = ParamKind::number;
  Dimension dimension = Dimension::dimensionless;
  std::span<const std::string_view> choices = {};
  std::string_view description;
  bool has_default = false;
  double default_value = 0;  // number: SI value; choice: index
  double min_value = 0;      // inclusive bounds for numbers
  double max_value = 0;
  bool min_exclusive = false;  // (min, max] instead of [min, max]
  bool integer = false;
  // A calibrated value the profile scales per chip (ResolvedStudy::hardware_scaled) takes the factor
  // of the second hardware parameter's chip when that one is set, of the first otherwise: the
  // parameter describes work that runs on the second hardware (serving's prefill eta).
  bool scaled_by_second_hardware = false;
  // A number parameter may also take one word, which reaches the solver as kParamWord (outside every
  // such parameter's range): serving's and scaling's gpu_hour_price take `catalog`, the point's chip's
  // dated on-demand rental price (HardwareSpec::rental_usd_per_hour).
  std::string_view word = {};
};

inline constexpr double kParamWord = -1;
// The word of a price per GPU-hour that asks for the chip's catalog rental price.
inline constexpr std::string_view kCatalogWord = "catalog";

// Whether `value` of parameter `p` is its word rather than a number.
constexpr bool is_param_word(const ParamSpec& p, double value) { return !p.word.empty() && value == kParamWord; }

// Where a metric's values can lie, so that an interval around a prediction (dse/calibration/
// intervals.hpp) stays where the quantity can be. `unspecified` takes the dimension's: times, sizes,
// bandwidths, FLOPs, FLOP/s, power, energy, rates and counts are >= 0; other dimensions (money, a
// dimensionless ratio) may take any sign.
enum class MetricDomain : std::uint8_t {
  unspecified,
  real,          // any sign
  non_negative,  // >= 0
  fraction,      // a share of a whole or of a peak: [0, 1], or up to Solver::metric_upper_bound
};

struct MetricSpec {
  std::string_view name;  // snake_case with the SI unit as suffix
  Dimension dimension = Dimension::dimensionless;
  std::string_view description;
  MetricDomain domain = MetricDomain::unspecified;
};

// The domain of `m`: its own, or the one its dimension implies.
constexpr MetricDomain metric_domain(const MetricSpec& m) {
  if (m.domain != MetricDomain::unspecified) return m.domain;
  switch (m.dimension) {
    case Dimension::time:
    case Dimension::bytes:
    case Dimension::bandwidth:
    case Dimension::flops:
    case Dimension::flop_rate:
    case Dimension::power:
    case Dimension::energy:
    case Dimension::rate:
    case Dimension::count:
      return MetricDomain::non_negative;
    default:
      return MetricDomain::real;
  }
}

// The most parameters a solver declares (the training solver's 49 with its expert mesh), room for a few more.
inline constexpr std::size_t kMaxParams = 52;

// One design point's inputs, indexed like Solver::params(). hardware/model point into the resolved
// catalog, which outlives the sweep. A solver may declare a second model parameter and a second
// hardware parameter: they reach the solver as second_model and second_hardware, and when their
// ParamSpec has a default they are optional: the label "none", value -1, pointer nullptr.
inline constexpr std::string_view kNoCatalogEntry = "none";

struct PointInputs {
  const HardwareSpec* hardware = nullptr;
  const PreparedModel* model = nullptr;
  const PreparedModel* second_model = nullptr;
  const HardwareSpec* second_hardware = nullptr;
  std::array<double, kMaxParams> values{};
};

enum class PointStatus : std::uint8_t { ok, infeasible, error };

// The infeasibility reason of every solver whose hardware lacks the point's precision.
inline constexpr std::string_view kPrecisionUnsupported = "precision not supported by the hardware";

// A reason may name the point's chip: "{hardware}" in its text stands for the hardware id, filled in
// where a point's reason is shown or stored (reason_text), so that evaluate() formats nothing.
inline constexpr std::string_view kReasonHardware = "{hardware}";
std::string reason_text(std::string_view reason, const HardwareSpec* hardware);
// Whether `text` is `reason` with its "{hardware}" filled in by some id (or `reason` itself).
bool reason_matches(std::string_view reason, std::string_view text);

struct PointResult {
  PointStatus status = PointStatus::ok;
  std::uint8_t reason = 0;  // index into Solver::reasons() when infeasible
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual std::span<const ParamSpec> params() const = 0;
  virtual std::span<const MetricSpec> metrics() const = 0;
  virtual std::span<const std::string_view> reasons() const = 0;
  virtual PointResult evaluate(const PointInputs& in, std::span<double> metrics_out) const = 0;

  // The least and greatest value metric `metric` can physically take at the point `in` (a feasible
  // point: its hardware and model are set): 0 and 1 for a fraction, 0 and +inf for a non-negative
  // quantity, -inf and +inf otherwise. A solver whose fraction is of a whole other than its own
  // peak (training's fp8 MFU, against the bf16 peak) overrides the upper bound.
  virtual double metric_lower_bound(const PointInputs& in, std::size_t metric) const;
  virtual double metric_upper_bound(const PointInputs& in, std::size_t metric) const;
};

// A solver whose name, description, parameters, metrics and reasons are constant tables: a concrete
// solver passes its tables to this constructor and implements evaluate() only.
class TabledSolver : public Solver {
 public:
  TabledSolver(std::string_view name, std::string_view description, std::span<const ParamSpec> params,
               std::span<const MetricSpec> metrics, std::span<const std::string_view> reasons)
      : name_(name), description_(description), params_(params), metrics_(metrics), reasons_(reasons) {}
  std::string_view name() const final { return name_; }
  std::string_view description() const final { return description_; }
  std::span<const ParamSpec> params() const final { return params_; }
  std::span<const MetricSpec> metrics() const final { return metrics_; }
  std::span<const std::string_view> reasons() const final { return reasons_; }

 private:
  std::string_view name_;
  std::string_view description_;
  std::span<const ParamSpec> params_;
  std::span<const MetricSpec> metrics_;
  std::span<const std::string_view> reasons_;
};

}  // namespace dsx
