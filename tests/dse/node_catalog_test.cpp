// The shipped node catalog (studies/catalog/nodes.yaml): every entry loads and states its size
// (gpus_per_node), and a node larger than 8 accelerators keeps the training solver's TP and EP groups
// on its scale-up domain (engine/solvers/training.hpp: TP on NVLink while tp x cp <= gpus_per_node,
// the MoE all-to-all while tp x ep <= gpus_per_node, the data-parallel peers inside a node on NVLink).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "dse/bundles.hpp"
#include "dse/catalog.hpp"
#include "tests/dse/shipped_catalog.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/training.hpp"

namespace dsx {
namespace {

const std::string& kCatalog = kShippedCatalogDir;

using P = TrainingSolver::Param;

const Catalog& catalog() { return shipped_catalog(); }

// Each node's size as its source states it: 8 per DGX/HGX server, AMD platform or TPU v5e host;
// 72 GPUs in a GB200 NVL72 rack; 64 Trainium2 chips in a Trn2 UltraServer, 16 in a trn2.48xlarge;
// 256 chips in a TPU v5e or v6e pod; 64 in a TPU v5p cube; 128 in a 4 x 4 x 8 TPU v4 slice.
const std::map<std::string, double>& node_sizes() {
  static const std::map<std::string, double> sizes = {
      {"dgx_a100", 8},         {"dgx_h100", 8},         {"dgx_h200", 8},          {"dgx_b200", 8},
      {"mi300x_platform", 8},  {"mi325x_platform", 8},  {"mi355x_platform", 8},   {"tpu_v5e_host", 8},
      {"gb200_nvl72", 72},     {"trn2_ultraserver", 64}, {"tpu_v6e_pod", 256},   {"tpu_v5e_pod", 256},
      {"tpu_v5p_cube", 64},    {"trn2_48xlarge", 16},    {"tpu_v4_slice", 128},
  };
  return sizes;
}

TEST(NodeCatalog, EveryNodeLoadsAndStatesItsSize) {
  std::vector<std::string> ids;
  for (const CatalogBundle& b : catalog().bundles) {
    if (b.kind == "node") ids.push_back(b.id);
  }
  std::vector<std::string> expected;
  for (const auto& [id, size] : node_sizes()) expected.push_back(id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, expected) << "add the new node's size to node_sizes()";

  const Solver& training = *find_solver("training");
  for (const auto& [id, size] : node_sizes()) {
    const CatalogBundle* node = catalog().find_bundle("node", id);
    ASSERT_NE(node, nullptr) << id;
    EXPECT_FALSE(node->source.empty()) << id;
    std::string problem;
    const auto settings = bundle_settings(*node, training, catalog(), problem);
    ASSERT_TRUE(settings) << id << ": " << problem;
    double gpus_per_node = 0;
    for (const BundleSetting& s : *settings) {
      if (s.param == static_cast<std::size_t>(P::gpus_per_node)) gpus_per_node = s.value;
    }
    EXPECT_EQ(gpus_per_node, size) << id;
  }
}

// The first point of a training study on `gpus` GPUs with tensor parallelism `tp` and `rest` (the
// node, the model and what else it fixes).
struct TrainingPoint {
  std::vector<double> metrics;
  PointStatus status = PointStatus::error;
  std::string reason;
  double gpus_per_node = 0;
};

TrainingPoint train(int tp, const std::string& rest) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml",
                                     "study: t\ntitle: T\nquestion: Q?\nsolver: training\n"
                                     "axes:\n  tp: [" +
                                         std::to_string(tp) + "]\nfixed:\n  gpus: 576\n" + rest,
                                     kCatalog, d);
  EXPECT_TRUE(study) << d.format();
  TrainingPoint out;
  if (!study) return out;
  const Grid grid(*study);
  PointInputs in;
  grid.inputs(0, in);
  out.gpus_per_node = in.values[P::gpus_per_node];
  // The solver needs a purchase price for its cost metrics; gb200 has none in the catalog, so every
  // node evaluates the same test price (placement, not cost, is under test).
  HardwareSpec priced = *in.hardware;
  priced.price_usd = 40000;
  in.hardware = &priced;
  out.metrics.assign(study->solver->metrics().size(), 0.0);
  const PointResult r = study->solver->evaluate(in, out.metrics);
  out.status = r.status;
  if (r.status == PointStatus::infeasible) out.reason = std::string(study->solver->reasons()[r.reason]);
  return out;
}

