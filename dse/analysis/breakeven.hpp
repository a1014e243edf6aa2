// Break-even analysis: where along one axis a metric of one alternative overtakes another's.
// "Compiled beats eager after N inferences", "H200 beats H100 on $/token above batch B", "the CPU
// becomes the bottleneck above batch B".
//
// Method. The metric of every alternative is evaluated by the solver at each scan point (the
// values of the `along` axis). For each pair of alternatives (i < j) the difference
// d(x) = metric_i(x) - metric_j(x) is classified at each scan point as positive, negative or zero,
// zero meaning |d| <= 1e-12 x (|metric_i| + |metric_j|) so that rounding noise between two
// computations of the same number is no crossing. A crossing is a change of sign between
// consecutive scan points where both alternatives have a value:
//   - on a continuous (number) axis the root of d inside the bracketing pair is refined by Brent's
//     method (dse/analysis/roots.hpp; Brent 1973) re-evaluating the solver, to the stated
//     tolerance; a bracket that shrinks onto a step of a metric (d keeps a non-negligible size on
//     both sides, > 1e-6 of |metric_i| + |metric_j| at the scan points around it) is a `jump`;
//   - on a discrete axis (a choice, hardware or model axis, or a number axis with refinement off)
//     the crossing is the bracketing pair of scan points;
//   - d exactly zero at one scan point with opposite signs around it is a crossing at that point;
//     zero over a run of scan points is a tie over that run.
// Two crossings of one pair between the same two scan points cancel in the signs and are not
// seen: the scan's resolution bounds what is found. Points where an alternative is infeasible (or
// its evaluation fails) break the comparison there; a refinement that meets one stops with the
// bracket it had (`unrefined`).
//
// Every crossing is reported; none in the scanned range is a result, not an error: the segments
// then hold one entry, the alternative that is best throughout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "dse/analysis/points.hpp"
#include "dse/analysis/roots.hpp"
#include "dse/study.hpp"
#include "engine/solver.hpp"

