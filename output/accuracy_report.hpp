// The accuracy report of `dsx accuracy` (and the tables `dsx calibrate` prints): every measurement
// of the validation set predicted against its published value, the accuracy per regime in-sample
// and cross-validated (leave one source out), the coverage of the 80 % intervals, the fitted
// parameters, and the rows dsx cannot predict with what they miss.
//
// Files written into the output folder: accuracy.csv (one row per measurement; its campaign column
// names what cross-validation holds out together: the row's campaign, else its URL, else its
// citation), regimes.csv (one row per regime), parameters.csv, figures/parity.{svg,pdf,png,gp,dat}
// (log-log, held-out prediction against measurement, y = x and +-10 % lines, one marker per regime),
// report.md and report.html (self-contained, the house template).
#pragma once

#include <string>

#include "dse/calibration/fit.hpp"
#include "dse/calibration/measurements.hpp"

namespace dsx {

struct AccuracyReportInputs {
  const MeasurementSet* set = nullptr;
  const Calibration* calibration = nullptr;
  std::string command;        // how to reproduce, shown in the report
  std::string template_dir;   // report.html.mustache lives here
  std::string dsx_version;
  std::string git_revision;
};

// The per-regime table as aligned text, for a terminal.
std::string regime_table_text(const Calibration& calibration);
// The fitted parameters (value, spread, prior, rows constraining them) as aligned text.
std::string parameter_table_text(const MeasurementSet& set, const Calibration& calibration);
// One line per measurement: id, regime, measured, predicted, error in-sample and held out.
std::string residual_table_text(const MeasurementSet& set, const Calibration& calibration);

std::string accuracy_csv(const MeasurementSet& set, const Calibration& calibration);
std::string regimes_csv(const Calibration& calibration);
std::string accuracy_markdown(const AccuracyReportInputs& in, bool with_parity_figure);

// Writes every file above into `dir` (created when absent).
void write_accuracy_report(const AccuracyReportInputs& in, const std::string& dir);

}  // namespace dsx
