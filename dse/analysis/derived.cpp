#include "dse/analysis/derived.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "dse/grid.hpp"
#include "engine/precision.hpp"

namespace dsx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr std::array<std::string_view, 9> kHardwareNames = {
    "hardware_price_usd",          "hardware_tdp_w",
    "hardware_memory_bytes",       "hardware_memory_bandwidth_bytes_per_s",
    "hardware_host_link_bytes_per_s", "hardware_accelerator_link_bytes_per_s",
    "hardware_idle_power_fraction", "hardware_peak_flops_per_s", "hardware_rental_usd_per_hour"};
constexpr std::array<std::string_view, 2> kModelNames = {"model_parameters", "model_flops_per_sample"};

bool has_param_kind(const Solver& solver, ParamKind kind) {
  return std::any_of(solver.params().begin(), solver.params().end(), [&](const ParamSpec& p) { return p.kind == kind; });
}

// The name of a solver's second hardware parameter (serving's prefill_hardware); empty without one.
std::string_view second_hardware_name(const Solver& solver) {
  int seen = 0;
  for (const ParamSpec& p : solver.params()) {
    if (p.kind == ParamKind::hardware && ++seen == 2) return p.name;
  }
  return {};
}

// The catalog values of `hw` in kHardwareNames' order; every one NaN without a chip.
void fill_hardware_values(const HardwareSpec* hw, int precision_param, const PointInputs& in, double* h) {
  if (hw == nullptr) {
    std::fill(h, h + kHardwareNames.size(), kNaN);
    return;
  }
  h[0] = hw->price_usd;
  h[1] = hw->tdp_known() ? hw->tdp_w : kNaN;  // unknown TDP: tokens per joule and the like stay empty
  h[2] = hw->memory_bytes;
  h[3] = hw->memory_bandwidth_bytes_per_s;
  h[4] = hw->host_link_bandwidth_bytes_per_s;
  h[5] = hw->accelerator_link_bandwidth_bytes_per_s;
  h[6] = hw->idle_power_fraction;
  if (precision_param >= 0) {
    const auto p = static_cast<std::size_t>(in.values[static_cast<std::size_t>(precision_param)]);
    h[7] = p < kAllPrecisions.size() ? hw->peak(kAllPrecisions[p]) : kNaN;
  } else {
    h[7] = *std::max_element(hw->peak_flops_per_s.begin(), hw->peak_flops_per_s.end());
  }
  h[8] = hw->rental_known() ? hw->rental_usd_per_hour : kNaN;  // no published rental: dollars stay empty
}

constexpr std::size_t kAbsentColumn = static_cast<std::size_t>(-1);

// Table column of each solver metric; kAbsentColumn for one the formulas do not read and the table
// lacks.
std::vector<std::size_t> solver_columns(const ResolvedStudy& study, const ResultTable& table) {
  const std::vector<bool> read = solver_metrics_read_by_formulas(study);
  std::vector<std::size_t> cols;
  const auto metrics = study.solver->metrics();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const int c = table.metric_column(metrics[m].name);
    if (c < 0 && read[m]) {
      throw std::invalid_argument("the results have no column for metric '" + std::string(metrics[m].name) + "'");
    }
    cols.push_back(c < 0 ? kAbsentColumn : static_cast<std::size_t>(c));
  }
  return cols;
}

// The row's solver metrics in the solver's order, NaN where the table has no column.
void load_solver_metrics(const ResultTable& table, std::size_t row, std::span<const std::size_t> cols,
                         std::vector<double>& out) {
  for (std::size_t m = 0; m < cols.size(); ++m) out[m] = cols[m] == kAbsentColumn ? kNaN : table.metric(row, cols[m]);
}

}  // namespace

bool selects(const ResultTable& table, std::size_t row, std::span<const Selector> where) {
  for (std::size_t i = 0; i < where.size(); ++i) {
    const Selector& s = where[i];
    if (std::any_of(where.begin(), where.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](const Selector& earlier) { return earlier.param == s.param; })) {
      continue;  // checked with the first selector of its parameter
    }
    const int col = table.axis_column(s.param);
    if (col < 0) continue;  // a fixed parameter: checked against its value when the study loaded
    const std::string& label = table.label(row, static_cast<std::size_t>(col));
    if (std::none_of(where.begin() + static_cast<std::ptrdiff_t>(i), where.end(),
                     [&](const Selector& x) { return x.param == s.param && x.label == label; })) {
      return false;
    }
  }
  return true;
}

