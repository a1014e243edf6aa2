// Phrases and CSV records the analysis outputs share (output/analysis_report.cpp, the report's
// context and sentences; output/analysis_tables.cpp, the CSV files and store tables): a metric's
// words and display, a design point's labels, a hardware input's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/study.hpp"
#include "output/csv.hpp"
#include "output/format.hpp"

namespace dsx::analysis_text {

std::string join(const std::vector<std::string>& parts, std::string_view sep);

// One CSV file built record by record (RFC 4180 fields, output/csv.hpp).
class Csv {
 public:
  explicit Csv(const std::vector<std::string>& header) {
    for (const std::string& h : header) text(h);
    end();
  }
  Csv& text(std::string_view s) {
    sep();
    append_csv_field(out_, s);
    return *this;
  }
  Csv& number(double v) {
    sep();
    append_csv_number(out_, v);
    return *this;
  }
  Csv& empty(std::size_t n = 1) {
    for (std::size_t i = 0; i < n; ++i) sep();
    return *this;
  }
  void end() {
    out_ += '\n';
    first_ = true;
  }
  const std::string& str() const { return out_; }

 private:
  void sep() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
};

// How a metric is shown (unit, scale, label) and its words ("cost per million tokens").
QuantityDisplay metric_display(const ResolvedStudy& study, const std::string& metric);
std::string metric_words(const ResolvedStudy& study, const std::string& metric);
// "hardware = h200, batch = 16" from selectors.
std::string group_text(const std::vector<Selector>& labels, std::string_view eq = " = ");
// group_text with " = " and each label as the report prints it (readable_value: a chip or a model
// by its catalog name), or `in_figure` as a figure's title prints it (figure_value: by its short name).
std::string group_words(const ResolvedStudy& study, const std::vector<Selector>& labels, bool in_figure = false);
// An objective's `where` in words, a parameter's several values joined by "or":
// "preemption = recompute or swap, node = TPU v6e pod"; empty without one.
std::string where_text(const ResolvedStudy& study, const std::vector<Selector>& where);
// What an objective ranks: "lowest inter-token latency", then " where ..." for its `where`.
std::string objective_words(const ResolvedStudy& study, const Objective& o);
// The swept axes' values at `point` ("batch = 8, execution = eager"), leaving out the axis `except`.
std::string point_text(const ResolvedStudy& study, std::uint64_t point, std::string_view except = {});
// Every axis label of one table row.
std::string row_text(const ResultTable& t, std::size_t row);
// The same as the report prints it: each label through readable_value ("launch_overhead = 5 µs",
// "hardware = NVIDIA H100 SXM 80GB"); row_text keeps the study's labels for the CSV files.
std::string row_words(const ResolvedStudy& study, const ResultTable& t, std::size_t row);
// A break-even's alternative as the CSV files hold it (its label) and as the report prints it.
std::string alt_name(const BreakevenAnalysis& a, std::size_t i);
std::string alt_words(const ResolvedStudy& study, const BreakevenAnalysis& a, std::size_t i);
// A decision's alternative as the report prints it.
std::string alternative_words(const ResolvedStudy& study, const SensitivityAnalysis& s, std::size_t i);
const ParamSpec& along_spec(const ResolvedStudy& study, const BreakevenAnalysis& a);
std::string along_value_text(const ResolvedStudy& study, const BreakevenAnalysis& a, double v);
std::string metric_of_analysis(const BreakevenAnalysis& a);
// A parameter's words: "prompt tokens", "TP" (describe_quantity's label).
std::string param_words(std::string_view param);
// What a report heads an analysis with and the Answer labels it by: its `description`, or words made
// from what it compares ("cost per million tokens of each hardware along batch where prompt tokens =
// 2048"; "hardware with the lowest cost per million tokens"), never its identifier.
std::string analysis_words(const ResolvedStudy& study, const BreakevenRequest& r);
std::string analysis_words(const ResolvedStudy& study, const SensitivityRequest& r);
// "the TDP of NVIDIA H100 SXM 80GB" (the chip by its catalog name), "every accelerator's memory
// bandwidth", or a parameter's name.
std::string input_phrase(const ResolvedStudy& study, const UncertainInput& in);

}  // namespace dsx::analysis_text
