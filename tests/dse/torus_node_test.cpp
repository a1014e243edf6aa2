// Torus nodes (studies/catalog/nodes.yaml `topology:`, dse/catalog.cpp, dse/bundles.cpp): the shipped
// TPU and Trainium entries carry the torus their sources state, a study's axis mixing torus and
// switched nodes sets the same parameters, the resolved study loads back to the same points, and a
// TPU v6e pod's expert-parallel all-to-all is bound by the torus bisection (engine/torus.hpp).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dse/bundles.hpp"
#include "dse/catalog.hpp"
#include "tests/dse/shipped_catalog.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "engine/collectives.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/training.hpp"

namespace dsx {
namespace {

const std::string& kCatalog = kShippedCatalogDir;

using P = TrainingSolver::Param;

const Catalog& catalog() { return shipped_catalog(); }

TEST(TorusNode, ShippedTorusNodesCarryTheirSourcesTopology) {
  const std::map<std::string, std::vector<double>> expected = {
      {"tpu_v6e_pod", {16, 16}}, {"tpu_v5e_pod", {16, 16}}, {"tpu_v5p_cube", {4, 4, 4}}, {"trn2_48xlarge", {4, 4}},
      {"tpu_v4_slice", {4, 4, 8}}};
  for (const CatalogBundle& b : catalog().bundles) {
    if (b.kind != "node") continue;
    const auto it = expected.find(b.id);
    EXPECT_EQ(b.torus, it == expected.end() ? std::vector<double>{} : it->second) << b.id;
    EXPECT_EQ(b.source.find("Not captured: ICI is a 2D torus"), std::string::npos) << b.id;
  }
}

TEST(TorusNode, ATorusNodeSetsTheTorusParameters) {
  const Solver& training = *find_solver("training");
  std::string problem;
  const auto settings = bundle_settings(*catalog().find_bundle("node", "tpu_v5p_cube"), training, catalog(), problem);
  ASSERT_TRUE(settings) << problem;
  std::map<std::size_t, double> set;
  for (const BundleSetting& s : *settings) set[s.param] = s.value;
  EXPECT_EQ(set[P::torus_x], 4);
  EXPECT_EQ(set[P::torus_y], 4);
  EXPECT_EQ(set[P::torus_z], 4);
  EXPECT_EQ(set[P::gpus_per_node], 64);
  // A switched node sets none of them unless asked to (an axis that mixes the two).
  const auto dgx = bundle_settings(*catalog().find_bundle("node", "dgx_h100"), training, catalog(), problem);
  ASSERT_TRUE(dgx);
  for (const BundleSetting& s : *dgx) EXPECT_FALSE(is_torus_param(training.params()[s.param].name));
  const auto forced = bundle_settings(*catalog().find_bundle("node", "dgx_h100"), training, catalog(), problem, true);
  ASSERT_TRUE(forced);
  EXPECT_EQ(forced->size(), dgx->size() + 3);
}

std::string study_text(const std::string& rest) {
  return "study: t\ntitle: T\nquestion: Q?\nsolver: training\n" + rest;
}

TEST(TorusNode, AnAxisMixingTorusAndSwitchedNodesLoadsAndRoundTrips) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml",
                                     study_text("axes:\n  node: [tpu_v5e_host, tpu_v5e_pod]\nfixed:\n"
                                                "  model: llama3_8b\n  gpus: 256\n  tp: 8\n"),
                                     kCatalog, d);
  ASSERT_TRUE(study) << d.format();
  const Grid grid(*study);
  PointInputs in;
  grid.inputs(0, in);
  EXPECT_EQ(in.values[P::torus_x], 0);
  grid.inputs(1, in);
  EXPECT_EQ(in.values[P::torus_x], 16);
  EXPECT_EQ(in.values[P::torus_y], 16);
  EXPECT_EQ(in.values[P::torus_z], 0);
  const std::string resolved = resolved_study_yaml(*study);
  EXPECT_NE(resolved.find("    - id: tpu_v5e_pod\n"), std::string::npos) << resolved;
  EXPECT_NE(resolved.find("      topology: {torus: [16, 16]}\n"), std::string::npos) << resolved;
  Diagnostics again;
  const auto reloaded = load_study_text("resolved.yaml", resolved, "", again);
  ASSERT_TRUE(reloaded) << again.format();
  const Grid regrid(*reloaded);
  PointInputs back;
  regrid.inputs(1, back);
  EXPECT_EQ(back.values[P::torus_x], 16);
  EXPECT_EQ(back.values[P::torus_y], 16);
}

// The study stays alive with the run: the point's hardware and model point into its catalog.
struct TrainRun {
  std::shared_ptr<ResolvedStudy> study;
  std::vector<double> metrics;
  PointStatus status = PointStatus::error;
  std::string reason;
  PointInputs in;
};