namespace {

// Whether row r takes part in objective o's ranking: feasible, with a value, among the rows its
// `where` selects.
bool ranked_row(const ResultTable& table, std::size_t r, std::size_t column, const Objective& o) {
  return table.status[r] == PointStatus::ok && !std::isnan(table.metric(r, column)) && selects(table, r, o.where);
}

}  // namespace

bool same_objective_value(double a, double b) {
  return std::fabs(a - b) <= kTieRelativeTolerance * std::max(std::fabs(a), std::fabs(b));
}

std::vector<std::string> expression_names(const Solver& solver) {
  std::vector<std::string> names;
  for (const MetricSpec& m : solver.metrics()) names.emplace_back(m.name);
  for (const ParamSpec& p : solver.params()) {
    if (p.kind == ParamKind::number) names.emplace_back(p.name);
  }
  if (has_param_kind(solver, ParamKind::hardware)) names.insert(names.end(), kHardwareNames.begin(), kHardwareNames.end());
  // hardware_price_usd -> prefill_hardware_price_usd: the same fields of the second chip.
  if (const std::string_view second = second_hardware_name(solver); !second.empty()) {
    constexpr std::string_view kFirst = "hardware";
    for (const std::string_view n : kHardwareNames) names.push_back(std::string(second) + std::string(n.substr(kFirst.size())));
  }
  if (has_param_kind(solver, ParamKind::model)) names.insert(names.end(), kModelNames.begin(), kModelNames.end());
  return names;
}

std::vector<bool> solver_metrics_read_by_formulas(const ResolvedStudy& study) {
  const auto metrics = study.solver->metrics();
  std::vector<bool> read(metrics.size(), false);
  const auto mark = [&](const std::string& expr) {
    for (const std::string& name : scan_expression(expr).names) {
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        if (metrics[m].name == name) read[m] = true;
      }
    }
  };
  const StudyAnalyses& a = analyses_of(study);
  for (const DerivedMetric& d : a.derived) mark(d.expr);
  for (const RowRule& f : a.filters) mark(f.expr);
  for (const RowRule& c : a.constraints) mark(c.expr);
  for (const Assertion& x : a.assertions) mark(x.expr);
  return read;
}

PointFormulas::PointFormulas(const ResolvedStudy& study) {
  if (study.solver == nullptr) throw std::invalid_argument("derived metrics: the study has no solver");
  const Solver& solver = *study.solver;
  const StudyAnalyses& a = analyses_of(study);
  solver_metrics_ = solver.metrics().size();
  for (std::size_t p = 0; p < solver.params().size(); ++p) {
    const ParamSpec& ps = solver.params()[p];
    if (ps.kind == ParamKind::number) {
      number_params_.push_back(p);
      takes_word_.push_back(!ps.word.empty());
    }
    if (ps.kind == ParamKind::precision && precision_param_ < 0) precision_param_ = static_cast<int>(p);
  }
  has_hardware_ = has_param_kind(solver, ParamKind::hardware);
  has_model_ = has_param_kind(solver, ParamKind::model);
  param_slot_ = solver_metrics_;
  hardware_slot_ = param_slot_ + number_params_.size();
  has_second_hardware_ = !second_hardware_name(solver).empty();
  second_hardware_slot_ = hardware_slot_ + (has_hardware_ ? kHardwareNames.size() : 0);
  model_slot_ = second_hardware_slot_ + (has_second_hardware_ ? kHardwareNames.size() : 0);
  derived_slot_ = model_slot_ + (has_model_ ? kModelNames.size() : 0);
  slots_.assign(derived_slot_ + a.derived.size(), 0.0);

  std::vector<std::pair<std::string, double*>> vars;
  const std::vector<std::string> names = expression_names(solver);
  for (std::size_t i = 0; i < names.size(); ++i) vars.emplace_back(names[i], &slots_[i]);
  for (std::size_t d = 0; d < a.derived.size(); ++d) {
    derived_.emplace_back(a.derived[d].expr, vars);
    derived_scale_.push_back(a.derived[d].unit_scale);
    vars.emplace_back(a.derived[d].name, &slots_[derived_slot_ + d]);
  }
  for (const RowRule& g : a.grid_constraints) grid_constraints_.emplace_back(g.expr, vars);
  for (const RowRule& f : a.filters) filters_.emplace_back(f.expr, vars);
  for (const RowRule& c : a.constraints) constraints_.emplace_back(c.expr, vars);
  for (const Assertion& x : a.assertions) assertions_.emplace_back(x.expr, vars);
}

