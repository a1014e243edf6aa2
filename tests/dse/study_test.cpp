#include "dse/study.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "dse/grid.hpp"
#include "dse/quantity.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/inference.hpp"
#include "tests/test_files.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = DSX_SOURCE_DIR;
// A small frozen catalog (two GPUs, two kernel profiles) shared by the corpus and these tests.
const std::string kFixtureCatalog = kSourceDir + "/tests/malformed/catalog";

// A study over the fixture catalog, with the given lines appended to a valid head.
std::string study_with(const std::string& axes_and_more) {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: inference\n" + axes_and_more;
}

Loaded load(const std::string& text, const std::string& catalog = kFixtureCatalog) { return load_study_for_test(text, catalog); }

std::vector<std::string> labels(const Axis& axis) {
  std::vector<std::string> out;
  for (const AxisValue& v : axis.values) out.push_back(v.label);
  return out;
}

const Axis& axis(const ResolvedStudy& s, std::string_view param) {
  for (const Axis& a : s.axes) {
    if (a.param == param) return a;
  }
  throw std::runtime_error("no axis " + std::string(param));
}

// ---- the malformed corpus -----------------------------------------------------------------------

std::vector<std::string> corpus_cases() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/tests/malformed")) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(MalformedStudyTest, EachCaseReportsExactlyItsExpectedDiagnostics) {
  const std::vector<std::string> names = corpus_cases();
  ASSERT_GE(names.size(), 10U);
  for (const std::string& name : names) {
    const fs::path dir = kSourceDir + "/tests/malformed";
    ASSERT_TRUE(fs::exists(dir / (name + ".expected"))) << name << ".expected is missing";
    Diagnostics d;
    const auto study = load_study_text("tests/malformed/" + name + ".yaml", read_text(dir / (name + ".yaml")),
                                       kFixtureCatalog, d);
    EXPECT_FALSE(study.has_value()) << name;
    EXPECT_EQ(d.format(), read_text(dir / (name + ".expected"))) << name;
  }
}

TEST(MalformedStudyTest, EveryExpectedFileHasItsStudy) {
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/tests/malformed")) {
    if (entry.path().extension() != ".expected") continue;
    fs::path study = entry.path();
    study.replace_extension(".yaml");
    EXPECT_TRUE(fs::exists(study)) << entry.path();
  }
}

TEST(MalformedStudyTest, LoadStudyReadsTheFileAndNamesItAsGiven) {
  const std::string file = kSourceDir + "/tests/malformed/missing_unit.yaml";
  Diagnostics d;
  EXPECT_FALSE(load_study(file, kFixtureCatalog, d));
  ASSERT_EQ(d.errors().size(), 1U);
  EXPECT_EQ(d.errors()[0].where.file, file);
  EXPECT_EQ(d.errors()[0].where.line, 8);
  EXPECT_EQ(d.errors()[0].where.column, 27);

  Diagnostics missing;
  EXPECT_FALSE(load_study(kSourceDir + "/tests/malformed/no_such_study.yaml", kFixtureCatalog, missing));
  ASSERT_EQ(missing.errors().size(), 1U);
  EXPECT_EQ(missing.errors()[0].where.line, 0);
  EXPECT_NE(missing.errors()[0].message.find("cannot read the study"), std::string::npos);
}

// ---- shipped catalog and studies ----------------------------------------------------------------

TEST(StudyTest, ShippedCatalogLoadsWithoutDiagnostics) {
  Diagnostics d;
  const Catalog c = load_catalog(kSourceDir + "/studies/catalog", d);
  EXPECT_FALSE(d.has_errors()) << d.format();
  EXPECT_FALSE(c.hardware.empty());
  EXPECT_FALSE(c.models.empty());
  for (const HardwareSpec& h : c.hardware) EXPECT_FALSE(h.source.empty()) << h.id;
  for (const CatalogModel& m : c.models) EXPECT_FALSE(m.source.empty()) << m.id;
}

TEST(StudyTest, ShippedStudiesLoadAndRoundTrip) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/studies")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    Diagnostics d;
    const auto study = load_study(entry.path().string(), kSourceDir + "/studies/catalog", d);
    ASSERT_TRUE(study.has_value()) << d.format();
    Diagnostics again;
    const auto reloaded = load_study_text("resolved.yaml", resolved_study_yaml(*study), "", again);
    ASSERT_TRUE(reloaded.has_value()) << again.format();
    EXPECT_EQ(reloaded->point_count(), study->point_count());
  }
  EXPECT_GE(count, 1);
}

// What a reader sees of a shipped study (its title, question, sections, figure titles and captions,
// comparison names and explanations) writes microseconds as the report's numbers do, "10 µs", never
// "10 us"; the values it computes with ("launch_overhead: 10 us") keep the unit the parser reads.
TEST(StudyTest, ShippedStudiesWriteMicrosecondsAsTheReportDoes) {
  const std::regex us_after_number("[0-9] us\\b");
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/studies")) {
    if (entry.path().extension() != ".yaml") continue;
    Diagnostics d;
    const auto study = load_study(entry.path().string(), kSourceDir + "/studies/catalog", d);
    ASSERT_TRUE(study.has_value()) << d.format();
    std::vector<std::pair<std::string, const std::string*>> texts = {{"title", &study->title},
                                                                     {"question", &study->question}};
    for (const Section& s : study->sections) {
      texts.push_back({"section title", &s.title});
      texts.push_back({"section " + s.title, &s.text});
    }
    for (const FigureDecl& f : study->figures) {
      texts.push_back({"figure " + f.name + " title", &f.title});
      texts.push_back({"figure " + f.name + " caption", &f.caption});
    }
    for (const Comparison& c : study->comparisons) {
      texts.push_back({"compare name", &c.name});
      texts.push_back({"compare " + c.name + " explanation", &c.explanation});
    }
    for (const auto& [where, text] : texts) {
      ++checked;
      EXPECT_FALSE(std::regex_search(*text, us_after_number)) << entry.path().filename() << ", " << where << ": " << *text;
    }
  }
  EXPECT_GT(checked, 100);
}

