// Published measurements that dsx predicts: the validation set of `dsx accuracy` and the data
// `dsx calibrate` fits efficiency parameters to. Format: studies/catalog/measurements/README.md.
//
// A measurement file holds `measurements:` (rows), optionally `regimes:` (accuracy classes: which
// solver parameters their rows constrain and which metrics their errors apply to) and a `catalog:`
// block like a study's (entries with `base:` and overrides, e.g. a model at another sequence
// length). Each row is one design point of one solver (`inputs` read like a study's fixed: values,
// every other parameter at the solver's default), a metric and the published value with its unit.
// A row dsx cannot express says so (`cannot_predict:`) and is kept, never dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dse/calibration/profile.hpp"
#include "dse/catalog.hpp"
#include "dse/diagnostics.hpp"
#include "dse/study.hpp"

namespace dsx {

// A parameter the fit may move: solver.name, and the value it starts from and is pulled towards
// (the solver's default unless the regime gives one: a parameter without a default, or whose
// default is a placeholder such as 0 = "the regime table's value", needs it).
//
// `per_hardware: NAME` makes the parameter's value (an efficiency, a fixed overhead: any continuous
// parameter) depend on the chip: the fit gives every
// hardware that enough rows constrain a factor of family NAME (one factor per chip, shared by all
// parameters of the family), and a point on that hardware uses the fitted value times the factor
// (dse/calibration/fit.hpp).
//
// `fixed: true` holds the parameter at its prior: the profile carries that value and the fit does
// not move it, for a quantity another measurement states better than the regime's rows can (the
// regime's comment cites it).
struct FitParameterRef {
  std::string solver;
  std::string name;
  std::optional<double> prior;
  std::string per_hardware;  // factor family; empty = one value for every chip
  bool fixed = false;
};

struct RegimeDefinition {
  std::string name;
  std::string description;
  std::vector<FitParameterRef> fit;     // the parameters its rows are meant to constrain
  // fit: [serving.eta_decode, {parameter: efficiency.eta, prior: 0.45}]
  std::vector<IntervalRule> intervals;  // the metrics its errors apply to (regime = name)
};

struct MeasurementSource {
  std::string citation;
  std::string url;
  std::string read;  // where in the source the number stands
  std::string date;
  // One benchmark run that two documents report (a blog's table and the performance page it takes
  // its data from): rows naming the same campaign are one source for cross-validation.
  std::string campaign;
  // Rows of one paper, report, results page or campaign share a key: cross-validation leaves them
  // out together. The campaign when there is one, else the URL, else the citation.
  std::string key() const {
    if (!campaign.empty()) return "campaign:" + campaign;
    return url.empty() ? citation : url;
  }
};

struct Measurement {
  std::string id;
  std::string regime;
  std::string file;
  int line = 0;
  MeasurementSource source;
  std::string stack;
  std::string notes;
  std::string measured_label;  // as written: "141 TFLOP/s"
  double measured = 0;         // SI, > 0
  // Rows dsx can express:
  std::optional<ResolvedStudy> point;  // a one-point study of the row's solver
  std::size_t metric = 0;              // index into point->solver->metrics()
  std::vector<std::string> written;    // parameters the row sets itself (the fit leaves them alone)
  // Rows dsx cannot express: what is missing, and the workload in words.
  std::string cannot_predict;
  std::string workload;

  bool predictable() const { return point.has_value(); }
  Orientation orientation() const;  // of the row's metric: a time, or a rate
};

struct MeasurementSet {
  std::vector<std::string> files;  // in reading order
  std::string content_hash;        // of the files' text, in order (hex)
  std::vector<RegimeDefinition> regimes;
  std::vector<Measurement> rows;   // file order, then row order

  const RegimeDefinition* regime(std::string_view name) const;
  // The first regime's reference to solver.name; nullptr when no regime fits it.
  const FitParameterRef* fit_parameter(std::string_view solver, std::string_view name) const;
};

// Reads measurement files: each path is a file or a folder whose *.yaml files are read in name
// order. Hardware, model and bundle ids resolve against the catalog in `catalog_dir` plus every
// file's `catalog:` block. When no file defines a regime, `<catalog_dir>/measurements/regimes.yaml`
// is read for them. Every problem is reported at its position; nullopt after any error.
std::optional<MeasurementSet> load_measurements(const std::vector<std::string>& paths, const std::string& catalog_dir,
                                                Diagnostics& diags);

}  // namespace dsx
