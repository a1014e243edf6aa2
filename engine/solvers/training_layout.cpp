#include "engine/solvers/training_layout.hpp"

#include <cmath>

#include "engine/parallelism.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/training.hpp"
#include "engine/solvers/training_stages.hpp"

namespace dsx::training {

namespace {

// Ranks between neighbouring members of each group (the product of the degrees of the groups inside
// it) under `order`, for the group degrees `degree` (indexed by RankGroup).
// `order` names every group once, so every stride is set.
void set_rank_strides(const std::array<std::uint8_t, kRankGroups>& order, const std::array<double, kRankGroups>& degree,
                      std::array<double, kRankGroups>& stride) {
  double inside = 1;
  for (const std::uint8_t g : order) {
    stride[g] = inside;
    inside *= degree[g];
  }
}

PointResult refused(std::uint8_t reason) { return {PointStatus::infeasible, reason}; }

}  // namespace

TorusTopology training_node_torus(const PointInputs& in) {
  using Param = TrainingSolver::Param;
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  return node_torus(v[Param::torus_x], v[Param::torus_y], v[Param::torus_z],
                    hw.accelerator_link_bandwidth_bytes_per_s > 0 ? hw.accelerator_link_bandwidth_bytes_per_s
                                                                  : hw.host_link_bandwidth_bytes_per_s);
}

PointResult place_training_ranks(const PointInputs& in, const TorusTopology& torus, TrainingLayout& at) {
  using Param = TrainingSolver::Param;
  using enum TrainingSolver::Reason;
  const auto& v = in.values;
  const ServingShape& shape = in.model->serving_shape;
  const double n = v[Param::gpus], t = v[Param::tp], p = v[Param::pp], b = v[Param::micro_batch];
  const double cp = v[Param::cp];
  const double dp = data_parallel_degree(n, t, p * cp);
  if (dp == 0) return refused(cp > 1 ? tp_pp_cp_do_not_divide_gpus : tp_pp_do_not_divide_gpus);
  const double node = v[Param::gpus_per_node];
  if (std::fmod(t > node ? t : node, t > node ? node : t) != 0) return refused(tp_and_node_do_not_nest);
  if (torus.count > 0 && torus_chips(torus) != node) return refused(torus_is_not_the_node);
  const double tc = t * cp;
  if (cp > 1 && std::fmod(tc > node ? tc : node, tc > node ? node : tc) != 0) {
    return refused(tp_cp_and_node_do_not_nest);
  }
  if (std::fmod(shape.heads, t) != 0) return refused(tp_must_divide_heads);
  if (cp > 1 && shape.recurrent_layers > 0) return refused(cp_needs_attention_only);
  if (!recurrent_tp_divides(shape, t)) {
    return refused(tp_must_divide_recurrent_channels);
  }
  if (cp > 1 && std::fmod(shape.built_seq_len, 2 * cp) != 0) return refused(cp_must_divide_sequence);
  const double chunks_per_stage = v[Param::virtual_stages];
  if (p * chunks_per_stage > shape.layers) return refused(pp_exceeds_layers);
  const double m = v[Param::global_batch] / (dp * b);
  if (m < 1 || m != std::floor(m)) return refused(batch_not_divisible);
  if (chunks_per_stage > 1 && std::fmod(m, p) != 0) return refused(interleave_needs_microbatches);
  const double stage_layers = busiest_stage_layers(shape.layers, p, chunks_per_stage);
  const double e = v[Param::ep];
  if (e > 1 && shape.experts <= 0) return refused(ep_needs_moe);
  // etp 1 (torchtitan): whole experts, the EP group of ep ranks holds the tp ranks and ep / tp of dp.
  const bool etp_one = e > 1 && v[Param::etp] == 1;
  const double etp_degree = etp_one ? 1.0 : t;
  if (etp_one) {
    if (std::fmod(e, t) != 0 || std::fmod(dp, e / t) != 0) return refused(etp_one_needs_tp_inside_ep);
  } else if (std::fmod(dp, e) != 0) {
    return refused(ep_must_divide_dp);
  }
  if (e > 1 && std::fmod(shape.experts, e) != 0) return refused(ep_must_divide_experts);
  if (e > 1 && t > 1 && v[Param::sequence_parallel] != 1) return refused(ep_tp_needs_sequence_parallel);
  // Where each group sits: its members' stride in rank order, in the grid of the dense layers (no EP)
  // and in Megatron-Core's expert grid (the same order, no CP, etp in the tp slot, dp x cp x tp / (etp x ep)
  // expert-DP ranks).
  const auto& order = kRankOrderTable.groups[static_cast<std::size_t>(v[Param::rank_order])];
  std::array<double, kRankGroups>& strides = at.strides;
  std::array<double, kRankGroups>& expert_strides = at.expert_strides;
  set_rank_strides(order, {t, cp, 1.0, dp, p}, strides);
  set_rank_strides(order, {etp_degree, 1.0, e, dp * cp * t / (etp_degree * e), p}, expert_strides);
  // A node holds whole blocks of the innermost groups, or a block spans whole nodes: every product
  // of the innermost degrees below the job nests with the node. Megatron-Core's two orders keep the
  // checks they always had (tp and tp x cp nest) and place a block that straddles nodes by the whole
  // blocks a node holds, as before.
  const bool megatron_order = v[Param::rank_order] < 2;
  for (const auto* grid : {&strides, &expert_strides}) {
    if (megatron_order || n <= node) break;
    for (const double inside : *grid) {
      if (inside < n && std::fmod(inside > node ? inside : node, inside > node ? node : inside) != 0) {
        return refused(rank_order_does_not_nest);
      }
    }
  }
  // A third tier (engine/solvers/training.hpp, pods): pods of whole nodes that hold whole blocks.
  const double pod = v[Param::gpus_per_pod];
  const bool multi_pod = pod > 0 && n > pod;
  if (multi_pod) {
    if (std::fmod(pod, node) != 0) return refused(pod_does_not_nest);
    for (const auto* grid : {&strides, &expert_strides}) {
      for (const double inside : *grid) {
        if (inside < n && std::fmod(inside > pod ? inside : pod, inside > pod ? pod : inside) != 0) {
          return refused(pod_does_not_nest);
        }
      }
    }
    if (!(v[Param::dcn_bandwidth] > 0) || !(v[Param::dcn_latency] > 0)) return refused(pods_need_dcn);
  }
  at.gpus = n;
  at.tp = t;
  at.pp = p;
  at.cp = cp;
  at.dp = dp;
  at.micro_batch = b;
  at.microbatches = m;
  at.chunks_per_stage = chunks_per_stage;
  at.stage_layers = stage_layers;
  at.ep = e;
  at.etp = etp_degree;
  at.gpus_per_node = node;
  at.gpus_per_pod = pod;
  at.multi_pod = multi_pod;
  return {};
}

}  // namespace dsx::training