// ---- resolution ---------------------------------------------------------------------------------

const char* const kFullStudy = R"yaml(study: round_trip
title: "Round trip"
question: "Does the resolved study load back to the same study?"
solver: inference
catalog:
  hardware:
    - {id: h100_fast, base: h100_sxm, memory_bandwidth: 4 TB/s, source: "what-if: faster HBM"}
  models:
    - {id: kws_wide, base: lab07_kws, params: {kernels: 2000}, source: "what-if: twice the kernels"}
axes:
  hardware: [a100_80gb_sxm, h100_fast]
  model: [lab07_kws, kws_wide]
  batch: {from: 1, to: 256, scale: log, count: 9}
  launch_overhead: {from: 5 us, to: 20 us, step: 5 us}
  eta: {from: 0.3, to: 0.6, step: 0.1}
fixed:
  precision: fp16
objectives:
  - {metric: latency_s, direction: min}
  - {metric: energy_j, direction: max}
compare:
  - name: "KWS eager utilization"
    where: {model: lab07_kws, launch_overhead: 0.01 ms, hardware: a100_80gb_sxm, batch: 1, eta: 0.5}
    metric: gpu_utilization
    expected: 0.333
    source: "seeds/000 lab_07 Act 1"
  - name: "latency with a unit"
    where: {model: kws_wide, launch_overhead: 5 us, hardware: h100_fast, batch: 256, eta: 0.6, execution: eager}
    metric: latency_s
    expected: 7.5 ms
    tolerance: 0.1
    source: "a test"
    explanation: "what differs"
figures:
  - name: pareto
    kind: scatter
    title: "Latency vs energy"
    caption: "Each point is a design; the line is the front."
    x: latency_s
    y: energy_j
    group: hardware
    where: {model: kws_wide}
    log_x: true
    pareto: true
  - name: stack
    kind: bars
    title: "Where the time goes"
    caption: "Compute, memory and dispatch shares."
    x: model
    y: [gpu_utilization, memory_share, dispatch_share]
)yaml";

TEST(StudyTest, ResolvesAxesFixedValuesAndDefaults) {
  const Loaded l = load(kFullStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  EXPECT_EQ(s.name, "round_trip");
  EXPECT_EQ(s.title, "Round trip");
  EXPECT_EQ(s.solver->name(), "inference");
  ASSERT_EQ(s.axes.size(), 5U);
  EXPECT_EQ(s.axes[0].param, "hardware");
  EXPECT_EQ(s.axes[0].param_index, InferenceSolver::hardware);
  EXPECT_EQ(labels(s.axes[0]), (std::vector<std::string>{"a100_80gb_sxm", "h100_fast"}));

  // batch: 9 values from 1 to 256 on a log scale = the powers of two 2^0 .. 2^8.
  const Axis& batch = axis(s, "batch");
  ASSERT_EQ(batch.values.size(), 9U);
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(batch.values[i].value, std::ldexp(1.0, static_cast<int>(i)));
    EXPECT_EQ(batch.values[i].label, std::to_string(1 << i));
  }
  EXPECT_EQ(labels(axis(s, "launch_overhead")), (std::vector<std::string>{"5 us", "10 us", "15 us", "20 us"}));
  EXPECT_DOUBLE_EQ(axis(s, "launch_overhead").values[2].value, 15e-6);
  EXPECT_EQ(labels(axis(s, "eta")), (std::vector<std::string>{"0.3", "0.4", "0.5", "0.6"}));
  EXPECT_EQ(axis(s, "eta").values[1].value, 0.4);
  EXPECT_EQ(s.point_count(), 2U * 2U * 9U * 4U * 4U);

  // Fixed and defaulted parameters carry labels; defaults come from the solver's ParamSpec.
  EXPECT_FALSE(s.is_axis[InferenceSolver::precision]);
  EXPECT_EQ(s.fixed_labels[InferenceSolver::precision], "fp16");
  EXPECT_EQ(s.fixed_values[InferenceSolver::precision], static_cast<double>(index_of(Precision::fp16)));
  EXPECT_EQ(s.fixed_labels[InferenceSolver::execution], "eager");
  EXPECT_EQ(s.fixed_values[InferenceSolver::execution], 0.0);

  ASSERT_EQ(s.objectives.size(), 2U);
  EXPECT_EQ(s.objectives[1].metric, "energy_j");
  EXPECT_EQ(s.objectives[1].metric_index, InferenceSolver::energy_j);
  EXPECT_EQ(s.objectives[1].direction, Direction::maximize);
}