// Mixtral 8x7B (8 experts, 32 heads) on 576 GPUs with tp 8 and ep 8: the 64-GPU TP x EP group fits
// the NVL72's 72-GPU NVLink domain but spans eight DGX B200 servers. Both nodes have NVLink 5 at
// 900 GB/s one-way per GPU and 400 Gb/s (50 GB/s) NICs, so only the placement differs.
TrainingPoint mixtral_on(const std::string& node) {
  return train(8, node +
                      "  model: mixtral_8x7b\n  pp: 1\n  ep: 8\n  sequence_parallel: on\n  zero_stage: 1\n"
                      "  global_batch: 576\n");
}

std::size_t metric(const char* name) {
  const auto metrics = find_solver("training")->metrics();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (metrics[m].name == name) return m;
  }
  ADD_FAILURE() << "no training metric " << name;
  return 0;
}

TEST(NodeCatalog, Nvl72KeepsTpAndEpGroupsInsideItsNvlinkDomain) {
  const TrainingPoint nvl72 = mixtral_on("  node: gb200_nvl72\n  fabric_bandwidth: 400 Gb/s\n");
  const TrainingPoint dgx = mixtral_on("  node: dgx_b200\n");
  ASSERT_EQ(nvl72.status, PointStatus::ok) << nvl72.reason;
  ASSERT_EQ(dgx.status, PointStatus::ok) << dgx.reason;
  EXPECT_EQ(nvl72.gpus_per_node, 72);
  EXPECT_EQ(dgx.gpus_per_node, 8);
  // TP 8 fits either node: the same all-reduces on the same 900 GB/s NVLink 5.
  EXPECT_GT(nvl72.metrics[metric("tp_comm_s")], 0);
  EXPECT_NEAR(nvl72.metrics[metric("tp_comm_s")], dgx.metrics[metric("tp_comm_s")],
              1e-9 * dgx.metrics[metric("tp_comm_s")]);
  // TP x EP = 64: the all-to-all on NVLink inside the rack, on the 50 GB/s NICs across DGX servers;
  // bandwidth-bound at this size, so it differs by nearly 900 / 50 = 18. Both also pay the same
  // expert-TP all-gathers and reduce-scatters inside the node (Megatron-Core's dispatcher under etp
  // tp), which narrow the ratio of the two ep_comm_s (3.3 at this commit).
  const double ep_nvl72 = nvl72.metrics[metric("ep_comm_s")];
  const double ep_dgx = dgx.metrics[metric("ep_comm_s")];
  ASSERT_GT(ep_nvl72, 0);
  EXPECT_GT(ep_dgx / ep_nvl72, 2.5);
  EXPECT_LT(ep_dgx / ep_nvl72, 18.5);
}

TEST(NodeCatalog, ATpGroupThatDoesNotTileTheRackIsInfeasible) {
  // 72 = 8 x 9: tp 16 neither divides nor is a multiple of the rack, so TP groups cannot tile it;
  // on 8-GPU servers the same tp spans two whole nodes.
  const std::string model = "  model: llama3_70b\n";
  const TrainingPoint nvl72 = train(16, "  node: gb200_nvl72\n  fabric_bandwidth: 400 Gb/s\n" + model);
  EXPECT_EQ(nvl72.status, PointStatus::infeasible);
  EXPECT_NE(nvl72.reason.find("gpus_per_node must nest"), std::string::npos) << nvl72.reason;
  const TrainingPoint dgx = train(16, "  node: dgx_b200\n" + model);
  EXPECT_TRUE(dgx.reason.find("nest") == std::string::npos) << dgx.reason;
}

}  // namespace
}  // namespace dsx
