// Layout axes: every valid factorization of a job's GPUs (dse/layouts.hpp, dse/study_layout.cpp).
#include "dse/layouts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "engine/solvers/training.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

const std::string kCatalog = std::string(DSX_SOURCE_DIR) + "/studies/catalog";

using P = TrainingSolver::Param;

Loaded load(const std::string& text) { return load_study_for_test(text, kCatalog); }

// A training study over `axes` (indented under axes:) with gpt2 (12 layers, 12 heads) on H100s.
std::string study(const std::string& axes, const std::string& fixed = "  model: gpt2\n") {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: training\naxes:\n" + axes + "fixed:\n  hardware: h100_sxm\n" +
         fixed;
}

std::vector<std::string> labels(const Axis& axis) {
  std::vector<std::string> out;
  for (const AxisValue& v : axis.values) out.push_back(v.label);
  return out;
}

const Axis& layout_axis(const ResolvedStudy& s) {
  for (const Axis& a : s.axes) {
    if (a.param == "layout") return a;
  }
  throw std::logic_error("no layout axis");
}

TEST(LayoutEnumerationTest, DivisorsAscend) {
  EXPECT_EQ(divisors(1), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(divisors(12), (std::vector<std::uint64_t>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(divisors(16), (std::vector<std::uint64_t>{1, 2, 4, 8, 16}));
}

TEST(LayoutEnumerationTest, EveryFactorizationOfEightGpus) {
  LayoutRequest r;
  r.gpus = {8};
  r.tp.any = true;
  r.pp.any = true;
  const LayoutEnumeration e = enumerate_layouts(r, LayoutFacts{}, 1000);
  std::vector<std::string> got;
  for (const Layout& l : e.layouts) {
    EXPECT_EQ(l.tp * l.pp * l.cp * l.dp, 8U);
    got.push_back(layout_label(l, true, false, false));
  }
  // The ordered factorizations 8 = tp x pp x dp: C(3 + 2, 2) = 10.
  EXPECT_EQ(got, (std::vector<std::string>{"tp1 pp1 dp8", "tp1 pp2 dp4", "tp1 pp4 dp2", "tp1 pp8 dp1", "tp2 pp1 dp4",
                                           "tp2 pp2 dp2", "tp2 pp4 dp1", "tp4 pp1 dp2", "tp4 pp2 dp1", "tp8 pp1 dp1"}));
  EXPECT_FALSE(e.truncated);
}

TEST(LayoutEnumerationTest, FactsDropWhatTheSolverWouldRefuse) {
  LayoutRequest r;
  r.gpus = {16};
  r.tp.values = {1, 16};
  r.pp.any = true;
  r.ep.values = {1, 2};
  LayoutFacts f;
  f.gpus_per_node = 8;  // tp 16 spans two nodes: nests
  f.heads = 12;         // tp 16 does not divide 12 heads
  f.layers = 4;         // pp 8 and 16 exceed 4 layers
  f.experts = 0;        // dense: ep 1 only
  const LayoutEnumeration e = enumerate_layouts(r, f, 1000);
  std::vector<std::string> got;
  for (const Layout& l : e.layouts) got.push_back(layout_label(l, true, false, true));
  EXPECT_EQ(got, (std::vector<std::string>{"tp1 pp1 ep1 dp16", "tp1 pp2 ep1 dp8", "tp1 pp4 ep1 dp4"}));
  EXPECT_GT(e.dropped[static_cast<std::size_t>(LayoutDrop::heads)], 0U);
  EXPECT_GT(e.dropped[static_cast<std::size_t>(LayoutDrop::layers)], 0U);
  EXPECT_GT(e.dropped[static_cast<std::size_t>(LayoutDrop::experts)], 0U);
  EXPECT_EQ(e.dropped[static_cast<std::size_t>(LayoutDrop::node_nesting)], 0U);
  // A limit stops the enumeration and says so, and so does a bound on the work.
  EXPECT_TRUE(enumerate_layouts(r, f, 2).truncated);
  EXPECT_TRUE(enumerate_layouts(r, f, 1000, 10).too_much_work);
  EXPECT_FALSE(enumerate_layouts(r, f, 1000).too_much_work);
}

TEST(LayoutEnumerationTest, AHostileRequestCostsBoundedWork) {
  // Every degree `any` over 8,648,640 GPUs (448 divisors, the most of any count up to the solver's
  // 1e7) with every layout refused by the facts: the work bound stops it, and says so.
  LayoutRequest r;
  r.gpus = {8648640};
  r.tp.any = r.pp.any = r.cp.any = r.ep.any = true;
  LayoutFacts f;
  f.heads = 1;
  f.layers = 1;
  f.seq_len = 1;  // no cp > 1 either
  const LayoutEnumeration e = enumerate_layouts(r, f, 1'000'000);
  EXPECT_TRUE(e.too_much_work || !e.layouts.empty());
  for (const Layout& l : e.layouts) EXPECT_EQ(l.tp * l.pp * l.cp, 1U);
}

TEST(LayoutEnumerationTest, LabelsReadBack) {
  std::string problem;
  const auto l = parse_layout_label("tp8 pp16 cp16 dp8", problem);
  ASSERT_TRUE(l) << problem;
  EXPECT_EQ(l->gpus, 16384U);
  EXPECT_EQ(l->cp, 16U);
  EXPECT_EQ(l->ep, 1U);
  EXPECT_EQ(layout_label(*l, true, true, false), "tp8 pp16 cp16 dp8");
  EXPECT_FALSE(parse_layout_label("pp16 tp8 dp128", problem));
  EXPECT_NE(problem.find("out of order"), std::string::npos) << problem;
  EXPECT_FALSE(parse_layout_label("tp8 pp16", problem));
  EXPECT_NE(problem.find("no dp"), std::string::npos) << problem;
  EXPECT_FALSE(parse_layout_label("tp8 xx2 dp1", problem));
  EXPECT_FALSE(parse_layout_label("tp08 dp1", problem));
  EXPECT_FALSE(parse_layout_label("tp0 dp1", problem));
}

TEST(LayoutAxisTest, LoadsTheExactLayoutsOfEightGpus) {
  const Loaded r = load(study("  layout: {gpus: 8, tp: [1, 2, 4], pp: any, cp: [1, 2], ep: 1}\n"));
  ASSERT_TRUE(r.study) << r.diagnostics;
  const Axis& a = layout_axis(*r.study);
  // Every tp x pp x cp dividing 8; gpt2's 12 layers and 12 heads and the 8-GPU node rule none out.
  EXPECT_EQ(labels(a), (std::vector<std::string>{
                           "tp1 pp1 cp1 dp8", "tp1 pp1 cp2 dp4", "tp1 pp2 cp1 dp4", "tp1 pp2 cp2 dp2", "tp1 pp4 cp1 dp2",
                           "tp1 pp4 cp2 dp1", "tp1 pp8 cp1 dp1", "tp2 pp1 cp1 dp4", "tp2 pp1 cp2 dp2", "tp2 pp2 cp1 dp2",
                           "tp2 pp2 cp2 dp1", "tp2 pp4 cp1 dp1", "tp4 pp1 cp1 dp2", "tp4 pp1 cp2 dp1", "tp4 pp2 cp1 dp1"}));
  // Each value sets gpus, tp, pp, ep and cp together (the solver's order).
  ASSERT_EQ(a.sets, (std::vector<std::size_t>{P::gpus, P::tp, P::pp, P::ep, P::cp}));
  EXPECT_TRUE(a.is_bundle());
  const Grid grid(*r.study);
  PointInputs in;
  grid.inputs(5, in);  // tp1 pp4 cp2 dp1
  EXPECT_EQ(in.values[P::gpus], 8);
  EXPECT_EQ(in.values[P::tp], 1);
  EXPECT_EQ(in.values[P::pp], 4);
  EXPECT_EQ(in.values[P::cp], 2);
  EXPECT_EQ(in.values[P::ep], 1);
  // The resolved study lists the layouts and loads back to the same axis.
  const std::string yaml = resolved_study_yaml(*r.study);
  EXPECT_NE(yaml.find("layout: [tp1 pp1 cp1 dp8, tp1 pp1 cp2 dp4,"), std::string::npos) << yaml;
  const Loaded back = load(yaml);
  ASSERT_TRUE(back.study) << back.diagnostics << yaml;
  EXPECT_EQ(labels(layout_axis(*back.study)), labels(a));
  EXPECT_EQ(layout_axis(*back.study).set_values, a.set_values);
  EXPECT_EQ(resolved_study_yaml(*back.study), yaml);
}

TEST(LayoutAxisTest, FiltersOnTheFixedModelAndNode) {
  // gpt2: 12 heads (tp 8 out), 12 layers (pp 16 and 32 out); gpus_per_node 8: tp 16 nests, so only
  // the heads drop it.
  const Loaded r = load(study("  layout: {gpus: 32, tp: [4, 8, 16], pp: any}\n"));
  ASSERT_TRUE(r.study) << r.diagnostics;
  EXPECT_EQ(labels(layout_axis(*r.study)),
            (std::vector<std::string>{"tp4 pp1 dp8", "tp4 pp2 dp4", "tp4 pp4 dp2", "tp4 pp8 dp1"}));
  // With the model on an axis a layout stays when one of its models admits it: pp 16 and 32 fit
  // llama3_8b's 32 layers though not gpt2's 12; pp 64 fits neither.
  const Loaded fixed = load(study("  layout: {gpus: 64, tp: 1, pp: any}\n"));
  ASSERT_TRUE(fixed.study) << fixed.diagnostics;
  EXPECT_EQ(labels(layout_axis(*fixed.study)),
            (std::vector<std::string>{"tp1 pp1 dp64", "tp1 pp2 dp32", "tp1 pp4 dp16", "tp1 pp8 dp8"}));
  const Loaded swept = load("study: t\ntitle: T\nquestion: Q?\nsolver: training\naxes:\n"
                            "  model: [gpt2, llama3_8b]\n  layout: {gpus: 64, tp: 1, pp: any}\n"
                            "fixed:\n  hardware: h100_sxm\n");
  ASSERT_TRUE(swept.study) << swept.diagnostics;
  EXPECT_EQ(labels(layout_axis(*swept.study)),
            (std::vector<std::string>{"tp1 pp1 dp64", "tp1 pp2 dp32", "tp1 pp4 dp16", "tp1 pp8 dp8", "tp1 pp16 dp4",
                                      "tp1 pp32 dp2"}));
}

TEST(LayoutAxisTest, SelectorsNameTheLayoutAndGridConstraintsSeeItsDegrees) {
  const Loaded r = load(study("  layout: {gpus: 8, tp: [1, 2], pp: [1, 2]}\n") +
                        "compare:\n"
                        "  - {name: c, where: {layout: tp2 pp2 dp2}, metric: dp, expected: 2, source: s}\n"
                        "grid_constraints:\n  - {name: two_way, expr: \"tp * pp >= 2\"}\n");
  ASSERT_TRUE(r.study) << r.diagnostics;
  ASSERT_EQ(r.study->comparisons.size(), 1U);
  EXPECT_EQ(r.study->comparisons[0].where[0].label, "tp2 pp2 dp2");
  const Loaded bad = load(study("  layout: {gpus: 8, tp: [1, 2], pp: [1, 2]}\n") +
                          "compare:\n  - {name: c, where: {tp: 2}, metric: dp, expected: 2, source: s}\n");
  EXPECT_FALSE(bad.study);
  EXPECT_NE(bad.diagnostics.find("tp is set by the layout axis; select a layout instead, e.g. layout: tp1 pp1 dp8"),
            std::string::npos)
      << bad.diagnostics;
}

TEST(LayoutAxisTest, ListsOfLayoutsAreReadAsWritten) {
  const Loaded r = load(study("  layout: [tp8 pp16 dp128, 'tp8 pp16 cp16 dp8']\n", "  model: llama3_405b\n"));
  ASSERT_TRUE(r.study) << r.diagnostics;
  const Axis& a = layout_axis(*r.study);
  EXPECT_EQ(labels(a), (std::vector<std::string>{"tp8 pp16 dp128", "tp8 pp16 cp16 dp8"}));
  // gpus, tp, pp, ep, cp of each value.
  EXPECT_EQ(a.set_values, (std::vector<double>{16384, 8, 16, 1, 1, 16384, 8, 16, 1, 16}));
}

TEST(LayoutAxisTest, ErrorsSayWhereAndWhatIsValid) {
  const auto error_of = [](const std::string& axes, const std::string& fixed = "  model: gpt2\n") {
    const Loaded r = load(study(axes, fixed));
    EXPECT_FALSE(r.study);
    return r.diagnostics;
  };
  std::string d = error_of("  layout: {gpus: 8, tp: [1, 2], pipeline: any}\n");
  EXPECT_NE(d.find("t.yaml:6:33: error: unknown key 'pipeline'"), std::string::npos) << d;
  EXPECT_NE(d.find("valid keys: gpus, tp, pp, cp, ep"), std::string::npos) << d;
  d = error_of("  layout: {gpus: 0, tp: [1, 2]}\n");
  EXPECT_NE(d.find("t.yaml:6:18: error: "), std::string::npos) << d;
  EXPECT_NE(d.find("gpus = 0 is out of range"), std::string::npos) << d;
  d = error_of("  layout: {gpus: 12.5, tp: 1}\n");
  EXPECT_NE(d.find("t.yaml:6:18: error: "), std::string::npos) << d;
  d = error_of("  layout: {gpus: any, tp: 1}\n");
  EXPECT_NE(d.find("t.yaml:6:18: error: axes.layout.gpus: give the job's GPU count"), std::string::npos) << d;
  d = error_of("  layout: {tp: [1, 2]}\n");
  EXPECT_NE(d.find("t.yaml:6:11: error: axes.layout: missing required key 'gpus'"), std::string::npos) << d;
  d = error_of("  layout: {gpus: 8, tp: [1, 1]}\n");
  EXPECT_NE(d.find("duplicate value '1'"), std::string::npos) << d;
  d = error_of("  layout: {gpus: 8, tp: all}\n");
  EXPECT_NE(d.find("t.yaml:6:25: error: axes.layout.tp: expected a positive integer, a list of them or 'any', got "
                   "'all' (write 'any' for every divisor)"),
            std::string::npos)
      << d;
  // No layout left: the message names the constraints, the facts and the reasons.
  d = error_of("  layout: {gpus: 8, tp: [16, 32], pp: any}\n");
  EXPECT_NE(d.find("t.yaml:6:11: error: axes.layout: no layout of 8 GPUs meets tp [16, 32], pp any, cp 1, ep 1"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("tp x pp x cp does not divide gpus"), std::string::npos) << d;
  d = error_of("  layout: {gpus: 64, tp: 1, pp: [16, 32, 64]}\n");
  EXPECT_NE(d.find("model gpt2 (12 layers, 12 heads, seq_len 1024, dense)"), std::string::npos) << d;
  EXPECT_NE(d.find("pp x virtual_stages exceeds the model's layers"), std::string::npos) << d;
  // A parameter set twice.
  d = error_of("  layout: {gpus: 8, tp: [1, 2]}\n", "  model: gpt2\n  cp: 1\n");
  EXPECT_NE(d.find("'cp' is set both under fixed: and by the layout axis (line 6, column 3): keep one"),
            std::string::npos)
      << d;
  // Not a mapping or list; a layout under fixed:.
  d = error_of("  layout: tp8\n");
  EXPECT_NE(d.find("t.yaml:6:11: error: axes.layout: a layout axis is a mapping of constraints"), std::string::npos)
      << d;
  d = error_of("  layout: [tp8 pp2 dp1, pp2 tp8 dp1]\n");
  EXPECT_NE(d.find("t.yaml:6:25: error: axes.layout[1]: 'tp8' is out of order"), std::string::npos) << d;
  d = error_of("  pp: [1, 2]\n", "  model: gpt2\n  layout: tp8\n");
  EXPECT_NE(d.find("fixed.layout: a layout is an axis"), std::string::npos) << d;
}

TEST(LayoutAxisTest, ASolverWithoutTheParametersIsRefused) {
  const Loaded r = load("study: t\ntitle: T\nquestion: Q?\nsolver: inference\naxes:\n"
                        "  layout: {gpus: 8, tp: [1, 2]}\n"
                        "fixed: {hardware: h100_sxm, model: gpt2, precision: fp16, launch_overhead: 5 us, eta: 0.5}\n");
  EXPECT_FALSE(r.study);
  EXPECT_NE(r.diagnostics.find("t.yaml:6:3: error: axes.layout: solver 'inference' has no gpus and tp parameters"),
            std::string::npos)
      << r.diagnostics;
}

}  // namespace
}  // namespace dsx
