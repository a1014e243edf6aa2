// Bundles: regions, fabrics and nodes from the catalog, named in a study like parameters
// (dse/catalog.hpp, dse/bundles.hpp, dse/study.cpp).
#include "dse/bundles.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dse/analysis/breakeven.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/points.hpp"
#include "dse/catalog.hpp"
#include "dse/grid.hpp"
#include "dse/quantity.hpp"
#include "dse/study.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/training.hpp"
#include "output/format.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

const std::string kSourceDir = DSX_SOURCE_DIR;
const std::string kCatalog = kSourceDir + "/studies/catalog";
const std::string kFixtureCatalog = kSourceDir + "/tests/malformed/catalog";

using P = TrainingSolver::Param;

Loaded load(const std::string& text, const std::string& catalog = kCatalog) { return load_study_for_test(text, catalog); }

std::string training_study(const std::string& rest) {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: training\n" + rest;
}

const std::string kRegionAxis = training_study(
    "axes:\n"
    "  tp: [8]\n"
    "  region: [us_average, quebec]\n"
    "fixed:\n"
    "  node: dgx_h100\n"
    "  model: llama3_70b\n");

PointInputs inputs_at(const ResolvedStudy& s, std::uint64_t index) {
  const Grid grid(s);
  PointInputs in;
  grid.inputs(index, in);
  return in;
}

TEST(BundleUnitsTest, CarbonIntensityAndEnergyPriceReadTheirUnits) {
  EXPECT_DOUBLE_EQ(parse_quantity("429 g/kWh", Dimension::carbon_intensity, "c").quantity->value, 429);
  EXPECT_DOUBLE_EQ(parse_quantity("0.429 kg/kWh", Dimension::carbon_intensity, "c").quantity->value, 429);
  EXPECT_DOUBLE_EQ(parse_quantity("429 kg/MWh", Dimension::carbon_intensity, "c").quantity->value, 429);
  // eGRID publishes lb/MWh: 1,000 lb/MWh = 453.59237 g/kWh (international pound).
  EXPECT_DOUBLE_EQ(parse_quantity("1000 lb/MWh", Dimension::carbon_intensity, "c").quantity->value, 453.59237);
  EXPECT_DOUBLE_EQ(parse_quantity("0.12 USD/kWh", Dimension::energy_price, "p").quantity->value, 0.12);
  EXPECT_DOUBLE_EQ(parse_quantity("120 USD/MWh", Dimension::energy_price, "p").quantity->value, 0.12);
  const QuantityParse bare = parse_quantity("429", Dimension::carbon_intensity, "carbon_intensity_g_per_kwh");
  ASSERT_FALSE(bare.quantity);
  EXPECT_NE(bare.error.message.find("429 g/kWh"), std::string::npos) << bare.error.message;
  EXPECT_FALSE(parse_quantity("0.12 USD/kWh", Dimension::carbon_intensity, "c").quantity);
  EXPECT_EQ(exact_quantity_label(0.12, Dimension::energy_price), "0.12 USD/kWh");
  EXPECT_EQ(exact_quantity_label(20, Dimension::carbon_intensity), "20 g/kWh");
}

