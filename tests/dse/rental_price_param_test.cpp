// gpu_hour_price: catalog: the serving and scaling solvers price a GPU-hour at the chip's dated
// on-demand rental price from the catalog; a chip without one makes the point infeasible with a
// reason that names it, never a free hour. The word travels through the grid, the resolved study,
// expressions (NaN) and sensitivity (refused) as the parameter machinery's other values do.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "dse/analysis/derived.hpp"
#include "dse/catalog.hpp"
#include "dse/grid.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "engine/solver.hpp"
#include "tests/dse/study_text.hpp"

namespace dsx {
namespace {

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

Loaded load(const std::string& text) { return load_study_for_test(text, kCatalog); }

ResultTable sweep(const ResolvedStudy& study) { return sweep_whole_grid(study); }

double metric(const ResultTable& t, std::size_t row, const std::string& name) {
  const int c = t.metric_column(name);
  EXPECT_GE(c, 0) << name;
  return t.metric(row, static_cast<std::size_t>(c));
}

const char* kServing = R"(study: rented
title: t
question: q
solver: serving
axes:
  hardware: [h100_sxm, tpu_v6e, gaudi3]
  gpu_hour_price: [catalog, 2 USD]
fixed:
  model: llama3_8b
  precision: bf16
  batch: 8
  tp: 1
derived:
  - {name: price_read, expr: "gpu_hour_price"}
)";

// h100_sxm: AWS p5.48xlarge 55.04 USD per hour over 8 GPUs; tpu_v6e: Google's 2.70 USD per
// chip-hour (studies/catalog/hardware.yaml). gaudi3 has no rental price: infeasible, named.
TEST(RentalPriceParam, CatalogPricesEachChipAtItsRentalAndRefusesAChipWithout) {
  const Loaded l = load(kServing);
  ASSERT_TRUE(l.study) << l.diagnostics;
  ResultTable table = sweep(*l.study);
  apply_formulas(*l.study, table);
  ASSERT_EQ(table.rows(), 6u);
  int checked = 0;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    const std::string hw = table.label(r, 0);
    const std::string price = table.label(r, 1);
    if (price == "2 USD") {
      ASSERT_EQ(table.status[r], PointStatus::ok) << hw << ": " << table.detail(r);
      EXPECT_DOUBLE_EQ(metric(table, r, "gpu_hour_price_usd"), 2.0) << hw;
      EXPECT_DOUBLE_EQ(metric(table, r, "price_read"), 2.0) << hw;
      continue;
    }
    EXPECT_EQ(price, "catalog");
    if (hw == "gaudi3") {
      EXPECT_EQ(table.status[r], PointStatus::infeasible);
      EXPECT_EQ(table.detail(r), "gpu_hour_price is catalog, but gaudi3 has no rental price in the catalog");
      ++checked;
      continue;
    }
    ASSERT_EQ(table.status[r], PointStatus::ok) << hw << ": " << table.detail(r);
    const double per_hour = hw == "h100_sxm" ? 55.04 / 8 : 2.70;
    EXPECT_NEAR(metric(table, r, "gpu_hour_price_usd"), per_hour, 1e-12) << hw;
    const double tps = metric(table, r, "tokens_per_s");
    EXPECT_NEAR(metric(table, r, "cost_per_million_tokens_usd"), per_hour / 3600 / tps * 1e6, 1e-9) << hw;
    // An expression reading the parameter itself gets no number from a word.
    EXPECT_TRUE(std::isnan(metric(table, r, "price_read"))) << hw;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  // The resolved study writes the word back as the study gave it.
  const std::string resolved = resolved_study_yaml(*l.study);
  EXPECT_NE(resolved.find("gpu_hour_price: [catalog, 2 USD]"), std::string::npos) << resolved;
}

// A stored row's reason names its chip; a resumed run finds the reason it came from.
TEST(RentalPriceParam, AReasonNamingTheChipIsMatchedBackToItsTemplate) {
  HardwareSpec hw;
  hw.id = "b200";
  const std::string_view reason = "gpu_hour_price is catalog, but {hardware} has no rental price in the catalog";
  EXPECT_EQ(reason_text(reason, &hw), "gpu_hour_price is catalog, but b200 has no rental price in the catalog");
  EXPECT_TRUE(reason_matches(reason, reason_text(reason, &hw)));
  EXPECT_FALSE(reason_matches(reason, "gpu_hour_price is catalog"));
  EXPECT_FALSE(reason_matches("tp must divide the attention heads", reason_text(reason, &hw)));
  EXPECT_EQ(reason_text("tp must divide the attention heads", &hw), "tp must divide the attention heads");
}

// Scaling: cost = gpus x GPU-hours x the chip's rental: 1e23 FLOP at Chinchilla's 20 tokens per
// parameter on 1,024 TPU v5e at 1.20 USD per chip-hour, and on 1,024 TPU v5p at 4.20 (a tpu-v5p-12288
// slice, 6,144 chips, at 25,804.8 USD per hour); TPU7x has no rental price.
TEST(RentalPriceParam, ScalingCostsTheTrainingRunAtTheRentalPrice) {
  const Loaded l = load(R"(study: scaled
title: t
question: q
solver: scaling
axes:
  hardware: [tpu_v5e, tpu_v5p, tpu7x]
fixed:
  compute_budget: 1e23 FLOP
  gpus: 1024
  eta: 0.5
  gpu_hour_price: catalog
)");
  ASSERT_TRUE(l.study) << l.diagnostics;
  const ResultTable table = sweep(*l.study);
  ASSERT_EQ(table.rows(), 3u);
  ASSERT_EQ(table.status[0], PointStatus::ok) << table.detail(0);
  const double hours = 1e23 / (1024 * 197e12 * 0.5) / 3600;
  EXPECT_NEAR(metric(table, 0, "training_time_s") / 3600, hours, 1e-9 * hours);
  EXPECT_NEAR(metric(table, 0, "cost_usd"), 1024 * hours * 1.20, 1e-6 * 1024 * hours * 1.20);
  ASSERT_EQ(table.status[1], PointStatus::ok) << table.detail(1);
  const double v5p_hours = 1e23 / (1024 * 459e12 * 0.5) / 3600;
  const double v5p_per_chip_hour = 25804.8 / (12288 / 2);
  EXPECT_NEAR(metric(table, 1, "cost_usd"), 1024 * v5p_hours * v5p_per_chip_hour, 1e-6 * 1024 * v5p_hours * 4.2);
  EXPECT_EQ(table.status[2], PointStatus::infeasible);
  EXPECT_EQ(table.detail(2), "gpu_hour_price is catalog, but tpu7x has no rental price in the catalog");
}

// The word is the parameter's only one: a misspelling is an error with the closest match, located;
// a parameter without a word takes none.
TEST(RentalPriceParam, AWordOtherThanCatalogIsAnError) {
  std::string text = kServing;
  text.replace(text.find("[catalog, 2 USD]"), 16, "[catalogue, 2 USD]");
  const Loaded l = load(text);
  ASSERT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("t.yaml:7:20: error: axes.gpu_hour_price[0]: expected an amount of money such as "),
            std::string::npos)
      << l.diagnostics;
  EXPECT_NE(l.diagnostics.find("or the word 'catalog', got 'catalogue'; did you mean 'catalog'?"), std::string::npos)
      << l.diagnostics;
  std::string lifetime = kServing;
  lifetime.replace(lifetime.find("  tp: 1\n"), 8, "  tp: 1\n  lifetime: catalog\n");
  const Loaded w = load(lifetime);
  ASSERT_FALSE(w.study);
  EXPECT_EQ(w.diagnostics.find("the word 'catalog'"), std::string::npos) << w.diagnostics;
  EXPECT_NE(w.diagnostics.find("lifetime"), std::string::npos) << w.diagnostics;
}

