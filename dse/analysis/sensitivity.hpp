// Sensitivity of a metric to uncertain inputs, and the change of an input that flips a decision.
//
// Uncertain inputs are number parameters of the solver (eta, launch overhead, utilisation, ...) or
// fields of a catalog hardware entry (bandwidth, peak, price, TDP, ...). A parameter's value is its
// SI value; a hardware field's value is a scale factor on the catalog value (1 = as catalogued;
// peak_flops scales the peak of every precision alike). An evaluation copies the hardware entry,
// scales the field and points the design point at the copy; the catalog is never changed.
//
// Analyses (each deterministic: the same inputs give bit-identical results on every run):
//
// Local, one at a time: each input is moved by -x% and +x% of its value at the base point, the
// others held there (clipped to the parameter's bounds); the two metric values are a tornado bar.
// The elasticity e = d ln metric / d ln input is the central difference
//   e = (ln M(x (1 + h)) - ln M(x (1 - h))) / (ln(1 + h) - ln(1 - h)),
// exact for a power law M = c x^e; where M changes sign it is (M+ - M-) / (M0 (ln(1+h) - ln(1-h))).
// A step clipped at a bound becomes one-sided. An input whose base value is 0 has no relative
// change and no elasticity (NaN).
//
// Morris elementary effects (M. D. Morris, "Factorial sampling plans for preliminary computational
// experiments", Technometrics 33(2), 1991): r trajectories on a p-level grid of the unit cube,
// each moving every input once by Delta = p / (2 (p - 1)) in random order; the elementary effect of
// input i is EE_i = (f(x + Delta e_i) - f(x)) / Delta with inputs rescaled from [lo, hi] to [0, 1],
// so effects are in metric units per input range and comparable across inputs. Reported: mu (mean
// EE), mu* (mean |EE|; F. Campolongo, J. Cariboni, A. Saltelli, "An effective screening design for
// sensitivity analysis of large models", Environmental Modelling & Software 22, 2007) and sigma
// (sample standard deviation of EE: interactions and non-linearity). Cost r (k + 1) evaluations.
//
// Sobol indices (I. M. Sobol', "Global sensitivity indices for nonlinear mathematical models and
// their Monte Carlo estimates", Math. Comput. Simul. 55, 2001): the share of the metric's variance
// that input i explains alone (first order S_i) and with all its interactions (total S_Ti), inputs
// uniform on [lo, hi]. Sampling after A. Saltelli, "Making best use of model evaluations to compute
// sensitivity indices", Comput. Phys. Commun. 145, 2002: two N x k matrices A and B are the first
// and last k coordinates of a 2k-dimensional Sobol' low-discrepancy sequence (direction numbers of
// S. Joe & F. Y. Kuo, "Constructing Sobol sequences with better two-dimensional projections", SIAM
// J. Sci. Comput. 30, 2008, as in boost::random::sobol), and A_B^(i) is A with column i from B:
// N (k + 2) evaluations. Estimators of A. Saltelli, P. Annoni, I. Azzini, F. Campolongo, M. Ratto,
// S. Tarantola, "Variance based sensitivity analysis of model output. Design and estimator for the
// total sensitivity index", Comput. Phys. Commun. 181, 2010 (Table 2 (b) and (f)):
//   S_i  = mean_j( (f(B)_j - f0) (f(A_B^i)_j - f(A)_j) ) / V
//   S_Ti = mean_j( (f(A)_j - f(A_B^i)_j)^2 ) / (2 V)     (M. J. W. Jansen, Comput. Phys. Commun. 117, 1999)
// with f0 and V the mean and variance of the 2N values f(A), f(B). Centring f(B) by f0 leaves the
// estimator's expectation unchanged and removes the noise a large mean adds to it (the
// recommendation of Sobol' 2001 to subtract the constant f0). Convergence, for a report to quote: the indices
// recomputed from the first N/2 rows (the change between N/2 and N) and percentile bootstrap
// intervals over the N rows (seeded std::mt19937_64). The bootstrap treats the rows as independent
// draws, so for the low-discrepancy rows its intervals are wider than the actual error (Ishigami at
// N = 8192: half-widths up to 0.03, errors about 0.001). A row with an evaluation without a value
// (infeasible point) is dropped from every estimator; the count is reported, since the indices are
// then those of the metric conditioned on feasibility.
//
// Decision flip: with several alternatives (hardware to buy, a deployment choice) and a metric,
// the best alternative at the base point is the decision. For each input, its relative change is
// scanned outward from 0 in equal steps up to +max and down to -max (clipped to its bounds); the
// first step whose best alternative differs is bisected against the previous step to the
// tolerance. The result is the smallest change found ("+18%") and the new best, or "none within
// +-max". A flip and flip-back both inside one scan step is not seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dse/analysis/breakeven.hpp"
#include "dse/analysis/points.hpp"
#include "dse/study.hpp"
#include "engine/solver.hpp"