TEST(BundleCatalogTest, ShippedBundlesLoadWithSourcesAndOneWayBandwidths) {
  Diagnostics d;
  const Catalog c = load_catalog(kCatalog, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  for (const BundleKind& kind : kBundleKinds) EXPECT_GE(c.bundle_ids(kind.name).size(), 3U) << kind.name;
  for (const CatalogBundle& b : c.bundles) {
    EXPECT_FALSE(b.source.empty()) << b.id;
    EXPECT_FALSE(b.values.empty()) << b.id;
  }
  const CatalogBundle* quebec = c.find_bundle("region", "quebec");
  ASSERT_NE(quebec, nullptr);
  EXPECT_EQ(bundle_value_names(*quebec), "carbon_intensity_g_per_kwh, pue, wue_l_per_kwh, electricity_usd_per_kwh");
  // NVLink 4: 900 GB/s bidirectional per GPU is 450 GB/s each way.
  const CatalogBundle* nvlink4 = c.find_bundle("fabric", "nvlink4");
  ASSERT_NE(nvlink4, nullptr);
  EXPECT_EQ(nvlink4->values.front(), (std::pair<std::string, std::string>{"fabric_bandwidth", "450 GB/s"}));
  EXPECT_EQ(c.find_bundle("node", "quebec"), nullptr);  // ids are per kind
  // Every shipped bundle resolves for every solver that has one of its parameters.
  for (const CatalogBundle& b : c.bundles) {
    for (const Solver* solver : all_solvers()) {
      std::string problem;
      EXPECT_TRUE(bundle_settings(b, *solver, c, problem)) << b.id << " / " << solver->name() << ": " << problem;
    }
  }
}

// The shipped regions are a usable axis: at least 12 grids, each setting the same four training
// parameters (so any of them can be swept against any other), each value within the range real grids
// and data centres span (carbon 0-1,200 g/kWh, PUE 1.0-2.5, WUE 0-5 L/kWh, 0.01-0.6 USD/kWh).
TEST(BundleCatalogTest, ShippedRegionsSetTheSameFourParametersInPlausibleRanges) {
  Diagnostics d;
  const Catalog c = load_catalog(kCatalog, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  const std::vector<std::string> ids = c.bundle_ids("region");
  EXPECT_GE(ids.size(), 12U);
  // The first four keep their positions: study axes may name them by index.
  ASSERT_GE(ids.size(), 4U);
  EXPECT_EQ(ids[0], "quebec");
  EXPECT_EQ(ids[1], "eu_average");
  EXPECT_EQ(ids[2], "texas");
  EXPECT_EQ(ids[3], "us_average");
  const Solver& training = *find_solver("training");
  struct Range {
    P param;
    double lo, hi;
  };
  const Range ranges[] = {{P::carbon_intensity_g_per_kwh, 0, 1200},
                          {P::pue, 1.0, 2.5},
                          {P::wue_l_per_kwh, 0, 5},
                          {P::electricity_usd_per_kwh, 0.01, 0.6}};
  for (const std::string& id : ids) {
    const CatalogBundle& region = *c.find_bundle("region", id);
    EXPECT_EQ(bundle_value_names(region), "carbon_intensity_g_per_kwh, pue, wue_l_per_kwh, electricity_usd_per_kwh")
        << id;
    std::string problem;
    const auto settings = bundle_settings(region, training, c, problem);
    ASSERT_TRUE(settings) << id << ": " << problem;
    ASSERT_EQ(settings->size(), 4U) << id;
    for (const Range& r : ranges) {
      int found = 0;
      for (const BundleSetting& s : *settings) {
        if (s.param != static_cast<std::size_t>(r.param)) continue;
        ++found;
        EXPECT_GE(s.value, r.lo) << id << " " << s.label;
        EXPECT_LE(s.value, r.hi) << id << " " << s.label;
      }
      EXPECT_EQ(found, 1) << id << " parameter " << static_cast<std::size_t>(r.param);
    }
  }
}

TEST(BundleCatalogTest, SettingsFollowTheSolverAndSkipParametersItLacks) {
  Diagnostics d;
  const Catalog c = load_catalog(kCatalog, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  std::string problem;
  const auto training = bundle_settings(*c.find_bundle("node", "dgx_h100"), *find_solver("training"), c, problem);
  ASSERT_TRUE(training) << problem;
  ASSERT_EQ(training->size(), 3U);
  EXPECT_EQ((*training)[0].param, static_cast<std::size_t>(P::hardware));
  EXPECT_EQ(c.hardware.at(static_cast<std::size_t>((*training)[0].value)).id, "h100_sxm");
  EXPECT_EQ((*training)[1].param, static_cast<std::size_t>(P::fabric_bandwidth));
  EXPECT_DOUBLE_EQ((*training)[1].value, 50e9);  // 400 Gb/s
  EXPECT_EQ((*training)[2].param, static_cast<std::size_t>(P::gpus_per_node));
  EXPECT_DOUBLE_EQ((*training)[2].value, 8);
  const auto serving = bundle_settings(*c.find_bundle("node", "dgx_h100"), *find_solver("serving"), c, problem);
  ASSERT_TRUE(serving) << problem;
  ASSERT_EQ(serving->size(), 2U);  // hardware and gpus_per_node: serving has no fabric_bandwidth
  const auto none = bundle_settings(*c.find_bundle("region", "quebec"), *find_solver("serving"), c, problem);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(BundleStudyTest, AnAxisOfRegionsSetsCarbonAndPueTogetherAtEachPoint) {
  const Loaded l = load(kRegionAxis);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResolvedStudy& s = *l.study;
  ASSERT_EQ(s.axes.size(), 2U);
  const Axis& region = s.axes[1];
  EXPECT_EQ(region.param, "region");
  ASSERT_TRUE(region.is_bundle());
  EXPECT_EQ(region.values[0].label, "us_average");
  EXPECT_EQ(region.values[1].label, "quebec");
  EXPECT_FALSE(s.is_axis[P::pue]);
  ASSERT_NE(s.bundle_setting(P::pue), nullptr);
  EXPECT_EQ(s.bundle_setting(P::pue)->axis, 1);

  const PointInputs us = inputs_at(s, 0);
  EXPECT_DOUBLE_EQ(us.values[P::carbon_intensity_g_per_kwh], 429);
  EXPECT_DOUBLE_EQ(us.values[P::pue], 1.12);
  const PointInputs qc = inputs_at(s, 1);
  EXPECT_DOUBLE_EQ(qc.values[P::carbon_intensity_g_per_kwh], 20);
  EXPECT_DOUBLE_EQ(qc.values[P::pue], 1.06);
  // The fixed node sets the accelerator and the per-GPU NIC at every point.
  for (const PointInputs& in : {us, qc}) {
    ASSERT_NE(in.hardware, nullptr);
    EXPECT_EQ(in.hardware->id, "h100_sxm");
    EXPECT_DOUBLE_EQ(in.values[P::fabric_bandwidth], 50e9);
  }
  EXPECT_EQ(s.fixed_labels[P::hardware], "h100_sxm");
  // The run's carbon is grid x PUE x IT energy: the two regions differ by (429 x 1.12) / (20 x 1.06).
  std::vector<double> m_us(s.solver->metrics().size());
  std::vector<double> m_qc(m_us.size());
  ASSERT_EQ(s.solver->evaluate(us, m_us).status, PointStatus::ok);
  ASSERT_EQ(s.solver->evaluate(qc, m_qc).status, PointStatus::ok);
  std::size_t co2 = 0;
  for (std::size_t m = 0; m < s.solver->metrics().size(); ++m) {
    if (s.solver->metrics()[m].name == "co2_kg") co2 = m;
  }
  EXPECT_NEAR(m_us[co2] / m_qc[co2], (429 * 1.12) / (20 * 1.06), 1e-9);
}

TEST(BundleStudyTest, AnAxisOfNodesPointsEachDesignPointAtItsHardware) {
  const Loaded l = load(training_study(
      "axes:\n"
      "  node: [dgx_a100, dgx_b200]\n"
      "fixed:\n"
      "  model: llama3_70b\n"
      "  region: quebec\n"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  const PointInputs a100 = inputs_at(*l.study, 0);
  const PointInputs b200 = inputs_at(*l.study, 1);
  ASSERT_NE(a100.hardware, nullptr);
  ASSERT_NE(b200.hardware, nullptr);
  EXPECT_EQ(a100.hardware->id, "a100_80gb_sxm");
  EXPECT_EQ(b200.hardware->id, "b200");
  EXPECT_DOUBLE_EQ(a100.values[P::fabric_bandwidth], 25e9);  // ConnectX-6 HDR 200 Gb/s
  EXPECT_DOUBLE_EQ(b200.values[P::fabric_bandwidth], 50e9);
  EXPECT_DOUBLE_EQ(a100.values[P::pue], 1.06);  // the fixed region
  EXPECT_EQ(l.study->fixed_labels[P::pue], "1.06");
  // Only the entries the study uses are kept, so the resolved file is self-contained and small.
  EXPECT_EQ(l.study->catalog.hardware.size(), 2U);
  EXPECT_EQ(l.study->catalog.bundles.size(), 3U);
}

TEST(BundleStudyTest, DerivedMetricsSeeBundleParametersAsParameters) {
  const Loaded l = load(kRegionAxis +
                        "derived:\n"
                        "  - {name: grid_g_per_kwh_at_meter, expr: \"carbon_intensity_g_per_kwh * pue\"}\n");
  ASSERT_TRUE(l.study) << l.diagnostics;
  PointFormulas formulas(*l.study);
  std::vector<double> metrics(l.study->solver->metrics().size(), 0.0);
  formulas.load(inputs_at(*l.study, 1), metrics, true);
  EXPECT_DOUBLE_EQ(formulas.derived(0), 20 * 1.06);
}

TEST(BundleStudyTest, SelectorsPickBundleIdsAndRejectParametersABundleAxisSets) {
  const Loaded ok = load(kRegionAxis +
                         "compare:\n"
                         "  - {name: c, where: {tp: 8, region: quebec, node: dgx_h100}, metric: co2_kg, expected: 1,\n"
                         "     source: s}\n");
  ASSERT_TRUE(ok.study) << ok.diagnostics;
  ASSERT_EQ(ok.study->comparisons.size(), 1U);
  // The fixed node selects every row, so it adds no selector.
  ASSERT_EQ(ok.study->comparisons[0].where.size(), 2U);
  EXPECT_EQ(ok.study->comparisons[0].where[1].param, "region");
  EXPECT_EQ(ok.study->comparisons[0].where[1].label, "quebec");

  const Loaded bad = load(kRegionAxis +
                          "compare:\n"
                          "  - {name: c, where: {tp: 8, region: qubec, pue: 1.06}, metric: co2_kg, expected: 1, source: s}\n"
                          "  - {name: d, where: {tp: 8, region: quebec, node: dgx_b200}, metric: co2_kg, expected: 1, "
                          "source: s}\n");
  EXPECT_FALSE(bad.study);
  EXPECT_NE(bad.diagnostics.find("compare[0].where.region: 'qubec' is not a value of the region axis; did you mean "
                                 "'quebec'? (axis values: us_average, quebec)"),
            std::string::npos)
      << bad.diagnostics;
  EXPECT_NE(bad.diagnostics.find("compare[0].where.pue: pue is set by the region axis; select a region instead, "
                                 "e.g. region: us_average"),
            std::string::npos)
      << bad.diagnostics;
  EXPECT_NE(bad.diagnostics.find("compare[1].where.node: 'dgx_b200' selects nothing: node is fixed to 'dgx_h100' in "
                                 "this study"),
            std::string::npos)
      << bad.diagnostics;
}

TEST(BundleStudyTest, FiguresGroupByABundleAxis) {
  const Loaded l = load(kRegionAxis +
                        "figures:\n"
                        "  - {name: f, kind: bars, title: T, caption: C, x: region, y: co2_kg}\n"
                        "  - {name: g, kind: scatter, title: T, caption: C, x: time_to_train_s, y: co2_kg, "
                        "group: region}\n"
                        "  - {name: h, kind: bars, title: T, caption: C, x: pue, y: co2_kg}\n");
  EXPECT_FALSE(l.study);
  EXPECT_EQ(l.diagnostics.find("figures[0]"), std::string::npos) << l.diagnostics;
  EXPECT_EQ(l.diagnostics.find("figures[1]"), std::string::npos) << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("figures[2].x: 'pue' is not swept in this study (swept parameters: tp, region)"),
            std::string::npos)
      << l.diagnostics;
}

TEST(BundleStudyTest, UnknownIdsNameTheClosestAndTheValidOnes) {
  const Loaded l = load(training_study("axes:\n  region: [quebec, us_avrage]\nfixed:\n  node: dgx_h100\n"
                                       "  model: llama3_70b\n"));
  EXPECT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("t.yaml:6:20: error: unknown region id 'us_avrage'; did you mean 'us_average'? "
                               "valid region ids: quebec, eu_average, texas, us_average, california, virginia, "
                               "oregon, iowa, georgia, ohio, nevada, finland\n"),
            std::string::npos)
      << l.diagnostics;
  // No follow-on "needs a value" for what the region would have set (they have defaults anyway) or
  // for anything else.
  EXPECT_EQ(l.diagnostics.find("needs a value"), std::string::npos) << l.diagnostics;
}

TEST(BundleStudyTest, ABundleAndAnExplicitValueForTheSameParameterIsAnError) {
  const Loaded l = load(training_study(
      "axes:\n"
      "  region: [quebec]\n"
      "fixed:\n"
      "  node: dgx_h100\n"
      "  model: llama3_70b\n"
      "  carbon_intensity_g_per_kwh: 100 g/kWh\n"
      "  fabric: ib_ndr\n"));
  EXPECT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("t.yaml:10:3: error: 'carbon_intensity_g_per_kwh' is set both under fixed: and by the "
                               "region axis (line 6, column 3): keep one"),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("t.yaml:11:3: error: 'fabric_bandwidth' is set both by fabric 'ib_ndr' and by node "
                               "'dgx_h100' (line 8, column 3): keep one"),
            std::string::npos)
      << l.diagnostics;
}

TEST(BundleStudyTest, ABundleKindIsEitherAnAxisOrFixed) {
  const Loaded l = load(training_study("axes:\n  region: [quebec]\nfixed:\n  region: norway\n  model: llama3_70b\n"
                                       "  hardware: h100_sxm\n"));
  EXPECT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("t.yaml:8:3: error: 'region' is both an axis (line 6, column 3) and fixed: keep one"),
            std::string::npos)
      << l.diagnostics;
}

TEST(BundleStudyTest, AStudyCanAddAndOverrideBundlesInItsCatalogBlock) {
  const Loaded l = load(training_study(
      "catalog:\n"
      "  regions:\n"
      "    - {id: quebec_priced, base: quebec, source: \"test price\", values: {electricity_usd_per_kwh: 0.05 "
      "USD/kWh}}\n"
      "axes:\n"
      "  region: [quebec_priced]\n"
      "fixed:\n"
      "  node: dgx_h100\n"
      "  model: llama3_70b\n"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  const PointInputs in = inputs_at(*l.study, 0);
  EXPECT_DOUBLE_EQ(in.values[P::pue], 1.06);
  EXPECT_DOUBLE_EQ(in.values[P::carbon_intensity_g_per_kwh], 20);
  EXPECT_DOUBLE_EQ(in.values[P::electricity_usd_per_kwh], 0.05);
  const CatalogBundle* priced = l.study->catalog.find_bundle("region", "quebec_priced");
  ASSERT_NE(priced, nullptr);
  EXPECT_EQ(priced->source, "test price");
}

TEST(BundleStudyTest, ResolvedYamlCarriesTheBundlesAndLoadsBackToTheSamePoints) {
  const Loaded l = load(kRegionAxis);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const std::string resolved = resolved_study_yaml(*l.study);
  EXPECT_NE(resolved.find("  region: [us_average, quebec]\n"), std::string::npos) << resolved;
  EXPECT_NE(resolved.find("  node: dgx_h100\n"), std::string::npos) << resolved;
  EXPECT_EQ(resolved.find("  pue:"), std::string::npos) << resolved;  // written as the region, not again
  EXPECT_EQ(resolved.find("  hardware: h100_sxm"), std::string::npos) << resolved;
  EXPECT_NE(resolved.find("  regions:\n    - id: quebec\n"), std::string::npos) << resolved;  // catalog order
  EXPECT_NE(resolved.find("values: {carbon_intensity_g_per_kwh: 20 g/kWh, pue: 1.06, wue_l_per_kwh: 0, electricity_usd_per_kwh: 0.041 USD/kWh}"), std::string::npos)
      << resolved;
  EXPECT_NE(resolved.find("  nodes:\n    - id: dgx_h100\n"), std::string::npos) << resolved;

  Diagnostics again;
  const auto reloaded = load_study_text("resolved.yaml", resolved, "", again);
  ASSERT_TRUE(reloaded) << again.format();
  const auto body = [](const std::string& yaml) { return yaml.substr(yaml.find('\n')); };  // past the file name
  EXPECT_EQ(body(resolved_study_yaml(*reloaded)), body(resolved));
  for (std::uint64_t i = 0; i < l.study->point_count(); ++i) {
    const PointInputs a = inputs_at(*l.study, i);
    const PointInputs b = inputs_at(*reloaded, i);
    EXPECT_EQ(a.values, b.values) << i;
    ASSERT_NE(b.hardware, nullptr);
    EXPECT_EQ(a.hardware->id, b.hardware->id);
  }
}

TEST(BundleStudyTest, ACatalogFolderWithoutBundleFilesHasNoBundles) {
  Diagnostics d;
  const Catalog c = load_catalog(kFixtureCatalog, d);
  EXPECT_FALSE(d.has_errors()) << d.format();
  EXPECT_TRUE(c.bundles.empty());
}

TEST(BundleUnitsTest, CarbonIntensityAndEnergyPricePrintWithTheirUnits) {
  const QuantityDisplay carbon = describe_quantity("carbon_intensity_g_per_kwh", Dimension::carbon_intensity);
  EXPECT_EQ(carbon.label, "carbon intensity");
  EXPECT_EQ(format_quantity(429, carbon), "429 g/kWh");
  const QuantityDisplay price = describe_quantity("electricity_usd_per_kwh", Dimension::energy_price);
  EXPECT_EQ(price.label, "electricity");
  EXPECT_EQ(format_quantity(0.12, price), "0.120 USD/kWh");
  EXPECT_EQ(format_quantity(0.0806, price), "0.0806 USD/kWh");
}

TEST(BundleCatalogTest, EveryRegionHasAPriceAndAWaterUsage) {
  Diagnostics d;
  const Catalog c = load_catalog(kCatalog, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  const auto ids = c.bundle_ids("region");
  ASSERT_FALSE(ids.empty());
  for (const std::string& id : ids) {
    const CatalogBundle* b = c.find_bundle("region", id);
    EXPECT_EQ(bundle_value_names(*b), "carbon_intensity_g_per_kwh, pue, wue_l_per_kwh, electricity_usd_per_kwh") << id;
    EXPECT_NE(b->source.find("price:"), std::string::npos) << id;
  }
}

// Water = IT energy x WUE (The Green Grid WUE is over IT energy, so facility energy / PUE).
TEST(BundleStudyTest, WaterIsItEnergyTimesTheRegionsWue) {
  const Loaded l = load(kRegionAxis);
  ASSERT_TRUE(l.study) << l.diagnostics;
  const Solver& solver = *l.study->solver;
  std::vector<double> us(solver.metrics().size());
  std::vector<double> quebec(solver.metrics().size());
  ASSERT_EQ(solver.evaluate(inputs_at(*l.study, 0), us).status, PointStatus::ok);
  ASSERT_EQ(solver.evaluate(inputs_at(*l.study, 1), quebec).status, PointStatus::ok);
  using M = TrainingSolver::Metric;
  const double it_kwh = us[M::energy_j] / 1.12 / 3.6e6;
  EXPECT_NEAR(us[M::water_l], it_kwh * 1.8, 1e-9 * us[M::water_l]);
  EXPECT_EQ(quebec[M::water_l], 0);  // liquid-cooled: WUE 0
  // The region's price reaches the cost: the same run costs less at Quebec's 0.041 USD/kWh.
  EXPECT_LT(quebec[M::gpu_hour_cost_usd], us[M::gpu_hour_cost_usd]);
}

TEST(BundleAnalysisTest, SelectorsOnABundleAxisPinItsPosition) {
  const Loaded l = load(kRegionAxis);
  ASSERT_TRUE(l.study) << l.diagnostics;
  std::vector<RequestProblem> problems;
  const std::vector<Selector> quebec = {{"region", "quebec"}};
  const auto pinned = pin_axes(*l.study, quebec, "where", problems);
  EXPECT_TRUE(problems.empty()) << problems.front().message;
  ASSERT_EQ(pinned.size(), 2U);
  EXPECT_EQ(pinned[1], 1U);
  const std::vector<Selector> bad = {{"region", "texas"}};
  pin_axes(*l.study, bad, "where", problems);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0].field, "where.region");
  EXPECT_EQ(problems[0].message, "'texas' is not a value of the region axis (axis values: us_average, quebec)");
  problems.clear();
  const std::vector<Selector> by_param = {{"pue", "1.06"}};
  pin_axes(*l.study, by_param, "base", problems);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0].message,
            "pue is set by the region axis; select a region instead (axis values: us_average, quebec)");
}

TEST(BundleAnalysisTest, SelectorsOnAFixedBundleMatchItsId) {
  const Loaded l = load(training_study("axes:\n  tp: [4, 8]\nfixed:\n  region: quebec\n  node: dgx_h100\n"
                                       "  model: llama3_70b\n"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  std::vector<RequestProblem> problems;
  const std::vector<Selector> ok = {{"region", "quebec"}, {"node", "dgx_h100"}};
  pin_axes(*l.study, ok, "where", problems);
  EXPECT_TRUE(problems.empty()) << problems.front().message;
  const std::vector<Selector> other = {{"region", "texas"}};
  pin_axes(*l.study, other, "where", problems);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0].message, "'texas' selects nothing: region is fixed to 'quebec' in this study");
}

TEST(BundleAnalysisTest, ABreakevenComparesRegionsAlongANumberAxis) {
  const Loaded l = load(training_study("axes:\n  eta: [0.3, 0.5]\n  region: [us_average, quebec]\nfixed:\n"
                                       "  node: dgx_h100\n  model: llama3_70b\n  tp: 8\n"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  BreakevenRequest r;
  r.name = "regions";
  r.along = "eta";
  r.alternatives = "region";
  r.metric = "co2_kg";
  EXPECT_TRUE(check_breakeven(*l.study, r).empty());
  const BreakevenAnalysis a = run_breakeven(*l.study, r);
  ASSERT_EQ(a.alternatives, (std::vector<std::string>{"us_average", "quebec"}));
  ASSERT_EQ(a.groups.size(), 1U);
  const BreakevenOutcome& o = a.groups[0].outcome;
  EXPECT_TRUE(o.crossings.empty());  // Quebec's carbon is lower at every eta
  ASSERT_EQ(o.segments.size(), 1U);
  EXPECT_EQ(o.segments[0].best, 1U);
  // Its carbon is the US run's x (20 x 1.06) / (429 x 1.12).
  EXPECT_NEAR(o.curve(1, 0) / o.curve(0, 0), 20 * 1.06 / (429 * 1.12), 1e-12);
}

TEST(BundleAnalysisTest, ABreakevenAlongABundleAxisIsRefused) {
  const Loaded l = load(training_study("axes:\n  eta: [0.3, 0.5]\n  region: [us_average, quebec]\nfixed:\n"
                                       "  node: dgx_h100\n  model: llama3_70b\n  tp: 8\n"));
  ASSERT_TRUE(l.study) << l.diagnostics;
  BreakevenRequest r;
  r.name = "along_region";
  r.along = "region";
  r.alternatives = "eta";
  r.metric = "co2_kg";
  const auto problems = check_breakeven(*l.study, r);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0].field, "along");
  EXPECT_NE(problems[0].message.find("'region' is an axis of bundles: each value sets pue, carbon_intensity_g_per_kwh, "
                                     "electricity_usd_per_kwh, wue_l_per_kwh together"),
            std::string::npos)
      << problems[0].message;
  EXPECT_THROW(run_breakeven(*l.study, r), std::invalid_argument);
}

}  // namespace
}  // namespace dsx