// Sensitivity varies numbers: a price given as the word has none to vary.
TEST(RentalPriceParam, SensitivityRefusesAPriceGivenAsTheWord) {
  std::string text = kServing;
  text.replace(text.find("  gpu_hour_price: [catalog, 2 USD]\n"), 35, "");
  text.replace(text.find("  tp: 1\n"), 8, "  tp: 1\n  gpu_hour_price: catalog\n");
  text += R"(sensitivity:
  - {name: s, metric: cost_per_million_tokens_usd, base: {hardware: h100_sxm}, inputs: [gpu_hour_price]}
)";
  const Loaded l = load(text);
  ASSERT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("'gpu_hour_price' is 'catalog' in this study, a word and not a number to vary"),
            std::string::npos)
      << l.diagnostics;
}

// A break-even runs along numbers: an axis that also takes the word has no place for it.
TEST(RentalPriceParam, ABreakevenCannotRunAlongAnAxisWithTheWord) {
  const Loaded l = load(std::string(kServing) + R"(breakeven:
  - {name: b, metric: cost_per_million_tokens_usd, along: gpu_hour_price, alternatives: hardware}
)");
  ASSERT_FALSE(l.study);
  EXPECT_NE(l.diagnostics.find("the gpu_hour_price axis takes 'catalog', a word with no place among its numbers"),
            std::string::npos)
      << l.diagnostics;
}

}  // namespace
}  // namespace dsx