void PointFormulas::load(const PointInputs& in, std::span<const double> metrics, bool ok) {
  if (metrics.size() != solver_metrics_) throw std::invalid_argument("derived metrics: one value per solver metric");
  for (std::size_t m = 0; m < solver_metrics_; ++m) slots_[m] = ok ? metrics[m] : kNaN;
  load_input_slots(in);
  for (std::size_t d = 0; d < derived_.size(); ++d) {
    slots_[derived_slot_ + d] = ok ? derived_[d].evaluate() * derived_scale_[d] : kNaN;
  }
}

std::optional<std::size_t> PointFormulas::broken_grid_constraint(const PointInputs& in) {
  if (grid_constraints_.empty()) return std::nullopt;
  std::fill(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(solver_metrics_), kNaN);
  load_input_slots(in);
  for (std::size_t c = 0; c < grid_constraints_.size(); ++c) {
    if (!truthy(grid_constraints_[c].evaluate())) return c;
  }
  return std::nullopt;
}

void PointFormulas::load_input_slots(const PointInputs& in) {
  // A parameter given as its word (gpu_hour_price: catalog) has no number: an expression reads NaN.
  for (std::size_t i = 0; i < number_params_.size(); ++i) {
    const double x = in.values[number_params_[i]];
    slots_[param_slot_ + i] = takes_word_[i] && x == kParamWord ? kNaN : x;
  }
  if (has_hardware_) fill_hardware_values(in.hardware, precision_param_, in, &slots_[hardware_slot_]);
  // A second chip that is not set does the work on the first (serving: prefill_hardware none).
  if (has_second_hardware_) {
    fill_hardware_values(in.second_hardware != nullptr ? in.second_hardware : in.hardware, precision_param_, in,
                         &slots_[second_hardware_slot_]);
  }
  if (has_model_) {
    double* m = &slots_[model_slot_];
    m[0] = in.model != nullptr ? in.model->eager.parameter_count : kNaN;
    m[1] = in.model != nullptr ? in.model->eager.total_flops_per_sample() : kNaN;
  }
}

std::optional<std::size_t> PointFormulas::broken_constraint() const {
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    if (!truthy(constraints_[c].evaluate())) return c;
  }
  return std::nullopt;
}

std::optional<std::size_t> PointFormulas::failed_filter() const {
  for (std::size_t f = 0; f < filters_.size(); ++f) {
    if (!truthy(filters_[f].evaluate())) return f;
  }
  return std::nullopt;
}

bool PointFormulas::assertion_holds(std::size_t a) const { return truthy(assertions_.at(a).evaluate()); }

MetricValue study_metric_value(const ResolvedStudy& study, std::string_view metric) {
  const std::optional<StudyMetric> m = find_study_metric(study, metric);
  if (!m) throw std::invalid_argument("unknown metric '" + std::string(metric) + "'");
  const StudyAnalyses& a = analyses_of(study);
  if (!m->derived && a.constraints.empty()) return {};
  auto formulas = std::make_shared<PointFormulas>(study);
  const std::size_t index = m->derived ? study.solver->metrics().size() + m->index : m->index;
  return [formulas, index](const PointInputs& in, std::span<const double> metrics) {
    formulas->load(in, metrics, true);
    if (formulas->broken_constraint()) return kNaN;
    return formulas->metric(index);
  };
}

std::string constraint_reason(const RowRule& rule) { return "constraint '" + rule.name + "': " + rule.expr; }