TEST(StudyTest, KeepsOnlyTheCatalogEntriesItUses) {
  const Loaded l = load(kFullStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  ASSERT_EQ(s.catalog.hardware_ids(), (std::vector<std::string>{"a100_80gb_sxm", "h100_fast"}));
  ASSERT_EQ(s.catalog.model_ids(), (std::vector<std::string>{"lab07_kws", "kws_wide"}));
  // Axis values index the resolved catalog.
  EXPECT_EQ(s.axes[0].values[1].value, 1.0);
  EXPECT_EQ(s.axes[1].values[1].value, 1.0);
  // base: copies every field; the listed ones override it.
  const HardwareSpec& fast = s.catalog.hardware[1];
  EXPECT_DOUBLE_EQ(fast.memory_bandwidth_bytes_per_s, 4e12);
  EXPECT_DOUBLE_EQ(fast.memory_bytes, 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(fast.peak(Precision::fp16), 989e12);
  EXPECT_EQ(fast.name, "NVIDIA H100 SXM 80GB");
  EXPECT_EQ(fast.source, "what-if: faster HBM");
  const CatalogModel& wide = s.catalog.models[1];
  EXPECT_DOUBLE_EQ(wide.prepared.eager.total_kernels(), 2000);
  EXPECT_EQ(wide.params[0].second, "2000");
  EXPECT_EQ(wide.params[1].second, "5 us");  // the rest from the base entry
}

TEST(StudyTest, AnOptionalSecondModelTakesNoneOrACatalogId) {
  // serving's draft_model: none (no draft, value -1) or a catalog model beside the target.
  const std::string text =
      "study: t\ntitle: T\nquestion: Q?\nsolver: serving\n"
      "axes:\n  draft_model: [none, llama32_1b]\n"
      "fixed:\n  hardware: h100_sxm\n  model: llama3_70b\n  precision: fp16\n  tp: 4\n  batch: 8\n"
      "  draft_tokens: 4\n  acceptance_rate: 0.8\n";
  const std::string catalog = kSourceDir + "/studies/catalog";
  const Loaded l = load(text, catalog);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  EXPECT_EQ(labels(axis(s, "draft_model")), (std::vector<std::string>{"none", "llama32_1b"}));
  EXPECT_EQ(s.catalog.model_ids(), (std::vector<std::string>{"llama3_70b", "llama32_1b"}));
  EXPECT_EQ(axis(s, "draft_model").values[0].value, -1.0);
  const Grid grid(s);
  PointInputs none, draft;
  grid.inputs(0, none);
  grid.inputs(1, draft);
  EXPECT_EQ(none.second_model, nullptr);
  ASSERT_NE(draft.second_model, nullptr);
  EXPECT_EQ(draft.second_model, &s.catalog.models[1].prepared);
  EXPECT_EQ(draft.model, &s.catalog.models[0].prepared);
  // The resolved study loads back to the same axis and catalog.
  Diagnostics again;
  const auto reloaded = load_study_text("resolved.yaml", resolved_study_yaml(s), "", again);
  ASSERT_TRUE(reloaded) << again.format();
  EXPECT_EQ(labels(axis(*reloaded, "draft_model")), labels(axis(s, "draft_model")));
  EXPECT_EQ(reloaded->catalog.model_ids(), s.catalog.model_ids());
  // Left out, it is none; a misspelt id names the choices.
  const std::string without =
      "study: t\ntitle: T\nquestion: Q?\nsolver: serving\naxes:\n  batch: [8, 16]\n"
      "fixed:\n  hardware: h100_sxm\n  model: llama3_70b\n  precision: fp16\n  tp: 4\n";
  const Loaded plain = load(without, catalog);
  ASSERT_TRUE(plain.study) << plain.diagnostics;
  EXPECT_EQ(plain.study->catalog.model_ids(), (std::vector<std::string>{"llama3_70b"}));
  std::string misspelt = text;
  misspelt.replace(misspelt.find("llama32_1b"), 10, "llama32_1c");
  const Loaded bad = load(misspelt, catalog);
  EXPECT_FALSE(bad.study);
  EXPECT_NE(bad.diagnostics.find("did you mean 'llama32_1b'"), std::string::npos) << bad.diagnostics;
}

TEST(StudyTest, SelectorsAreNormalisedToAxisLabels) {
  const Loaded l = load(kFullStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const Comparison& c = l.study->comparisons[0];
  ASSERT_EQ(c.where.size(), 5U);
  EXPECT_EQ(c.where[1].param, "launch_overhead");
  EXPECT_EQ(c.where[1].label, "10 us");  // written 0.01 ms: matched by value
  EXPECT_EQ(c.where[3].label, "1");
  EXPECT_EQ(c.expected, 0.333);
  EXPECT_EQ(c.tolerance, 0.05);  // the default
  EXPECT_EQ(c.explanation, "");
  const Comparison& d = l.study->comparisons[1];
  EXPECT_DOUBLE_EQ(d.expected, 7.5e-3);
  EXPECT_EQ(d.tolerance, 0.1);
  EXPECT_EQ(d.where[5].label, "eager");  // a defaulted parameter selects its default
  const FigureDecl& f = l.study->figures[0];
  EXPECT_EQ(f.kind, FigureKind::scatter);
  EXPECT_EQ(f.y, (std::vector<std::string>{"energy_j"}));
  EXPECT_EQ(f.group, "hardware");
  EXPECT_TRUE(f.log_x);
  EXPECT_FALSE(f.log_y);
  EXPECT_TRUE(f.pareto);
  EXPECT_EQ(l.study->figures[1].y.size(), 3U);
}

void expect_same_study(const ResolvedStudy& a, const ResolvedStudy& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.title, b.title);
  EXPECT_EQ(a.question, b.question);
  EXPECT_EQ(a.solver, b.solver);
  ASSERT_EQ(a.axes.size(), b.axes.size());
  for (std::size_t i = 0; i < a.axes.size(); ++i) {
    EXPECT_EQ(a.axes[i].param, b.axes[i].param);
    EXPECT_EQ(a.axes[i].param_index, b.axes[i].param_index);
    ASSERT_EQ(a.axes[i].values.size(), b.axes[i].values.size());
    for (std::size_t j = 0; j < a.axes[i].values.size(); ++j) {
      EXPECT_EQ(a.axes[i].values[j].label, b.axes[i].values[j].label);
      EXPECT_EQ(a.axes[i].values[j].value, b.axes[i].values[j].value);
    }
  }
  EXPECT_EQ(a.fixed_values, b.fixed_values);
  EXPECT_EQ(a.fixed_labels, b.fixed_labels);
  EXPECT_EQ(a.is_axis, b.is_axis);
  ASSERT_EQ(a.objectives.size(), b.objectives.size());
  for (std::size_t i = 0; i < a.objectives.size(); ++i) {
    EXPECT_EQ(a.objectives[i].metric, b.objectives[i].metric);
    EXPECT_EQ(a.objectives[i].metric_index, b.objectives[i].metric_index);
    EXPECT_EQ(a.objectives[i].direction, b.objectives[i].direction);
  }
  const auto same_where = [](const std::vector<Selector>& x, const std::vector<Selector>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].param != y[i].param || x[i].label != y[i].label) return false;
    }
    return true;
  };
  ASSERT_EQ(a.comparisons.size(), b.comparisons.size());
  for (std::size_t i = 0; i < a.comparisons.size(); ++i) {
    const Comparison& x = a.comparisons[i];
    const Comparison& y = b.comparisons[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_TRUE(same_where(x.where, y.where));
    EXPECT_EQ(x.metric, y.metric);
    EXPECT_EQ(x.expected, y.expected);
    EXPECT_EQ(x.tolerance, y.tolerance);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.explanation, y.explanation);
  }
  ASSERT_EQ(a.figures.size(), b.figures.size());
  for (std::size_t i = 0; i < a.figures.size(); ++i) {
    const FigureDecl& x = a.figures[i];
    const FigureDecl& y = b.figures[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.title, y.title);
    EXPECT_EQ(x.caption, y.caption);
    EXPECT_EQ(x.x, y.x);
    EXPECT_EQ(x.y, y.y);
    EXPECT_EQ(x.group, y.group);
    EXPECT_TRUE(same_where(x.where, y.where));
    EXPECT_EQ(x.log_x, y.log_x);
    EXPECT_EQ(x.log_y, y.log_y);
    EXPECT_EQ(x.pareto, y.pareto);
    EXPECT_EQ(x.crossover, y.crossover);
    EXPECT_EQ(x.z, y.z);
    EXPECT_EQ(x.log_z, y.log_z);
    EXPECT_EQ(x.roofs, y.roofs);
    EXPECT_EQ(x.precisions, y.precisions);
    EXPECT_EQ(x.eta, y.eta);
    EXPECT_EQ(x.width, y.width);
    EXPECT_EQ(x.x_label, y.x_label);
    EXPECT_EQ(x.y_label, y.y_label);
    EXPECT_EQ(x.legend_title, y.legend_title);
    EXPECT_EQ(x.series_labels, y.series_labels);
    for (const auto& [p, q] : {std::pair{&x.x_range, &y.x_range}, {&x.y_range, &y.y_range}}) {
      EXPECT_EQ(p->set, q->set);
      EXPECT_EQ(p->min.value, q->min.value);
      EXPECT_EQ(p->max.value, q->max.value);
      EXPECT_EQ(p->min.label, q->min.label);
      EXPECT_EQ(p->max.label, q->max.label);
    }
  }
  ASSERT_EQ(a.catalog.hardware.size(), b.catalog.hardware.size());
  for (std::size_t i = 0; i < a.catalog.hardware.size(); ++i) {
    const HardwareSpec& x = a.catalog.hardware[i];
    const HardwareSpec& y = b.catalog.hardware[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.peak_flops_per_s, y.peak_flops_per_s);
    EXPECT_EQ(x.memory_bytes, y.memory_bytes);
    EXPECT_EQ(x.memory_bandwidth_bytes_per_s, y.memory_bandwidth_bytes_per_s);
    EXPECT_EQ(x.host_link_bandwidth_bytes_per_s, y.host_link_bandwidth_bytes_per_s);
    EXPECT_EQ(x.accelerator_link_bandwidth_bytes_per_s, y.accelerator_link_bandwidth_bytes_per_s);
    EXPECT_EQ(x.tdp_w, y.tdp_w);
    EXPECT_EQ(x.idle_power_fraction, y.idle_power_fraction);
    EXPECT_EQ(x.price_usd, y.price_usd);
  }
  ASSERT_EQ(a.catalog.models.size(), b.catalog.models.size());
  for (std::size_t i = 0; i < a.catalog.models.size(); ++i) {
    const CatalogModel& x = a.catalog.models[i];
    const CatalogModel& y = b.catalog.models[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.architecture, y.architecture);
    EXPECT_EQ(x.params, y.params);
    EXPECT_EQ(x.prepared.eager.total_flops_per_sample(), y.prepared.eager.total_flops_per_sample());
    EXPECT_EQ(x.prepared.compiled.total_kernels(), y.prepared.compiled.total_kernels());
  }
  EXPECT_EQ(catalog_hash(a.catalog), catalog_hash(b.catalog));
  EXPECT_EQ(a.point_count(), b.point_count());
}

