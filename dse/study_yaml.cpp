#include "dse/study.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "dse/analysis/blocks.hpp"
#include "dse/calibration/profile.hpp"
#include "dse/catalog_accuracy.hpp"
#include "dse/study_analyses.hpp"
#include "dse/study_loader.hpp"

namespace dsx {

using namespace study_loading;

namespace {


// ---- resolved YAML ----------------------------------------------------------------------------

std::string flow_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + yaml_scalar(items[i]);
  return out + "]";
}

// Selectors whose parameters may repeat (an objective's), one key each: {preemption: [recompute, swap]}.
std::string flow_selectors_any(const std::vector<Selector>& where) {
  std::vector<std::pair<std::string, std::vector<std::string>>> keys;
  for (const Selector& s : where) {
    auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == s.param; });
    if (it == keys.end()) it = keys.insert(keys.end(), {s.param, {}});
    it->second.push_back(yaml_scalar(s.label));
  }
  std::string out = "{";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& [param, labels] = keys[i];
    out += (i > 0 ? ", " : "") + param + ": ";
    if (labels.size() == 1) {
      out += labels.front();
    } else {
      out += "[";
      for (std::size_t j = 0; j < labels.size(); ++j) out += (j > 0 ? ", " : "") + labels[j];
      out += "]";
    }
  }
  return out + "}";
}

std::string flow_selectors(const std::vector<Selector>& where) {
  std::string out = "{";
  for (std::size_t i = 0; i < where.size(); ++i) {
    out += (i > 0 ? ", " : "") + where[i].param + ": " + yaml_scalar(where[i].label);
  }
  return out + "}";
}

void write_hardware(std::string& out, const HardwareSpec& h) {
  out += "    - id: " + yaml_scalar(h.id) + "\n";
  out += "      name: " + yaml_scalar(h.name) + "\n";
  if (!h.short_name.empty()) out += "      short_name: " + yaml_scalar(h.short_name) + "\n";
  out += "      source: " + yaml_scalar(h.source) + "\n";
  out += "      peak_flops: {";
  bool first = true;
  for (Precision p : kAllPrecisions) {
    if (!h.supports(p)) continue;
    std::string label = exact_quantity_label(h.peak(p), Dimension::flop_rate);
    // Integer precisions are rated in operations per second (624 TOP/s): same dimension, same value.
    const std::size_t flop = label.find("FLOP/s");
    if ((p == Precision::int8 || p == Precision::int4) && flop != std::string::npos) label.replace(flop, 4, "OP");
    out += (first ? "" : ", ") + std::string(precision_name(p)) + ": " + yaml_scalar(label);
    first = false;
  }
  out += "}\n";
  const auto field = [&](std::string_view key, double v, Dimension d) {
    out += "      " + std::string(key) + ": " + yaml_scalar(exact_quantity_label(v, d)) + "\n";
  };
  field("memory", h.memory_bytes, Dimension::bytes);
  field("memory_bandwidth", h.memory_bandwidth_bytes_per_s, Dimension::bandwidth);
  if (h.has_weight_memory()) {
    out += "      weight_memory: {capacity: " + yaml_scalar(exact_quantity_label(h.weight_memory_bytes, Dimension::bytes)) +
           ", read_bandwidth: " +
           yaml_scalar(exact_quantity_label(h.weight_memory_bandwidth_bytes_per_s, Dimension::bandwidth)) + "}\n";
  }
  field("host_link", h.host_link_bandwidth_bytes_per_s, Dimension::bandwidth);
  field("accelerator_link", h.accelerator_link_bandwidth_bytes_per_s, Dimension::bandwidth);
  if (h.tdp_known()) field("tdp", h.tdp_w, Dimension::power);  // left out = unknown
  field("idle_power_fraction", h.idle_power_fraction, Dimension::dimensionless);
  field("price", h.price_usd, Dimension::money);
  // Optional kernel limits: written when known, so a round trip keeps them and 0 stays "unknown".
  const auto optional = [&](std::string_view key, double v, Dimension d) {
    if (v > 0) field(key, v, d);
  };
  optional("shared_memory_per_block", h.shared_memory_per_block_bytes, Dimension::bytes);
  optional("shared_memory_per_sm", h.shared_memory_per_sm_bytes, Dimension::bytes);
  optional("registers_per_thread", h.registers_per_thread, Dimension::count);
  optional("registers_per_sm", h.registers_per_sm, Dimension::count);
  optional("max_threads_per_block", h.max_threads_per_block, Dimension::count);
  optional("compute_units", h.compute_units, Dimension::count);
  optional("cores", h.cores, Dimension::count);
  optional("sparse_speedup", h.sparse_speedup, Dimension::dimensionless);
  optional("fp8_gemm_relative_efficiency", h.fp8_gemm_relative_efficiency, Dimension::dimensionless);
  out += "      release_year: " + (h.release_year != 0 ? std::to_string(h.release_year) : std::string("unknown")) + "\n";
  if (h.rental_known()) {
    out += "      rental: {per_hour: " + yaml_scalar(exact_quantity_label(h.rental_usd_per_hour, Dimension::money)) +
           ", date: " + yaml_scalar(h.rental_date) + ", source: " + yaml_scalar(h.rental_source) + "}\n";
  }
  // A value outside the loader's plausible ranges was marked deliberate; the resolved file says so too.
  const std::vector<std::string> unchecked = implausible_hardware_fields(h);
  if (!unchecked.empty()) {
    out += "      unchecked: [";
    for (std::size_t i = 0; i < unchecked.size(); ++i) out += (i > 0 ? ", " : "") + unchecked[i];
    out += "]\n";
  }
}