namespace dsx {

enum class HardwareField : std::uint8_t {
  peak_flops,        // every precision's peak
  memory,
  memory_bandwidth,
  host_link,
  accelerator_link,
  tdp,
  idle_power_fraction,
  price,
};
inline constexpr std::size_t kHardwareFieldCount = 8;
std::string_view hardware_field_name(HardwareField f);  // the catalog key: "memory_bandwidth", ...
std::optional<HardwareField> hardware_field_named(std::string_view name);
// The field's catalog value (peak_flops: the largest peak) and its dimension.
double hardware_field_value(const HardwareSpec& hardware, HardwareField f);
Dimension hardware_field_dimension(HardwareField f);

enum class InputTarget : std::uint8_t { parameter, hardware_field };

struct UncertainInput {
  std::string name;  // as reported: "eta", "memory_bandwidth", "h200_sxm.price"
  InputTarget target = InputTarget::parameter;
  std::size_t param = 0;                       // parameter: index into solver->params() (a number)
  HardwareField field = HardwareField::price;  // hardware_field
  // hardware_field: only this entry; empty = the design point's own hardware. A point with a second
  // chip (serving's prefill_hardware) has the field scaled on whichever of its chips the input names
  // (both, when empty).
  std::string hardware_id;
  double lo = 0;  // range for Morris and Sobol: SI value (parameter) or scale factor (field)
  double hi = 0;
};

// The valid values of an input around a design point: a parameter's declared bounds, a factor > 0
// for a field (and at most 1 / fraction for idle_power_fraction).
struct InputBounds {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
};
InputBounds input_bounds(const Solver& solver, const UncertainInput& input, const PointInputs& point);
// The input's value at the point: the parameter's value, or 1 for a field.
double nominal_value(const UncertainInput& input, const PointInputs& point);

// A scalar function of k inputs (Morris, Sobol). NaN = no value at that point.
using ScalarModel = std::function<double(std::span<const double> x)>;

struct InputRange {
  double lo = 0;
  double hi = 0;
};

// --- Local, one at a time.

struct LocalOptions {
  double relative_change = 0.10;  // x: each input to (1 - x) and (1 + x) of its base value
  double elasticity_step = 0.01;  // h of the central difference
};

struct TornadoBar {
  std::size_t input = 0;
  double nominal = 0;      // input value at the base point
  double input_low = 0;    // values used (clipped to the bounds)
  double input_high = 0;
  double metric_low = 0;   // metric at input_low / input_high; NaN where it has none
  double metric_high = 0;
  double swing = 0;        // |metric_high - metric_low| (NaN when either is NaN)
  double elasticity = 0;   // NaN where undefined
};

struct LocalSensitivity {
  double base_metric = 0;
  double relative_change = 0;
  double elasticity_step = 0;
  std::vector<TornadoBar> bars;  // largest swing first (NaN swings last), ties in input order
};

struct SensitivityProblem {
  const Solver* solver = nullptr;
  PointInputs base;
  std::size_t metric = 0;
  std::vector<UncertainInput> inputs;
  MetricValue value;  // when set, what is measured instead of the solver metric `metric`
};

LocalSensitivity local_sensitivity(const SensitivityProblem& problem, const LocalOptions& options = {});

// The metric of `problem.base` with the inputs set to x (one value per input).
ScalarModel scalar_model(const SensitivityProblem& problem);

// --- Morris.

struct MorrisOptions {
  std::size_t trajectories = 20;  // r
  std::size_t levels = 4;         // p, even, >= 2
  std::uint64_t seed = 20070101;
};

struct MorrisEffect {
  double mu = 0;
  double mu_star = 0;
  double sigma = 0;       // NaN with fewer than two effects
  std::size_t effects = 0;  // elementary effects with a value
};

struct MorrisResult {
  std::vector<MorrisEffect> effects;  // input order
  std::vector<std::size_t> ranking;   // inputs by mu* descending (ties in input order)
  std::size_t trajectories = 0;
  std::size_t levels = 0;
  double delta = 0;
  std::size_t evaluations = 0;
  std::size_t missing = 0;  // evaluations without a value
};

MorrisResult morris(const ScalarModel& f, std::span<const InputRange> ranges, const MorrisOptions& options = {});
MorrisResult morris(const SensitivityProblem& problem, const MorrisOptions& options = {});

// --- Sobol.

struct SobolOptions {
  std::size_t samples = 4096;   // N (a power of two balances the Sobol' sequence best)
  std::size_t bootstrap = 200;  // resamples for the intervals (0: none)
  double confidence = 0.95;
  std::uint64_t seed = 20100101;  // of the bootstrap
};

struct SobolIndex {
  double first = 0;
  double total = 0;
  double first_low = 0, first_high = 0;  // bootstrap percentile interval (NaN without bootstrap)
  double total_low = 0, total_high = 0;
  double first_half = 0;  // from the first N/2 rows
  double total_half = 0;
};

struct SobolResult {
  std::vector<SobolIndex> indices;  // input order
  std::size_t samples = 0;          // N
  std::size_t rows_used = 0;        // N minus dropped rows
  std::size_t evaluations = 0;      // N (k + 2)
  double mean = 0;                  // of the metric over A and B
  double variance = 0;              // V (0: the metric does not vary; indices NaN)
  double confidence = 0;
  std::size_t bootstrap = 0;
  double max_change = 0;      // max over inputs of |index(N) - index(N/2)|, first and total
  double max_half_width = 0;  // max over inputs of the bootstrap intervals' half widths (NaN without)
};

SobolResult sobol(const ScalarModel& f, std::span<const InputRange> ranges, const SobolOptions& options = {});
SobolResult sobol(const SensitivityProblem& problem, const SobolOptions& options = {});

// --- Decision flip.

struct DecisionProblem {
  const Solver* solver = nullptr;
  std::vector<std::string> alternatives;  // labels
  std::vector<PointInputs> points;        // the design point of each alternative
  std::size_t metric = 0;
  Direction direction = Direction::minimize;
  std::vector<UncertainInput> inputs;
  MetricValue value;  // when set, what is compared instead of the solver metric `metric`
};

struct FlipOptions {
  // Search up to a factor 1 + max either way: a rise of up to +max, a fall of up to
  // -max / (1 + max) (+100 % and -50 %), never towards zero, and within each input's bounds.
  double max_relative_change = 0.5;
  std::size_t scan_steps = 100;      // per direction
  double tolerance = 1e-4;           // on the relative change
};

struct FlipSearch {
  double limit = 0;    // relative change searched to (signed; clipped to the bounds)
  bool found = false;
  double relative_change = 0;  // smallest change with another best (signed); NaN when not found
  double last_same = 0;        // the largest change found to keep the decision (the bracket's other end)
  std::size_t new_best = kNoAlternative;  // best after the flip (kNoAlternative: none has a value)
};

struct DecisionFlip {
  std::size_t input = 0;
  double nominal = 0;
  FlipSearch up;
  FlipSearch down;
};

struct DecisionResult {
  std::size_t best = kNoAlternative;  // at the base point
  std::vector<double> base_metrics;   // per alternative
  std::vector<DecisionFlip> flips;    // input order
  std::size_t evaluations = 0;        // decisions evaluated (each evaluates every alternative)
  double tolerance = 0;
};

DecisionResult decision_flips(const DecisionProblem& problem, const FlipOptions& options = {});

// "+18.0%", "-4.25%" (3 significant digits), or "none within +50%".
std::string flip_text(const FlipSearch& search);

// --- On a study.

struct UncertainDecl {
  std::string name;  // a number parameter, a hardware field, or "<hardware id>.<field>"
  std::optional<InputRange> range;  // for Morris/Sobol; default: the base value -+ local change
};

struct SensitivityRequest {
  std::string name;
  std::string description;  // the words a report heads it with (the Answer's label); "" = generated
  std::string metric;  // a solver metric or a derived metric of the study
  Direction direction = Direction::minimize;  // used by the decision flip
  // Pins the base point: every axis with several values (but `decide`), by selectors, or the
  // grid index `base_point` instead.
  std::vector<Selector> base;
  std::optional<std::uint64_t> base_point;
  std::vector<UncertainDecl> inputs;
  bool local = true;
  LocalOptions local_options;
  std::optional<MorrisOptions> morris;
  std::optional<SobolOptions> sobol;
  // A swept parameter whose values are the alternatives of a decision (empty: no decision). The
  // local and global analyses then run at the best alternative's point.
  std::string decide;
  std::vector<std::string> among;  // labels of `decide` to choose from; empty = all
  FlipOptions flip;
};

struct SensitivityAnalysis {
  SensitivityRequest request;
  std::vector<UncertainInput> inputs;  // resolved, with ranges
  std::size_t metric = 0;              // solver metric (meaningless for a derived metric)
  std::uint64_t base_point = 0;        // grid index of the point the local and global analyses use
  std::optional<LocalSensitivity> local;
  std::optional<MorrisResult> morris;
  std::optional<SobolResult> sobol;
  std::vector<std::string> alternatives;           // decision alternatives (labels)
  std::vector<std::uint64_t> alternative_points;   // their grid indices
  std::optional<DecisionResult> decision;
};

// The most solver evaluations one method of a sensitivity analysis may ask for (Morris r(k+1),
// Sobol N(k+2), a flip scan's steps per input and alternative), and the most bootstrap work of a
// Sobol analysis (resamples x samples): a few minutes and a few hundred MB at most, so that a typo
// in `samples:` is an error in `dsx validate`, not an hour and an out-of-memory kill.
inline constexpr double kMaxSensitivityEvaluations = 20e6;
inline constexpr double kMaxSobolBootstrapWork = 2e9;

// Every problem with the request against the study: unknown metric or input name, an integer or
// non-number parameter as an input, an input twice, a range outside the bounds, an unpinned axis,
// bad options, a cost past the limits above. Evaluates nothing.
std::vector<RequestProblem> check_sensitivity(const ResolvedStudy& study, const SensitivityRequest& request);

// Runs the requested analyses; throws std::invalid_argument listing check_sensitivity's problems,
// or when the base point (or every decision alternative) has no value of the metric.
SensitivityAnalysis run_sensitivity(const ResolvedStudy& study, const SensitivityRequest& request);

}  // namespace dsx