TEST(StudyTest, ResolvedYamlLoadsBackToTheSameStudy) {
  const Loaded l = load(kFullStudy);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const std::string resolved = resolved_study_yaml(*l.study);
  // Without any catalog folder: the resolved file carries every entry it uses.
  const Loaded alone = load(resolved, "");
  ASSERT_TRUE(alone.study) << alone.diagnostics << resolved;
  expect_same_study(*l.study, *alone.study);
  // With the catalog folder too: the written entries override the files' identically.
  const Loaded with_catalog = load(resolved);
  ASSERT_TRUE(with_catalog.study) << with_catalog.diagnostics;
  expect_same_study(*l.study, *with_catalog.study);
  // Resolving is idempotent.
  EXPECT_EQ(resolved_study_yaml(*alone.study), resolved);
  // Every default is explicit.
  EXPECT_NE(resolved.find("  execution: eager\n"), std::string::npos);
  EXPECT_NE(resolved.find("    tolerance: 0.05\n"), std::string::npos);
  EXPECT_NE(resolved.find("    log_y: false\n"), std::string::npos);
  EXPECT_NE(resolved.find("int8: 624 TOP/s"), std::string::npos);
}

// Figure text and ranges: axis titles, the key's title, series names and axis ranges in the axis's
// own unit (either end auto), kept through the resolved study.
TEST(StudyFigureText, LabelsLegendSeriesAndRangesResolveAndRoundTrip) {
  const std::string text = study_with(
      "axes:\n  hardware: [a100_80gb_sxm, h100_sxm]\n  model: [lab07_kws]\n  batch: [1, 8, 64]\n"
      "fixed: {precision: fp16, eta: 0.5, launch_overhead: 10 us}\n"
      "figures:\n"
      "  - name: latency\n    kind: line\n    title: T\n    caption: C\n    x: batch\n    y: latency_s\n"
      "    group: hardware\n    x_label: Requests per batch\n    y_label: Time per batch (ms)\n"
      "    legend_title: Accelerator\n    series_labels: {h100_sxm: H100 SXM, a100_80gb_sxm: \"A100 80GB: SXM\"}\n"
      "    x_range: [auto, 100]\n    y_range: [0 ms, 0.05 s]\n"
      "  - {name: bars, kind: bars, title: T, caption: C, x: hardware, y: latency_s, y_label: Latency,\n"
      "     y_range: [0 us, auto]}\n");
  const Loaded l = load(text);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const FigureDecl& f = l.study->figures[0];
  EXPECT_EQ(f.x_label, "Requests per batch");
  EXPECT_EQ(f.y_label, "Time per batch (ms)");
  EXPECT_EQ(f.legend_title, "Accelerator");
  using Labels = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(f.series_labels, (Labels{{"h100_sxm", "H100 SXM"}, {"a100_80gb_sxm", "A100 80GB: SXM"}}));
  EXPECT_TRUE(f.x_range.set);
  EXPECT_FALSE(f.x_range.min.value);
  EXPECT_EQ(f.x_range.min.label, "auto");
  EXPECT_EQ(f.x_range.max.value, 100.0);
  EXPECT_EQ(f.y_range.min.value, 0.0);
  EXPECT_EQ(f.y_range.max.value, 0.05);  // in SI: the axis scales it
  EXPECT_EQ(f.y_range.max.label, "0.05 s");
  const FigureDecl& bars = l.study->figures[1];
  EXPECT_FALSE(bars.x_range.set);
  EXPECT_EQ(bars.y_range.min.value, 0.0);
  EXPECT_FALSE(bars.y_range.max.value);
  EXPECT_TRUE(bars.series_labels.empty());

  const std::string resolved = resolved_study_yaml(*l.study);
  EXPECT_NE(resolved.find("    series_labels: {h100_sxm: H100 SXM, a100_80gb_sxm: \"A100 80GB: SXM\"}\n"),
            std::string::npos)
      << resolved;
  EXPECT_NE(resolved.find("    x_range: [auto, 100]\n    y_range: [0 ms, 0.05 s]\n"), std::string::npos) << resolved;
  const Loaded alone = load(resolved, "");
  ASSERT_TRUE(alone.study) << alone.diagnostics << resolved;
  expect_same_study(*l.study, *alone.study);
  EXPECT_EQ(resolved_study_yaml(*alone.study), resolved);
}