void write_model(std::string& out, const CatalogModel& m) {
  out += "    - id: " + yaml_scalar(m.id) + "\n";
  out += "      name: " + yaml_scalar(m.name) + "\n";
  if (!m.short_name.empty()) out += "      short_name: " + yaml_scalar(m.short_name) + "\n";
  out += "      source: " + yaml_scalar(m.source) + "\n";
  out += "      architecture: " + yaml_scalar(m.architecture) + "\n";
  out += "      params: {";
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    out += (i > 0 ? ", " : "") + m.params[i].first + ": " + yaml_scalar(m.params[i].second);
  }
  out += "}\n";
}

}  // namespace

std::string ResolvedStudy::template_dir() const {
  if (template_folder.empty()) return "";
  return (std::filesystem::path(file).parent_path() / template_folder).string();
}

std::uint64_t ResolvedStudy::point_count() const {
  std::uint64_t total = 1;
  for (const Axis& a : axes) {
    if (__builtin_mul_overflow(total, static_cast<std::uint64_t>(a.values.size()), &total)) {
      throw std::overflow_error("study '" + name + "' has more than 2^64 design points");
    }
  }
  return total;
}

std::vector<FixedInput> fixed_inputs(const ResolvedStudy& study) {
  const auto params = study.solver->params();
  std::vector<FixedInput> out;
  for (std::size_t p = 0; p < params.size(); ++p) {
    const BundleUse* use = study.bundle_setting(p);
    if (study.is_axis[p] || (use != nullptr && use->axis >= 0)) continue;
    out.push_back({std::string(params[p].name), study.fixed_labels[p]});
  }
  return out;
}