TrainRun train(const std::string& rest) {
  Diagnostics d;
  auto loaded = load_study_text("t.yaml", study_text(rest), kCatalog, d);
  TrainRun out;
  EXPECT_TRUE(loaded) << d.format();
  if (!loaded) return out;
  out.study = std::make_shared<ResolvedStudy>(std::move(*loaded));
  const ResolvedStudy* study = out.study.get();
  const Grid grid(*study);
  grid.inputs(0, out.in);
  out.metrics.assign(study->solver->metrics().size(), 0.0);
  const PointResult r = study->solver->evaluate(out.in, out.metrics);
  out.status = r.status;
  if (r.status == PointStatus::infeasible) out.reason = std::string(study->solver->reasons()[r.reason]);
  return out;
}

// The v6e pod's 256 chips as one switched node (a study entry without the topology).
const std::string kV6eAsASwitch =
    "catalog:\n  nodes:\n    - {id: v6e_switched, name: v6e as a switch, source: test, values: {hardware: tpu_v6e, "
    "gpus_per_node: 256}}\naxes:\n  node: [v6e_switched]\n";

// DeepSeek-V3 (256 routed experts) QLoRA on four v6e pods, one pipeline stage per pod, ep 256: each
// stage's expert-parallel group is its whole 16 x 16 pod. The same node as a switch (a study entry
// without the topology) is what the solver said before. Per all-to-all, each chip sends S bytes
// (micro-batch tokens x 8 experts x 7,168 x 2 bytes); the torus's cut has 2 x 16 links of 100 GB/s
// (3.2 TB/s) and 256 S / 4 bytes cross it: S / 50 GB/s, against 255/256 S / 400 GB/s on the
// switch, both with 255 steps of 0.5 us: 8 x 256/255 = 8.03 times slower in bandwidth.
TEST(TorusNode, V6ePodExpertAllToAllIsSlowerThanTheSwitchByTheBisectionRatio) {
  const std::string job =
      "fixed:\n  model: deepseek_v3\n  gpus: 4096\n  tp: 1\n  pp: 16\n  ep: 256\n  finetune: qlora\n  recompute: full\n"
      "  micro_batch: 1\n  global_batch: 4096\n  fabric_bandwidth: 100 Gb/s\n";
  const TrainRun torus = train("axes:\n  node: [tpu_v6e_pod]\n" + job);
  const TrainRun flat = train(kV6eAsASwitch + job);
  ASSERT_EQ(torus.status, PointStatus::ok) << torus.reason;
  ASSERT_EQ(flat.status, PointStatus::ok) << flat.reason;
  const ServingShape& shape = torus.in.model->serving_shape;
  const double S = shape.built_seq_len * shape.experts_per_token * shape.d_model * 2;
  const double alpha = 255 * kNvlinkAlphaS;
  const double by_torus = S / 50e9 + alpha, by_switch = 255.0 / 256 * S / 400e9 + alpha;
  const double ep_torus = torus.metrics[TrainingSolver::ep_comm_s], ep_flat = flat.metrics[TrainingSolver::ep_comm_s];
  ASSERT_GT(ep_flat, 0);
  EXPECT_NEAR(ep_torus / ep_flat, by_torus / by_switch, 1e-9);
  EXPECT_GT(ep_torus / ep_flat, 7);
}

// A TP group of 8 on the v6e pod is a 2 x 4 block without wraparound: its all-reduce runs at 100
// GB/s per link in lockstep phases, (3/8 + 3/16) S / 100 GB/s per reduce-scatter, where the switch
// gave 7/8 S / 400 GB/s; a torus whose chips do not multiply to gpus_per_node is refused.
TEST(TorusNode, TpOnTheV6ePodIsCostedOnItsBlock) {
  const std::string job = "fixed:\n  model: llama3_8b\n  gpus: 256\n  tp: 8\n  global_batch: 256\n  micro_batch: 1\n";
  const TrainRun torus = train("axes:\n  node: [tpu_v6e_pod]\n" + job);
  const TrainRun flat = train(kV6eAsASwitch + job);
  ASSERT_EQ(torus.status, PointStatus::ok) << torus.reason;
  ASSERT_EQ(flat.status, PointStatus::ok) << flat.reason;
  const double tp_torus = torus.metrics[TrainingSolver::tp_comm_s], tp_flat = flat.metrics[TrainingSolver::tp_comm_s];
  ASSERT_GT(tp_flat, 0);
  EXPECT_GT(tp_torus / tp_flat, 2.0);  // (9/16) / (7/32) = 2.57 in bandwidth, less the shorter latency
  EXPECT_LT(tp_torus / tp_flat, 2.6);

  PointInputs wrong = torus.in;
  wrong.values[P::gpus_per_node] = 128;
  std::vector<double> out(torus.metrics.size());
  const Solver& training = *find_solver("training");
  const PointResult r = training.evaluate(wrong, out);
  ASSERT_EQ(r.status, PointStatus::infeasible);
  EXPECT_NE(std::string(training.reasons()[r.reason]).find("torus"), std::string::npos);
}

}  // namespace
}  // namespace dsx