TEST(StudyFigureText, ALabelsUnitMustBeAUnitOfItsAxis) {
  const std::string head = study_with(
      "axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n  batch: [1, 8]\n"
      "fixed: {precision: fp16, eta: 0.5, launch_overhead: 10 us}\nfigures:\n");
  // Units of the axis's dimension are taken; ratios and counts take any text in parentheses.
  for (const char* ok : {"Latency (h)", "Latency (us)", "Latency (days)", "Latency"}) {
    const Loaded l = load(head + "  - {name: f, kind: line, title: T, caption: C, x: batch, y: latency_s, "
                                 "x_label: Batch (sequences), y_label: \"" + std::string(ok) + "\"}\n");
    EXPECT_TRUE(l.study) << ok << "\n" << l.diagnostics;
  }
  const Loaded l = load(head + "  - {name: f, kind: line, title: T, caption: C, x: batch, y: latency_s, "
                               "y_label: Latency (GB)}\n");
  EXPECT_FALSE(l.study);
  EXPECT_EQ(l.diagnostics.substr(0, l.diagnostics.find('\n')),
            "t.yaml:11:91: error: figures[0].y_label: '(GB)' ends the label, so it sets the unit of the axis, but "
            "'GB' is not a unit of time ('latency_s'); valid time units: s, ms, us, \xC2\xB5s, \xCE\xBCs, ns, ps, "
            "min, h, day, days, week, weeks, year, years; or leave the parentheses out and dsx appends the unit it "
            "scales the axis to");
}