std::string resolved_study_yaml(const ResolvedStudy& study) {
  const auto params = study.solver->params();
  std::string out;
  out += "# " + study.file + ", resolved: every default is explicit and every catalog entry the study uses is\n";
  out += "# written out in full, so this file loads on its own.\n";
  out += "study: " + yaml_scalar(study.name) + "\n";
  out += "title: " + yaml_scalar(study.title) + "\n";
  out += "question: " + yaml_scalar(study.question) + "\n";
  out += "solver: " + yaml_scalar(study.solver->name()) + "\n";
  out += "axes:\n";
  for (const Axis& a : study.axes) {
    std::vector<std::string> labels;
    for (const AxisValue& v : a.values) labels.push_back(v.label);
    out += "  " + a.param + ": " + flow_list(labels) + "\n";
  }
  // A parameter a bundle sets is written as the bundle (region: quebec), not as its own value.
  // A parameter the calibration profile sets is left to it (the profile is written below).
  const auto written_fixed = [&](std::size_t p) {
    return !study.is_axis[p] && study.bundle_setting(p) == nullptr && !study.calibrated[p];
  };
  bool any_fixed = false;
  for (std::size_t p = 0; p < params.size(); ++p) any_fixed = any_fixed || written_fixed(p);
  for (const BundleUse& u : study.bundles) any_fixed = any_fixed || u.axis < 0;
  if (any_fixed) {
    out += "fixed:\n";
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (written_fixed(p)) out += "  " + std::string(params[p].name) + ": " + yaml_scalar(study.fixed_labels[p]) + "\n";
    }
    for (const BundleUse& u : study.bundles) {
      if (u.axis < 0) out += "  " + u.kind + ": " + yaml_scalar(u.id) + "\n";
    }
  }
  if (study.calibration) {
    out += "calibration:\n" + profile_yaml(*study.calibration, "  ");
  } else {
    out += "calibration: none\n";
  }
  if (!study.objectives.empty()) {
    out += "objectives:\n";
    for (const Objective& o : study.objectives) {
      out += "  - {metric: " + o.metric + ", direction: " + (o.direction == Direction::minimize ? "min" : "max");
      if (!o.name.empty()) out += ", name: " + o.name;
      if (!o.where.empty()) out += ", where: " + flow_selectors_any(o.where);
      out += "}\n";
    }
  }
  if (!study.values.empty()) {
    out += "values:\n";
    for (const CitedValue& v : study.values) {
      static constexpr std::array<const char*, 5> kWhat = {"metric", "count", "min", "max", "sum"};
      out += "  - {name: " + v.name + ", " + kWhat[static_cast<std::size_t>(v.aggregate)] + ": " +
             (v.aggregate == CitedAggregate::count ? v.count_of : v.metric);
      if (v.aggregate == CitedAggregate::none || !v.where.empty()) out += ", where: " + flow_selectors(v.where);
      if (!v.over.empty()) out += ", over: " + flow_selectors(v.over);
      if (!v.minus.empty()) out += ", minus: " + flow_selectors(v.minus);
      static constexpr std::array<const char*, 4> kAs = {"metric", "percent", "percent_less", "percent_of"};
      if (v.as != CitedAs::metric) out += std::string(", as: ") + kAs[static_cast<std::size_t>(v.as)];
      if (!v.when.empty()) {
        out += ", when: [";
        for (std::size_t k = 0; k < v.when.size(); ++k) out += (k > 0 ? ", " : "") + yaml_scalar(v.when[k].text);
        out += "]";
      }
      out += "}\n";
    }
  }
  if (!study.comparisons.empty()) {
    out += "compare:\n";
    const auto metrics = study.solver->metrics();
    for (const Comparison& c : study.comparisons) {
      Dimension d = Dimension::dimensionless;
      for (const MetricSpec& m : metrics) {
        if (m.name == c.metric) d = m.dimension;
      }
      for (const DerivedMetric& m : analyses_of(study).derived) {
        if (m.name == c.metric) d = m.dimension;
      }
      out += "  - name: " + yaml_scalar(c.name) + "\n";
      out += "    where: " + flow_selectors(c.where) + "\n";
      out += "    metric: " + c.metric + "\n";
      out += "    expected: " + yaml_scalar(exact_quantity_label(c.expected, d)) + "\n";
      out += "    tolerance: " + number_text(c.tolerance) + "\n";
      out += "    source: " + yaml_scalar(c.source) + "\n";
      out += "    explanation: " + (c.explanation.empty() ? std::string("\"\"") : yaml_scalar(c.explanation)) + "\n";
    }
  }
  if (!study.template_folder.empty()) out += "template: " + yaml_scalar(study.template_folder) + "\n";
  if (!study.sections.empty()) {
    out += "sections:\n";
    for (const Section& sec : study.sections) {
      out += "  - title: " + yaml_scalar(sec.title) + "\n";
      out += "    text: " + yaml_scalar(sec.text) + "\n";
    }
  }
  if (!study.figures.empty()) {
    out += "figures:\n";
    static constexpr std::array<std::string_view, 5> kKinds = {"scatter", "bars", "line", "roofline", "heatmap"};
    const auto flag = [&](std::string_view key, bool v) { out += "    " + std::string(key) + (v ? ": true\n" : ": false\n"); };
    for (const FigureDecl& f : study.figures) {
      out += "  - name: " + yaml_scalar(f.name) + "\n";
      out += "    kind: " + std::string(kKinds[static_cast<std::size_t>(f.kind)]) + "\n";
      out += "    title: " + yaml_scalar(f.title) + "\n";
      out += "    caption: " + yaml_scalar(f.caption) + "\n";
      out += "    x: " + f.x + "\n";
      out += "    y: " + (f.kind == FigureKind::heatmap && f.y.size() == 1 ? f.y.front() : flow_list(f.y)) + "\n";
      if (f.kind == FigureKind::heatmap) out += "    z: " + f.z + "\n";
      if (!f.group.empty()) out += "    group: " + f.group + "\n";
      if (!f.where.empty()) out += "    where: " + flow_selectors(f.where) + "\n";
      flag("log_x", f.log_x);
      flag("log_y", f.log_y);
      flag("pareto", f.pareto);
      if (f.kind == FigureKind::line) flag("crossover", f.crossover);
      if (f.kind == FigureKind::heatmap) flag("log_z", f.log_z);
      if (f.kind == FigureKind::roofline) {
        out += "    roofs: " + flow_list(f.roofs) + "\n";
        out += "    precisions: " + flow_list(f.precisions) + "\n";
        out += "    eta: " + number_text(f.eta) + "\n";
      }
      out += std::string("    width: ") + (f.width == FigureWidth::single_column ? "single" : "double") + "\n";
      if (!f.x_label.empty()) out += "    x_label: " + yaml_scalar(f.x_label) + "\n";
      if (!f.y_label.empty()) out += "    y_label: " + yaml_scalar(f.y_label) + "\n";
      if (!f.legend_title.empty()) out += "    legend_title: " + yaml_scalar(f.legend_title) + "\n";
      if (!f.series_labels.empty()) {
        out += "    series_labels: {";
        for (std::size_t i = 0; i < f.series_labels.size(); ++i) {
          out += (i > 0 ? ", " : "") + yaml_scalar(f.series_labels[i].first) + ": " + yaml_scalar(f.series_labels[i].second);
        }
        out += "}\n";
      }
      for (const auto& [key, range] : {std::pair{"x_range", &f.x_range}, {"y_range", &f.y_range}}) {
        if (range->set) {
          out += std::string("    ") + key + ": [" + yaml_scalar(range->min.label) + ", " + yaml_scalar(range->max.label) + "]\n";
        }
      }
      if (f.keep_script) flag("keep_script", true);
    }
  }
  write_study_analyses_yaml(study, out);
  if (!study.catalog.hardware.empty() || !study.catalog.models.empty() || !study.catalog.bundles.empty()) {
    out += "catalog:\n";
    if (!study.catalog.hardware.empty()) {
      out += "  hardware:\n";
      for (const HardwareSpec& h : study.catalog.hardware) write_hardware(out, h);
    }
    if (!study.catalog.models.empty()) {
      out += "  models:\n";
      for (const CatalogModel& m : study.catalog.models) write_model(out, m);
    }
    write_bundle_entries(out, study.catalog.bundles);
    write_accuracy_entries(out, study.catalog.accuracy);
  }
  return out;
}

}  // namespace dsx

