// What `dsx validate` flags in a study's prose: an unhedged "<id> wins" / "<id> is the choice" in
// its sections where the computed decision chooses another alternative; nothing hedged, nothing
// outside `sections:`, nothing a decision bears out.
#include "dse/analysis/prose_claims.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/sensitivity.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";
const std::string kPurchase = DSX_SOURCE_DIR "/studies/purchase_sensitivity.yaml";

TEST(ProseClaims, OnlyUnhedgedClaimsInTheSectionsCount) {
  const std::string source =
      "study: s\n"
      "question: \"Does b200 win? b200 wins, says the question\"\n"
      "sections:\n"
      "  - title: \"One\"\n"
      "    text: >-\n"
      "      Batch 64 is where it is decided: b200 wins. If the price falls, h100_sxm wins; h200 is not the\n"
      "      choice, and mi300x is the choice only at batch 1. In the end a100_80gb_sxm is the best\n"
      "      choice\n"
      "  - title: \"Two\"\n"
      "    text: \"l4 wins. h100_sxm wins by 1.5 % unless the price changes.\"\n"
      "axes:\n"
      "  note: \"h200 wins\"\n";
  const std::vector<std::string> ids = {"b200", "h100_sxm", "h200", "mi300x", "a100_80gb_sxm"};
  const std::vector<ProseClaim> claims = prose_choice_claims("s.yaml", source, ids);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].id, "b200");
  EXPECT_EQ(claims[0].phrase, "b200 wins");
  EXPECT_EQ(claims[0].where.file, "s.yaml");
  EXPECT_EQ(claims[0].where.line, 6);
  EXPECT_EQ(claims[0].where.column, static_cast<int>(std::string("      Batch 64 is where it is decided: ").size()) + 1);
  EXPECT_EQ(claims[1].id, "a100_80gb_sxm");
  EXPECT_EQ(claims[1].phrase, "a100_80gb_sxm is the best choice");
  EXPECT_EQ(claims[1].where.line, 7);
  // l4 is no decision's alternative here.
  EXPECT_EQ(prose_choice_claims("s.yaml", source, {"l4"}).size(), 1u);
  EXPECT_TRUE(prose_choice_claims("s.yaml", "question: \"b200 wins\"\n", ids).empty());
}

// One pass over the sections, whatever they hold: 200,000 claims in one sentence, one per line, and
// a word of 4 MB take well under what a pass per claim would (minutes).
TEST(ProseClaims, FindingClaimsIsLinearInTheText) {
  std::string source = "sections:\n  - title: t\n    text: >-\n      ";
  source.append(std::size_t{4} << 20, 'x');
  source += " wins\n";
  for (int i = 0; i < 200000; ++i) source += "      b200 wins,\n";
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ProseClaim> claims = prose_choice_claims("s.yaml", source, {"b200"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60.0);
  ASSERT_EQ(claims.size(), 200000u);
  EXPECT_EQ(claims.back().where.line, 200004);
  EXPECT_EQ(claims.back().where.column, 7);
}

struct Decided {
  std::string name;
  std::string choice;
  std::vector<std::string> alternatives;
};

// purchase_sensitivity.yaml's decisions, computed in full as the report computes them.
std::vector<Decided> decisions_of(const ResolvedStudy& study) {
  std::vector<Decided> out;
  for (const SensitivityRequest& r : analyses_of(study).sensitivities) {
    if (r.decide.empty()) continue;
    const SensitivityAnalysis a = run_sensitivity(study, r);
    out.push_back({r.name, a.alternatives[a.decision->best], a.alternatives});
  }
  return out;
}

// The shipped study with `sentence` at the end of its last section.
std::string purchase_with(const std::string& sentence) {
  std::string text = read_text(kPurchase);
  const std::string last = "comparison lives.";
  const std::size_t at = text.find(last);
  EXPECT_NE(at, std::string::npos);
  return text.insert(at + last.size(), " " + sentence);
}

TEST(ProseClaims, AClaimTheDecisionsContradictIsFoundAndOneTheyBearOutIsNot) {
  Diagnostics diags;
  const auto plain = load_study_text(kPurchase, read_text(kPurchase), kCatalog, diags);
  ASSERT_TRUE(plain) << diags.format();
  EXPECT_TRUE(prose_contradictions(*plain, read_text(kPurchase)).empty());
  const std::vector<Decided> decided = decisions_of(*plain);
  ASSERT_GE(decided.size(), 2u);

  // An alternative no decision chooses.
  std::string loser;
  for (const Decided& d : decided) {
    for (const std::string& a : d.alternatives) {
      const bool chosen = std::any_of(decided.begin(), decided.end(), [&](const Decided& e) { return e.choice == a; });
      if (!chosen && loser.empty()) loser = a;
    }
  }
  ASSERT_FALSE(loser.empty());
  const std::string wrong = purchase_with(loser + " is the choice.");
  const auto study = load_study_text(kPurchase, wrong, kCatalog, diags);
  ASSERT_TRUE(study) << diags.format();
  const std::vector<ProseContradiction> found = prose_contradictions(*study, wrong);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].claim.id, loser);
  EXPECT_EQ(wrong.substr(wrong.find(loser + " is the choice."), loser.size()), loser);
  for (const Decided& d : decided) {
    if (std::find(d.alternatives.begin(), d.alternatives.end(), loser) == d.alternatives.end()) continue;
    EXPECT_NE(found[0].message.find("decision '" + d.name + "' chooses " + d.choice), std::string::npos)
        << found[0].message;
  }
  EXPECT_NE(found[0].message.find("{{decision."), std::string::npos) << found[0].message;

  // What every decision chooses, stated outright, and the loser hedged, are not contradictions.
  for (const Decided& d : decided) {
    const std::string right = purchase_with(d.choice + " wins. If prices change, " + loser + " wins.");
    const auto s = load_study_text(kPurchase, right, kCatalog, diags);
    ASSERT_TRUE(s) << diags.format();
    EXPECT_TRUE(prose_contradictions(*s, right).empty()) << d.name << ": " << d.choice;
  }
}

}  // namespace
}  // namespace dsx