namespace dsx {

inline constexpr std::size_t kNoAlternative = std::numeric_limits<std::size_t>::max();

// --- The generic problem: a solver and a way to build each alternative's inputs at an axis value.

struct BreakevenProblem {
  const Solver* solver = nullptr;
  std::size_t metric = 0;  // index into solver->metrics()
  Direction direction = Direction::minimize;
  std::vector<std::string> alternatives;  // labels; at least two
  // Scan points in axis order: numbers strictly increasing when `refine` is set. The labels (same
  // size, or empty) are carried into the results.
  std::vector<double> along_values;
  std::vector<std::string> along_labels;
  bool refine = true;
  RootTolerance tolerance;
  // Fills `out` with the inputs of `alternative` at axis value `along` (a scan value, or a value
  // between two when refining).
  std::function<void(std::size_t alternative, double along, PointInputs& out)> inputs;
  // What is compared, per alternative, from a feasible evaluation (a derived metric, another
  // solver metric per alternative). Empty, or an empty function: the solver metric `metric`.
  std::vector<MetricValue> values;
};

enum class CrossingKind : std::uint8_t {
  root,       // refined: the metrics are equal at along_value (within the tolerance)
  jump,       // refined onto a discontinuity: the order flips at along_value without equality
  at_point,   // equal exactly at a scan point, opposite order on either side
  tie,        // equal over the scan points [scan_lo, scan_hi], opposite order on either side
  bracket,    // discrete axis: the order flips between scan points scan_lo and scan_hi
  unrefined,  // refinement met a point without a value, or its evaluation limit; the order flips
              // inside [bracket_lo, bracket_hi]
};
std::string_view crossing_kind_name(CrossingKind kind);

struct Crossing {
  std::size_t first = 0;   // alternatives, first < second
  std::size_t second = 0;
  CrossingKind kind = CrossingKind::root;
  double along_value = 0;    // root, jump or scan point; NaN for tie, bracket and unrefined
  double metric_first = 0;   // metrics at along_value; NaN where along_value is NaN
  double metric_second = 0;
  std::size_t scan_lo = 0;   // the scan points around the crossing (indices into along_values)
  std::size_t scan_hi = 0;
  double bracket_lo = 0;     // where the crossing lies: the final Brent bracket when refined,
  double bracket_hi = 0;     // the scan values otherwise
  double tolerance = 0;      // absolute tolerance of the refinement (along units); 0 unrefined
  int evaluations = 0;       // solver evaluations per alternative spent refining
  std::size_t better_below = kNoAlternative;  // better just before the crossing along the axis
  std::size_t better_above = kNoAlternative;  // better just after
  // With a calibration profile covering the metric, on a number axis: the 80 % interval of where the
  // crossing lies once each alternative's model error is drawn (dse/calibration/intervals.hpp
  // crossing_interval); -inf / +inf when it may leave the scanned range; NaN without one.
  double interval_low = std::numeric_limits<double>::quiet_NaN();
  double interval_high = std::numeric_limits<double>::quiet_NaN();
  double interval_share_in_range = std::numeric_limits<double>::quiet_NaN();  // draws crossing inside the range
};

// A run of the axis where one alternative is best (among all). A boundary inside a refined
// crossing is its along_value; on a discrete axis a segment spans its own scan points.
struct BestSegment {
  std::size_t best = kNoAlternative;  // kNoAlternative: no alternative has a value there
  double from = 0;
  double to = 0;
  std::size_t scan_from = 0;  // first and last scan point inside the segment
  std::size_t scan_to = 0;
};

struct BreakevenOutcome {
  std::vector<double> along_values;      // as given
  std::vector<std::string> along_labels;
  std::vector<double> curves;            // alternatives x scan points (row-major); NaN where none
  std::vector<std::size_t> best_at;      // best alternative at each scan point (kNoAlternative: none)
  std::vector<Crossing> crossings;       // ordered by position along the axis, then by pair
  std::vector<BestSegment> segments;     // in axis order
  std::size_t missing_values = 0;        // (alternative, scan point) pairs without a value
  double curve(std::size_t alternative, std::size_t scan) const {
    return curves[alternative * along_values.size() + scan];
  }
};

// Throws std::invalid_argument for a malformed problem (fewer than two alternatives, no scan
// points, unsorted values with refine, missing callback).
BreakevenOutcome find_breakevens(const BreakevenProblem& problem);

// --- On a study: axes and selectors by name.

struct BreakevenRequest {
  std::string name;          // identifies the analysis (file stems, report anchors)
  std::string description;   // the words a report heads it with (the Answer's label); "" = generated
  // A swept parameter: the axis the crossing lies on. Not an axis of bundles (region: [...]): its
  // values set several parameters at once, so nothing runs continuously between two of them.
  std::string along;
  // A swept parameter or an axis of bundles whose values are the alternatives compared.
  std::string alternatives;
  std::vector<std::string> among;  // labels of `alternatives` to compare; empty = all its values
  std::string metric;        // a solver metric or a derived metric of the study
  // Instead of `alternatives` and `metric`: two or more metrics of the same design point compared
  // with each other ("compiled_time_s beats eager_time_s above N inferences").
  std::vector<std::string> metrics;
  Direction direction = Direction::minimize;
  // Pins other axes. Each other axis left free (with several values) gives a group: one
  // break-even analysis per combination of the free axes' values.
  std::vector<Selector> where;
  // Refine roots by re-evaluating the solver. Default: on for a number parameter, off otherwise
  // (setting it on elsewhere is a problem).
  std::optional<bool> refine;
  RootTolerance tolerance;
};

struct BreakevenGroup {
  std::vector<Selector> labels;  // the free axes' values in this group (empty without free axes)
  std::vector<std::uint64_t> base_points;  // per alternative: grid point at the first scan point
  BreakevenOutcome outcome;
};

struct BreakevenAnalysis {
  BreakevenRequest request;
  std::vector<std::string> alternatives;  // labels compared, in axis order (metric names with `metrics`)
  std::size_t along_param = 0;
  std::size_t metric = 0;  // solver metric (with `metrics` or a derived metric: meaningless)
  bool refined = false;
  std::vector<BreakevenGroup> groups;    // in grid order of the free axes
};

// Every problem with the request against this study (unknown metric or parameter, an along or
// alternatives parameter that is not swept, `metrics` together with `alternatives` or `metric`, a selector pinning them, an unknown `among` label,
// refinement on a non-number axis, a bad tolerance). Evaluates nothing.
std::vector<RequestProblem> check_breakeven(const ResolvedStudy& study, const BreakevenRequest& request);

// Runs the analysis; throws std::invalid_argument listing check_breakeven's problems.
BreakevenAnalysis run_breakeven(const ResolvedStudy& study, const BreakevenRequest& request);

// Plain sentences for one group, e.g. "compiled beats eager on total_time_s above inferences =
// 133607 (both 92.1429 there; root bracketed within 2.9e-05).", or "no crossing of total_time_s in
// [1000, 1e+07] of inferences: compiled is better throughout." Numbers with 6 significant digits
// (widths with 2) and the along parameter's SI unit; labels on a discrete axis.
std::string breakeven_statement(const ResolvedStudy& study, const BreakevenAnalysis& analysis,
                                const BreakevenGroup& group);

}  // namespace dsx