FormulaOutcome apply_formulas(const ResolvedStudy& study, ResultTable& table) {
  const StudyAnalyses& a = analyses_of(study);
  FormulaOutcome out;
  out.constraint_violations.assign(a.constraints.size(), 0);
  out.filtered_out.assign(a.filters.size(), 0);
  const std::size_t rows = table.rows();
  if (a.derived.empty() && a.constraints.empty() && a.filters.empty()) return out;
  const std::vector<std::size_t> cols = solver_columns(study, table);
  for (const DerivedMetric& d : a.derived) {
    if (table.metric_column(d.name) >= 0) {
      throw std::invalid_argument("derived metric '" + d.name + "' is already a column of the results");
    }
  }
  const std::size_t first_derived = table.metric_names.size();
  const std::size_t D = a.derived.size();
  std::vector<std::string> derived_names;
  for (const DerivedMetric& d : a.derived) derived_names.push_back(d.name);
  table.append_metric_columns(derived_names);
  for (const RowRule& c : a.constraints) table.reasons.push_back(constraint_reason(c));

  PointFormulas formulas(study);
  const Grid grid(study);
  PointInputs in;
  std::vector<double> solver_metrics(cols.size());
  for (std::size_t r = 0; r < rows; ++r) {
    grid.inputs(table.point_index[r], in);
    load_solver_metrics(table, r, cols, solver_metrics);
    const bool ok = table.status[r] == PointStatus::ok;
    formulas.load(in, solver_metrics, ok);
    const auto derived_begin =
        table.metrics.begin() + static_cast<std::ptrdiff_t>(r * table.metric_names.size() + first_derived);
    for (std::size_t d = 0; d < D; ++d) derived_begin[static_cast<std::ptrdiff_t>(d)] = formulas.derived(d);
    if (ok) {
      if (const auto c = formulas.broken_constraint()) {
        table.status[r] = PointStatus::infeasible;
        table.set_detail(r, constraint_reason(a.constraints[*c]));
        ++out.constraint_violations[*c];
        // Like every infeasible row, it has no derived metric.
        std::fill(derived_begin, derived_begin + static_cast<std::ptrdiff_t>(D), std::numeric_limits<double>::quiet_NaN());
      }
    }
    if (const auto f = formulas.failed_filter()) {
      ++out.filtered_out[*f];
      if (out.every_row_kept) {  // the first row dropped: the rows before it were kept
        out.every_row_kept = false;
        out.kept.resize(r);
        std::iota(out.kept.begin(), out.kept.end(), std::size_t{0});
      }
    } else if (!out.every_row_kept) {
      out.kept.push_back(r);
    }
  }
  return out;
}

ResultTable select_rows(const ResultTable& table, std::span<const std::size_t> rows) {
  ResultTable t;
  t.axis_names = table.axis_names;
  t.metric_names = table.metric_names;
  t.reasons = table.reasons;
  // The same texts under the same codes: rows are copied code for code.
  t.axis_texts = table.axis_texts;
  t.detail_texts = table.detail_texts;
  const std::size_t A = table.axis_names.size();
  const std::size_t M = table.metric_names.size();
  for (const std::size_t r : rows) {
    if (r >= table.rows()) throw std::invalid_argument("select_rows: row out of range");
    t.point_index.push_back(table.point_index[r]);
    for (std::size_t a = 0; a < A; ++a) t.axis_code_column(a).push_back(table.axis_code(r, a));
    t.status.push_back(table.status[r]);
    t.detail_codes.push_back(table.detail_codes[r]);
    t.metrics.insert(t.metrics.end(), table.metrics.begin() + static_cast<std::ptrdiff_t>(r * M),
                     table.metrics.begin() + static_cast<std::ptrdiff_t>((r + 1) * M));
  }
  return t;
}