// The figure kinds and keys beyond scatter/bars/line: heatmap (z, log_z), crossover marks, widths,
// and a roofline whose roofs and precisions default to those of the rows it keeps.
TEST(StudyTest, NewFigureKeysResolveAndRoundTrip) {
  std::string flop_rate, intensity;
  for (const MetricSpec& m : find_solver("inference")->metrics()) {
    if (m.dimension == Dimension::flop_rate && flop_rate.empty()) flop_rate = m.name;
    if (m.name.ends_with("intensity_flop_per_byte") && intensity.empty()) intensity = m.name;
  }
  std::string text = study_with(
      "axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws, lab07_gpt2_layer]\n  batch: [1, 8]\n"
      "  execution: [eager, compiled]\n"
      "fixed: {precision: fp16, eta: 0.5, launch_overhead: 10 us}\n"
      "figures:\n"
      "  - {name: map, kind: heatmap, title: T, caption: C, x: batch, y: execution, z: latency_s, log_z: true,\n"
      "     where: {model: lab07_kws}, width: single}\n"
      "  - {name: cross, kind: line, title: T, caption: C, x: batch, y: [compute_s, dispatch_s], crossover: true,\n"
      "     where: {model: lab07_kws, execution: eager}}\n");
  const bool roofline = !flop_rate.empty() && !intensity.empty();
  if (roofline) {
    text += "  - {name: roof, kind: roofline, title: T, caption: C, x: " + intensity + ", y: " + flop_rate +
            ", group: model}\n"
            "  - {name: roof2, kind: roofline, title: T, caption: C, x: " + intensity + ", y: " + flop_rate +
            ", roofs: [h100_sxm], precisions: [fp16, fp8], eta: 0.8}\n";
  }
  const Loaded l = load(text);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  ASSERT_EQ(s.figures.size(), roofline ? 4U : 2U);
  EXPECT_EQ(s.figures[0].kind, FigureKind::heatmap);
  EXPECT_EQ(s.figures[0].y, std::vector<std::string>{"execution"});
  EXPECT_EQ(s.figures[0].z, "latency_s");
  EXPECT_TRUE(s.figures[0].log_z);
  EXPECT_EQ(s.figures[0].width, FigureWidth::single_column);
  EXPECT_TRUE(s.figures[1].crossover);
  EXPECT_EQ(s.figures[1].width, FigureWidth::double_column);
  if (roofline) {
    // Defaults made explicit: the hardware and precisions of the kept rows, eta 1, log-log.
    EXPECT_EQ(s.figures[2].roofs, std::vector<std::string>{"a100_80gb_sxm"});
    EXPECT_EQ(s.figures[2].precisions, std::vector<std::string>{"fp16"});
    EXPECT_EQ(s.figures[2].eta, 1.0);
    EXPECT_TRUE(s.figures[2].log_x && s.figures[2].log_y);
    EXPECT_EQ(s.figures[3].roofs, std::vector<std::string>{"h100_sxm"});
    EXPECT_EQ(s.figures[3].precisions, (std::vector<std::string>{"fp16", "fp8"}));
    EXPECT_EQ(s.figures[3].eta, 0.8);
    // h100_sxm is on no axis, but its roof is drawn, so the resolved study keeps its entry.
    EXPECT_NE(s.catalog.find_hardware("h100_sxm"), nullptr);
  }
  const std::string resolved = resolved_study_yaml(s);
  const Loaded alone = load(resolved, "");
  ASSERT_TRUE(alone.study) << alone.diagnostics << resolved;
  expect_same_study(s, *alone.study);
  EXPECT_EQ(resolved_study_yaml(*alone.study), resolved);
  EXPECT_NE(resolved.find("    width: single\n"), std::string::npos) << resolved;
  EXPECT_NE(resolved.find("    crossover: true\n"), std::string::npos);
  EXPECT_NE(resolved.find("    y: execution\n    z: latency_s\n"), std::string::npos);
}

TEST(StudyTest, ContentHashIsStableAndFollowsTheText) {
  const Loaded a = load(kFullStudy);
  const Loaded b = load(kFullStudy);
  const Loaded c = load(std::string(kFullStudy) + "# a comment\n");
  ASSERT_TRUE(a.study && b.study && c.study);
  EXPECT_EQ(a.study->content_hash.size(), 16U);
  EXPECT_EQ(a.study->content_hash, b.study->content_hash);
  EXPECT_NE(a.study->content_hash, c.study->content_hash);
}

// ---- ranges -------------------------------------------------------------------------------------

std::string range_study(const std::string& axis_line) {
  return study_with("axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n" + axis_line +
                    "fixed:\n  precision: fp16\n  eta: 0.5\n  launch_overhead: 10 us\n");
}

