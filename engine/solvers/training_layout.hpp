// Where the training solver's ranks sit (engine/solvers/training.hpp, rank_order, pods, etp): the 120
// orders of the tp, cp, ep, dp and pp groups, the strides they give each group in the dense and the
// expert grid, and the checks that a point's degrees divide the job, the model and the nodes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/solver.hpp"
#include "engine/torus.hpp"

namespace dsx::training {

// Rank orders, innermost first (engine/solvers/training.hpp, rank_order): Megatron-Core's default and
// --use-tp-pp-dp-mapping's order keep the indices 0 and 1 they always had; the other 118 orders of the
// five groups follow in lexicographic order of their group indices.
enum RankGroup : std::uint8_t { kTpGroup, kCpGroup, kEpGroup, kDpGroup, kPpGroup, kRankGroups };
inline constexpr std::size_t kRankOrderCount = 120;  // 5!
struct RankOrderTable {
  std::array<std::array<std::uint8_t, kRankGroups>, kRankOrderCount> groups{};
  std::array<std::array<char, 14>, kRankOrderCount> text{};
};
constexpr RankOrderTable make_rank_orders() {
  constexpr std::array<std::string_view, kRankGroups> names = {"tp", "cp", "ep", "dp", "pp"};
  RankOrderTable table;
  const std::array<std::uint8_t, kRankGroups> megatron = {0, 1, 2, 3, 4}, pipelines_inside = {0, 1, 2, 4, 3};
  table.groups[0] = megatron;
  table.groups[1] = pipelines_inside;
  std::size_t next = 2;
  std::array<std::uint8_t, kRankGroups> order = megatron;
  do {
    if (order != megatron && order != pipelines_inside) table.groups[next++] = order;
  } while (std::next_permutation(order.begin(), order.end()));
  for (std::size_t i = 0; i < kRankOrderCount; ++i) {
    for (std::size_t g = 0; g < kRankGroups; ++g) {
      table.text[i][3 * g] = names[table.groups[i][g]][0];
      table.text[i][3 * g + 1] = names[table.groups[i][g]][1];
      if (g + 1 < kRankGroups) table.text[i][3 * g + 2] = '-';
    }
  }
  return table;
}
inline constexpr RankOrderTable kRankOrderTable = make_rank_orders();
inline constexpr std::array<std::string_view, kRankOrderCount> kRankOrders = [] {
  std::array<std::string_view, kRankOrderCount> views{};
  for (std::size_t i = 0; i < kRankOrderCount; ++i) views[i] = std::string_view(kRankOrderTable.text[i].data(), 14);
  return views;
}();

// A design point's degrees and where its groups sit. Left unset, as the solver's hot path wants it:
// place_training_ranks sets every field of a point it places.
struct TrainingLayout {
  double gpus, tp, pp, cp, dp, micro_batch, microbatches;
  double chunks_per_stage, stage_layers;
  double ep, etp;  // etp: the experts' tensor-parallel degree (tp, or 1)
  double gpus_per_node, gpus_per_pod;
  bool multi_pod;  // the job spans pods
  // Ranks between neighbouring members of each group, in the dense grid and in the expert grid.
  std::array<double, kRankGroups> strides, expert_strides;
};

// The node's torus (engine/torus.hpp node_torus; count 0: a switched node), from the point's torus_x,
// torus_y and torus_z and its chip's accelerator link.
TorusTopology training_node_torus(const PointInputs& in);

// Checks the point's degrees against the job, the model and the nodes (on the node's `torus`) and
// places its groups in `at`; infeasible with TrainingSolver's reason, `at` then partly set.
PointResult place_training_ranks(const PointInputs& in, const TorusTopology& torus, TrainingLayout& at);

}  // namespace dsx::training
