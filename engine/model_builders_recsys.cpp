// Dense networks and recommendation models: a plain multilayer perceptron and DLRM.
// Conventions of model_builders.cpp apply (one Op per eager kernel, MACs = 2 FLOP, nn.Linear's bias
// in the GEMM epilogue, ReLU 1 and sigmoid 4 FLOP per element).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/builder_support.hpp"
#include "engine/model_families.hpp"
#include "engine/operators.hpp"

namespace dsx {

namespace {

using builders::check_arity;
using builders::count_param;
using builders::fail;
using builders::flag_param;
using builders::make_op;

// Linear (+ ReLU) layers through `widths`, starting from `in`; the last layer has no ReLU when
// `relu_last` is false. Returns the parameters.
double append_mlp(std::vector<Op>& ops, const std::string& prefix, double in, const std::vector<double>& widths,
                  bool relu_last) {
  double params = 0;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const double out = widths[i];
    const std::string p = prefix + std::to_string(i + 1);
    ops.push_back(make_op(p, OpKind::matmul, 2 * in * out, in, out, in * out + out, 1));
    params += in * out + out;
    if (relu_last || i + 1 < widths.size()) ops.push_back(make_op(p + "_relu", OpKind::elementwise, out, out, out, 0, 1));
    in = out;
  }
  return params;
}

// Widths of consecutive optional layers: stops at the first 0; a non-zero after a zero is an error.
std::vector<double> widths_of(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                              std::size_t first, std::size_t count) {
  std::vector<double> out;
  bool ended = false;
  for (std::size_t i = first; i < first + count; ++i) {
    const auto w = count_param(arch, specs, values, i, 0, 1e8);
    if (w == 0) {
      ended = true;
    } else if (ended) {
      fail(arch, std::string(specs[i].name) + " follows a layer of width 0");
    } else {
      out.push_back(static_cast<double>(w));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// mlp: a multilayer perceptron: inputs -> hidden1 -> ... -> hidden4 -> outputs, fully connected
// layers with biases, ReLU after each hidden layer, softmax over the outputs (one kernel). Hidden
// widths of 0 end the stack. A sample is one input vector. E.g. LeCun et al. 1998 (Gradient-Based
// Learning Applied to Document Recognition, section III.C): 784-300-100-10 on MNIST.
// ---------------------------------------------------------------------------------------------

enum MlpParam : std::size_t { p_inputs, p_hidden1, p_hidden2, p_hidden3, p_hidden4, p_outputs, p_count };

constexpr std::array<ArchParamSpec, p_count> kMlpParams = {{
    {.name = "inputs", .description = "input features"},
    {.name = "hidden1", .description = "width of hidden layer 1"},
    {.name = "hidden2", .description = "width of hidden layer 2; 0 = none", .has_default = true, .default_value = 0},
    {.name = "hidden3", .description = "width of hidden layer 3; 0 = none", .has_default = true, .default_value = 0},
    {.name = "hidden4", .description = "width of hidden layer 4; 0 = none", .has_default = true, .default_value = 0},
    {.name = "outputs", .description = "outputs (classes) of the last layer, followed by a softmax"},
}};

constexpr std::string_view kMlp = "mlp";

ModelGraph build_mlp(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kMlpParams;
  check_arity(kMlp, values, p_count);
  const auto inputs = count_param(kMlp, specs, values, p_inputs, 1, 1e9);
  if (count_param(kMlp, specs, values, p_hidden1, 1, 1e8) == 0) fail(kMlp, "hidden1 must be positive");
  std::vector<double> widths = widths_of(kMlp, specs, values, p_hidden1, 4);
  const double K = static_cast<double>(count_param(kMlp, specs, values, p_outputs, 1, 1e9));
  widths.push_back(K);
  ModelGraph g;
  g.sample_unit = "sample";
  g.parameter_count = append_mlp(g.ops, "fc", static_cast<double>(inputs), widths, false);
  g.ops.push_back(make_op("softmax", OpKind::reduction, 5 * K, K, K, 0, 1));
  return g;
}

// ---------------------------------------------------------------------------------------------
// dlrm: Deep Learning Recommendation Model (Naumov et al. 2019, arXiv:1906.00091, section 2 and
// Figure 1) as in torchrec (torchrec/models/dlrm.py) and the MLPerf Training recommendation
// benchmark (mlcommons/training, recommendation_v2/torchrec_dlrm). A sample is one user-item query:
// dense_features continuous features through the bottom MLP (Linear + ReLU per layer, ending at
// embedding_dim); `tables` categorical features, each a bag of lookups pooled (summed) from its
// embedding table (engine/operators.hpp embedding_bag: bytes-bound gathers, `lookups` rows per
// sample over all tables); then the feature interaction on F = tables + 1 vectors of
// embedding_dim e:
//  - interaction 0 (DLRM dot): concatenate, batched F x F dot products (2 F^2 e FLOPs), keep the
//    F (F - 1) / 2 pairs below the diagonal, concatenate with the dense vector: e + F (F - 1) / 2
//    features to the top MLP;
//  - interaction 1 (DCNv2, Wang et al. 2021, arXiv:2008.13535, eq. 1 with the low-rank W = U V of
//    section 5.1; torchrec LowRankCrossNet): x_0 of F e features, `cross_layers` layers
//    x_{l+1} = x_0 * (U (V x_l) + b) + x_l with V: F e -> r, U: r -> F e (two GEMMs and one
//    element-wise kernel, 2 F e r + F e parameters each); F e features to the top MLP.
// Top MLP: Linear + ReLU per listed width, a final Linear to 1 logit and a sigmoid.
// Parameters: embedding_rows x embedding_dim table entries (resident, not read in full) + MLPs +
// cross layers. MLPerf DLRM-DCNv2: 13 dense features, 26 tables of 204,184,588 rows in all
// (rows capped at 40M), dimension 128, 214 multi-hot lookups per sample, bottom 512-256-128,
// DCN 3 layers of rank 512, top 1024-1024-512-256-1.
// ---------------------------------------------------------------------------------------------

enum DlrmParam : std::size_t {
  d_dense, d_tables, d_dim, d_rows, d_lookups, d_bottom1, d_bottom2, d_bottom3, d_bottom4, d_top1, d_top2, d_top3,
  d_top4, d_interaction, d_cross_layers, d_cross_rank, d_count
};

constexpr std::array<ArchParamSpec, d_count> kDlrmParams = {{
    {.name = "dense_features", .description = "continuous input features (Criteo: 13)"},
    {.name = "tables", .description = "categorical features, one embedding table each (Criteo: 26)"},
    {.name = "embedding_dim", .description = "embedding dimension = the bottom MLP's last width"},
    {.name = "embedding_rows", .description = "rows of all embedding tables together"},
    {.name = "lookups", .description = "embedding rows gathered per sample over all tables (one-hot: = tables)"},
    {.name = "bottom1", .description = "bottom MLP layer 1 width"},
    {.name = "bottom2", .description = "bottom MLP layer 2 width; 0 = none", .has_default = true, .default_value = 0},
    {.name = "bottom3", .description = "bottom MLP layer 3 width; 0 = none", .has_default = true, .default_value = 0},
    {.name = "bottom4", .description = "bottom MLP layer 4 width; 0 = none", .has_default = true, .default_value = 0},
    {.name = "top1", .description = "top MLP layer 1 width (a final layer to 1 logit follows the listed ones)"},
    {.name = "top2", .description = "top MLP layer 2 width; 0 = none", .has_default = true, .default_value = 0},
    {.name = "top3", .description = "top MLP layer 3 width; 0 = none", .has_default = true, .default_value = 0},
    {.name = "top4", .description = "top MLP layer 4 width; 0 = none", .has_default = true, .default_value = 0},
    {.name = "interaction", .description = "0 = pairwise dot products (DLRM), 1 = low-rank DCNv2 cross network",
     .has_default = true, .default_value = 0},
    {.name = "cross_layers", .description = "DCNv2 cross layers (MLPerf: 3); needs interaction 1", .has_default = true,
     .default_value = 0},
    {.name = "cross_rank", .description = "DCNv2 low rank r (MLPerf: 512); needs interaction 1", .has_default = true,
     .default_value = 0},
}};

constexpr std::string_view kDlrm = "dlrm";

ModelGraph build_dlrm(std::span<const double> values) {
  const std::span<const ArchParamSpec> specs = kDlrmParams;
  check_arity(kDlrm, values, d_count);
  const double dense = static_cast<double>(count_param(kDlrm, specs, values, d_dense, 1, 1e6));
  const double tables = static_cast<double>(count_param(kDlrm, specs, values, d_tables, 1, 1e6));
  const double e = static_cast<double>(count_param(kDlrm, specs, values, d_dim, 1, 1e6));
  const double rows = static_cast<double>(count_param(kDlrm, specs, values, d_rows, 1, 1e13));
  const double lookups = static_cast<double>(count_param(kDlrm, specs, values, d_lookups, 1, 1e9));
  if (count_param(kDlrm, specs, values, d_bottom1, 1, 1e8) == 0 || count_param(kDlrm, specs, values, d_top1, 1, 1e8) == 0) {
    fail(kDlrm, "bottom1 and top1 must be positive");
  }
  const std::vector<double> bottom = widths_of(kDlrm, specs, values, d_bottom1, 4);
  std::vector<double> top = widths_of(kDlrm, specs, values, d_top1, 4);
  const bool dcn = flag_param(kDlrm, specs, values, d_interaction);
  const auto cross_layers = count_param(kDlrm, specs, values, d_cross_layers, 0, 1e3);
  const double rank = static_cast<double>(count_param(kDlrm, specs, values, d_cross_rank, 0, 1e8));
  if (bottom.back() != e) fail(kDlrm, "the bottom MLP must end at embedding_dim");
  if (lookups < tables) fail(kDlrm, "lookups must be at least tables (one row per table)");
  if (rows < tables) fail(kDlrm, "embedding_rows must be at least tables");
  if (dcn != (cross_layers > 0) || dcn != (rank > 0)) {
    fail(kDlrm, "interaction 1 needs cross_layers and cross_rank > 0; interaction 0 needs both 0");
  }

  ModelGraph g;
  g.sample_unit = "sample";
  auto& ops = g.ops;
  double params = append_mlp(ops, "bottom_mlp", dense, bottom, true);
  ops.push_back(embedding_bag("embedding_bag", tables, lookups / tables, e, 1));
  params += rows * e;
  const double F = tables + 1;
  ops.push_back(make_op("interaction_concat", OpKind::memory, 0, F * e, F * e, 0, 1));
  double top_in = 0;
  if (!dcn) {
    ops.push_back(make_op("interaction_dot", OpKind::matmul, 2 * F * F * e, F * e, F * F, 0, 1));
    top_in = e + F * (F - 1) / 2;
    ops.push_back(make_op("interaction_gather_concat", OpKind::memory, 0, F * F + e, top_in, 0, 1));
  } else {
    const double x = F * e;
    const auto r = builders::as_repeat(cross_layers);
    ops.push_back(make_op("cross_v", OpKind::matmul, 2 * x * rank, x, rank, x * rank, r));
    ops.push_back(make_op("cross_u", OpKind::matmul, 2 * rank * x, rank, x, rank * x + x, r));
    ops.push_back(make_op("cross_combine", OpKind::elementwise, 2 * x, 3 * x, x, 0, r));
    params += static_cast<double>(cross_layers) * (2 * x * rank + x);
    top_in = x;
  }
  top.push_back(1);
  params += append_mlp(ops, "top_mlp", top_in, top, false);
  ops.push_back(make_op("sigmoid", OpKind::elementwise, 4, 1, 1, 0, 1));
  g.parameter_count = params;
  return g;
}

}  // namespace

Architecture mlp_architecture() {
  return {.name = kMlp,
          .description = "multilayer perceptron: up to four ReLU hidden layers and a softmax output",
          .sample_unit = "sample",
          .params = kMlpParams,
          .build = &build_mlp};
}

Architecture dlrm_architecture() {
  return {.name = kDlrm,
          .description = "DLRM recommendation model: bottom/top MLPs, pooled embedding bags, dot or DCNv2 interaction",
          .sample_unit = "sample",
          .params = kDlrmParams,
          .build = &build_dlrm};
}

}  // namespace dsx