TEST(StudyRangeTest, LogRangesOfIntegersAreRoundedAndDeduplicated) {
  const Loaded l = load(range_study("  batch: {from: 1, to: 10, scale: log, count: 10}\n"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  std::vector<double> expected;
  for (int i = 0; i < 10; ++i) {
    const double v = std::round(std::pow(10.0, i / 9.0));
    if (expected.empty() || expected.back() != v) expected.push_back(v);
  }
  const Axis& a = axis(*l.study, "batch");
  ASSERT_EQ(a.values.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(a.values[i].value, expected[i]);
    EXPECT_EQ(a.values[i].label, number_text(expected[i]));
  }
}

TEST(StudyRangeTest, FactorAndLinearCount) {
  const Loaded f = load(range_study("  batch: {from: 1, to: 1000, scale: log, factor: 10}\n"));
  ASSERT_TRUE(f.study) << f.diagnostics;
  EXPECT_EQ(labels(axis(*f.study, "batch")), (std::vector<std::string>{"1", "10", "100", "1000"}));
  const Loaded c = load(range_study("  batch: {from: 1, to: 10, count: 4}\n"));
  ASSERT_TRUE(c.study) << c.diagnostics;
  EXPECT_EQ(labels(axis(*c.study, "batch")), (std::vector<std::string>{"1", "4", "7", "10"}));
}

TEST(StudyRangeTest, LabelsUseTheUnitOfFrom) {
  const std::string text = study_with(
      "axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n"
      "  launch_overhead: {from: 0.005 ms, to: 20 us, count: 4}\nfixed:\n  precision: fp16\n  eta: 0.5\n");
  const Loaded l = load(text);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const Axis& a = axis(*l.study, "launch_overhead");
  EXPECT_EQ(labels(a), (std::vector<std::string>{"0.005 ms", "0.01 ms", "0.015 ms", "0.02 ms"}));
  EXPECT_DOUBLE_EQ(a.values[3].value, 20e-6);
}

TEST(StudyRangeTest, RejectsBadRanges) {
  const auto message = [](const std::string& axis_line) {
    const Loaded l = load(range_study(axis_line));
    EXPECT_FALSE(l.study);
    return l.diagnostics.substr(0, l.diagnostics.find('\n'));
  };
  EXPECT_EQ(message("  batch: {from: 1, to: 10, count: 5}\n"),
            "t.yaml:8:10: error: axes.batch: batch takes integers, but this range gives 3.25; choose count or step so "
            "every value is an integer");
  EXPECT_EQ(message("  batch: {from: 8, to: 2, count: 2}\n"),
            "t.yaml:8:24: error: axes.batch: to (2) must be greater than from (8)");
  EXPECT_EQ(message("  batch: {from: 1, to: 8}\n"),
            "t.yaml:8:10: error: axes.batch: give one of count, step (linear scale) or factor (log scale)");
  EXPECT_EQ(message("  batch: {from: 1, to: 8, count: 1}\n"),
            "t.yaml:8:34: error: axes.batch.count = 1 is out of range: it must be in [2, 10000000]");
  EXPECT_EQ(message("  batch: {from: 0, to: 8, count: 3}\n"),
            "t.yaml:8:10: error: axes.batch: batch = 0 is out of range: it must be in [1, 1000000000]");
  EXPECT_EQ(message("  batch: {from: 1, to: 8, count: 3, factor: 2}\n"),
            "t.yaml:8:45: error: axes.batch: give only one of count, step and factor");
  EXPECT_EQ(message("  batch: {from: 1, to: 8, scale: logarithmic, count: 3}\n"),
            "t.yaml:8:34: error: unknown scale 'logarithmic'; did you mean 'log'? valid scales: linear, log");
  EXPECT_EQ(message("  batch: {from: 1, to: 1e12, step: 1}\n"),
            "t.yaml:8:10: error: axes.batch: the range gives 1000000000000 values; an axis holds at most 10000000");
  EXPECT_EQ(message("  precision: {from: 1, to: 2, count: 2}\n"),
            "t.yaml:8:14: error: axes.precision: a range {from, to, ...} needs a numeric parameter; list the values "
            "instead, e.g. [fp16, int8]");
}

// ---- YAML strictness ----------------------------------------------------------------------------

const char* const kAxes = "axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n  launch_overhead: [10 us]\n";

TEST(StrictYamlTest, QuotingDoesNotChangeAValue) {
  const Loaded plain = load(study_with(std::string(kAxes) + "fixed: {precision: fp16, eta: 0.5, batch: 8}\n"));
  const Loaded quoted = load(study_with(std::string(kAxes) + "fixed: {precision: 'fp16', eta: \"0.5\", batch: \"8\"}\n"));
  ASSERT_TRUE(plain.study) << plain.diagnostics;
  ASSERT_TRUE(quoted.study) << quoted.diagnostics;
  EXPECT_EQ(plain.study->fixed_values, quoted.study->fixed_values);
  EXPECT_EQ(plain.study->fixed_labels, quoted.study->fixed_labels);
}

TEST(StrictYamlTest, OnlyTrueAndFalseAreBooleans) {
  const std::string head = std::string(kAxes) + "fixed: {precision: fp16, eta: 0.5}\nfigures:\n  - {name: f, kind: line, "
                                                "title: T, caption: C, x: launch_overhead, y: latency_s, log_y: ";
  EXPECT_TRUE(load(study_with(head + "true}\n")).study);
  for (const std::string word : {"yes", "True", "on", "1"}) {
    const Loaded l = load(study_with(head + word + "}\n"));
    EXPECT_FALSE(l.study) << word;
    EXPECT_NE(l.diagnostics.find("figures[0].log_y: expected true or false, got '" + word + "'"), std::string::npos)
        << l.diagnostics;
  }
}

TEST(StrictYamlTest, RejectsTagsSecondDocumentsAndNonStringKeys) {
  const std::string fixed = "fixed: {precision: fp16, eta: 0.5}\n";
  const Loaded tag = load(study_with(std::string(kAxes) + "fixed: {precision: fp16, eta: !!float 0.5}\n"));
  EXPECT_NE(tag.diagnostics.find("error: YAML tags ('tag:yaml.org,2002:float') are not accepted"), std::string::npos)
      << tag.diagnostics;
  const Loaded two = load(study_with(std::string(kAxes) + fixed + "---\nstudy: other\n"));
  EXPECT_NE(two.diagnostics.find("t.yaml:10:1: error: a second YAML document"), std::string::npos) << two.diagnostics;
  const Loaded key = load(study_with(std::string(kAxes) + fixed + "? [a, b]\n: 1\n"));
  EXPECT_NE(key.diagnostics.find("t.yaml:10:3: error: a mapping key must be a plain name, got a list"),
            std::string::npos)
      << key.diagnostics;
}

TEST(StrictYamlTest, DuplicateKeysNameBothPlaces) {
  const Loaded l = load(study_with(std::string(kAxes) + "fixed: {precision: fp16, eta: 0.5}\ntitle: Again\n"));
  EXPECT_FALSE(l.study);
  EXPECT_EQ(l.diagnostics,
            "t.yaml:10:1: error: duplicate key 'title': already given at line 2, column 1\n"
            "  title: Again\n"
            "  ^~~~~\n");
}

TEST(StrictYamlTest, ProblemsAfterADuplicateKeyAreStillReported) {
  const Loaded l = load(study_with("axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n  model: [x]\n"
                                   "  launch_overhead: [10]\nfixed: {precision: fp16, eta: 0.5}\n"));
  EXPECT_FALSE(l.study);
  EXPECT_EQ(l.diagnostics,
            "t.yaml:8:3: error: duplicate key 'model': already given at line 7, column 3\n"
            "    model: [x]\n"
            "    ^~~~~\n"
            "t.yaml:9:21: error: missing unit: launch_overhead is a time, e.g. '10 us'\n"
            "    launch_overhead: [10]\n"
            "                      ^~\n");
}

TEST(StrictYamlTest, EmptyValuesPointAfterTheirKey) {
  const Loaded l = load("study: t\ntitle:\nquestion: Q?\nsolver: inference\n" + std::string(kAxes) +
                        "fixed: {precision: fp16, eta: 0.5}\n");
  EXPECT_EQ(l.diagnostics,
            "t.yaml:2:7: error: title: expected a non-empty string, got nothing\n"
            "  title:\n"
            "        ^\n");
}

TEST(StrictYamlTest, MissingKeysAndEmptyFiles) {
  const Loaded empty = load("");
  EXPECT_EQ(empty.diagnostics.substr(0, empty.diagnostics.find('\n')),
            "t.yaml:1:1: error: the study is empty: it needs at least the keys study, title, question, solver and axes");
  const Loaded partial = load("# only a comment\nstudy: t\n");
  EXPECT_EQ(partial.diagnostics,
            "t.yaml:2:1: error: missing required key 'title'\n  study: t\n  ^\n"
            "t.yaml:2:1: error: missing required key 'question'\n  study: t\n  ^\n"
            "t.yaml:2:1: error: missing required key 'solver'\n  study: t\n  ^\n"
            "t.yaml:2:1: error: missing required key 'axes'\n  study: t\n  ^\n");
}

TEST(StrictYamlTest, UnterminatedStringAtTheEndOfTheFile) {
  const Loaded l = load(study_with(std::string(kAxes) + "fixed: {precision: fp16, eta: 0.5}\ncaption: \"abc\n"));
  EXPECT_EQ(l.diagnostics,
            "t.yaml:10:10: error: unterminated string: no closing \" before the end of the file\n"
            "  caption: \"abc\n"
            "           ^\n");
}

TEST(StrictYamlTest, ColumnsCountCharactersNotBytes) {
  const Loaded l = load(study_with("axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n"
                                   "  launch_overhead: [5 \xC2\xB5s, 10 \xC2\xB5x]\nfixed: {precision: fp16, eta: 0.5}\n"));
  EXPECT_NE(l.diagnostics.find("t.yaml:8:30: error: unknown time unit '\xC2\xB5x'"), std::string::npos)
      << l.diagnostics;
}

// ---- study rules --------------------------------------------------------------------------------

TEST(StudyRulesTest, FigureAxesMustBeMetricsOrSweptParameters) {
  const std::string base = std::string(kAxes) + "fixed: {precision: fp16, eta: 0.5}\nfigures:\n";
  const Loaded l = load(study_with(
      base +
      "  - {name: a, kind: bars, title: T, caption: C, x: latency_s, y: latency_s}\n"
      "  - {name: b, kind: line, title: T, caption: C, x: precision, y: latency_s, group: launch_overhead}\n"
      "  - {name: a, kind: pie, title: T, caption: C, x: model, y: latency_s}\n"
      "  - {name: Big, kind: scatter, title: T, caption: C, x: model, y: [], log_x: true, pareto: true}\n"));
  EXPECT_FALSE(l.study);
  std::vector<std::string> lines;
  std::istringstream in(l.diagnostics);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("t.yaml")) lines.push_back(line);
  }
  const std::vector<std::string> expected = {
      "t.yaml:11:52: error: figures[0].x: a bars figure puts a swept parameter on x (its categories), got the metric "
      "'latency_s'; swept parameters: hardware, model, launch_overhead",
      "t.yaml:12:52: error: figures[1].x: 'precision' is not swept in this study (swept parameters: hardware, model, "
      "launch_overhead)",
      "t.yaml:13:12: error: figures[2]: another figure is already named 'a' (line 11, column 12)",
      "t.yaml:13:21: error: unknown figure kind 'pie'; valid figure kinds: scatter, bars, line, roofline, heatmap",
      "t.yaml:14:12: error: figures[3].name: 'Big' is not a valid figure name: use a-z, 0-9, '_' and '-' (it names "
      "the files figures/<name>.*)",
      "t.yaml:14:67: error: figures[3].y: give at least one metric",
      "t.yaml:14:78: error: figures[3].log_x: x of this figure is categorical; only a numeric x can be logarithmic",
      "t.yaml:14:92: error: figures[3].pareto: the front is taken over the study's objectives; add objectives:",
  };
  EXPECT_EQ(lines, expected) << l.diagnostics;
}