std::vector<AssertionOutcome> evaluate_assertions(const ResolvedStudy& study, const ResultTable& table) {
  const StudyAnalyses& a = analyses_of(study);
  std::vector<AssertionOutcome> out;
  if (a.assertions.empty()) return out;
  const std::vector<std::size_t> cols = solver_columns(study, table);
  PointFormulas formulas(study);
  const Grid grid(study);
  PointInputs in;
  std::vector<double> solver_metrics(cols.size());
  for (std::size_t i = 0; i < a.assertions.size(); ++i) {
    AssertionOutcome o;
    o.assertion = i;
    out.push_back(o);
  }
  for (std::size_t r = 0; r < table.rows(); ++r) {
    if (table.status[r] != PointStatus::ok) continue;
    bool loaded = false;
    for (std::size_t i = 0; i < a.assertions.size(); ++i) {
      const Assertion& x = a.assertions[i];
      if (!selects(table, r, x.where)) continue;
      if (!loaded) {
        grid.inputs(table.point_index[r], in);
        load_solver_metrics(table, r, cols, solver_metrics);
        formulas.load(in, solver_metrics, true);
        loaded = true;
      }
      AssertionOutcome& o = out[i];
      ++o.rows_checked;
      const bool holds = formulas.assertion_holds(i);
      if (holds) ++o.rows_holding;
      const bool example = x.require == Quantifier::all ? !holds : holds;
      if (example && !o.example_row) o.example_row = r;
    }
  }
  for (AssertionOutcome& o : out) {
    const Assertion& x = a.assertions[o.assertion];
    o.held = x.require == Quantifier::all ? (o.rows_checked > 0 && o.rows_holding == o.rows_checked)
                                          : o.rows_holding > 0;
  }
  return out;
}

namespace {

// Objective o's best feasible row and the rows that tie with it (see best_rows), found in one pass
// and without a list of every ranked row.
TopKList best_with_ties(const Objective& o, const ResultTable& table, std::string_view what) {
  TopKList list{o, {}, {}};
  const int col = table.metric_column(o.metric);
  if (col < 0) throw std::invalid_argument(std::string(what) + ": the results have no metric '" + o.metric + "'");
  const auto c = static_cast<std::size_t>(col);
  const bool minimize = o.direction == Direction::minimize;
  std::size_t best = table.rows();
  for (std::size_t r = 0; r < table.rows(); ++r) {
    if (!ranked_row(table, r, c, o)) continue;
    const double v = table.metric(r, c);
    if (best == table.rows() || (minimize ? v < table.metric(best, c) : v > table.metric(best, c))) best = r;
  }
  if (best != table.rows()) {
    list.rows.push_back(best);
    const double value = table.metric(best, c);
    for (std::size_t r = 0; r < table.rows(); ++r) {
      if (r != best && ranked_row(table, r, c, o) && same_objective_value(table.metric(r, c), value)) list.tied.push_back(r);
    }
    // In the order a sort by value gives them (ties of equal value in row order), as a stable sort of
    // every ranked row would.
    std::stable_sort(list.tied.begin(), list.tied.end(), [&](std::size_t x, std::size_t y) {
      return minimize ? table.metric(x, c) < table.metric(y, c) : table.metric(x, c) > table.metric(y, c);
    });
  }
  return list;
}

}  // namespace

std::vector<TopKList> top_k_rows(const ResolvedStudy& study, const ResultTable& table, std::size_t k) {
  std::vector<TopKList> out;
  if (k == 0) return out;
  for (const Objective& o : study.objectives) {
    TopKList list = best_with_ties(o, table, "top-k");
    const auto c = static_cast<std::size_t>(table.metric_column(o.metric));
    const bool minimize = o.direction == Direction::minimize;
    // The k first of a stable sort by value: the k least by (value, row), kept in a heap of k whose
    // top is the worst of them.
    const auto before = [&](std::size_t x, std::size_t y) {
      const double vx = table.metric(x, c), vy = table.metric(y, c);
      if (vx < vy || vx > vy) return minimize ? vx < vy : vx > vy;
      return x < y;
    };
    std::vector<std::size_t> heap;
    heap.reserve(k);
    for (std::size_t r = 0; r < table.rows(); ++r) {
      if (!ranked_row(table, r, c, o)) continue;
      if (heap.size() < k) {
        heap.push_back(r);
        std::push_heap(heap.begin(), heap.end(), before);
      } else if (before(r, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), before);
        heap.back() = r;
        std::push_heap(heap.begin(), heap.end(), before);
      }
    }
    std::sort_heap(heap.begin(), heap.end(), before);
    list.rows = std::move(heap);
    out.push_back(std::move(list));
  }
  return out;
}

std::vector<TopKList> best_rows(const ResolvedStudy& study, const ResultTable& table) {
  std::vector<TopKList> out;
  for (const Objective& o : study.objectives) out.push_back(best_with_ties(o, table, "best row"));
  return out;
}

}  // namespace dsx