TEST(StudyRulesTest, UnknownSolverSuggestsTheClosest) {
  const Loaded l = load("study: t\ntitle: T\nquestion: Q?\nsolver: inferense\n" + std::string(kAxes));
  EXPECT_EQ(l.diagnostics.substr(0, l.diagnostics.find('\n')),
            "t.yaml:4:9: error: unknown solver 'inferense'; did you mean 'inference'? valid solvers: " +
                [] {
                  std::string names;
                  for (const Solver* s : all_solvers()) names += (names.empty() ? "" : ", ") + std::string(s->name());
                  return names;
                }());
}

TEST(StudyRulesTest, AnAxisIsAListAndAFixedValueIsNot) {
  const Loaded l = load(study_with("axes:\n  hardware: a100_80gb_sxm\n  model: [lab07_kws]\n"
                                   "fixed: {precision: [fp16, int8], eta: 0.5, launch_overhead: 5 us}\n"));
  EXPECT_NE(l.diagnostics.find("t.yaml:6:13: error: axes.hardware: an axis is a list of values, e.g. [a100_80gb_sxm, "
                               "h100_sxm]; to hold one value constant, put it under fixed:"),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("t.yaml:8:20: error: fixed.precision: a fixed value is a single value, got a list; to "
                               "sweep several values, put them under axes:"),
            std::string::npos)
      << l.diagnostics;
}

TEST(StudyRulesTest, NumericDuplicatesAreFoundByValue) {
  const Loaded l = load(study_with("axes:\n  hardware: [a100_80gb_sxm]\n  model: [lab07_kws]\n"
                                   "  launch_overhead: [10 us, 0.01 ms]\nfixed: {precision: fp16, eta: 0.5}\n"));
  EXPECT_EQ(l.diagnostics.substr(0, l.diagnostics.find('\n')),
            "t.yaml:8:28: error: axes.launch_overhead: duplicate value '0.01 ms' (already given at line 8, column 21)");
}

}  // namespace
}  // namespace dsx
