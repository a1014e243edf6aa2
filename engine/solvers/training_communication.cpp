#include "engine/solvers/training_communication.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "engine/collectives.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/training.hpp"
#include "engine/torus.hpp"

namespace dsx::training {

namespace {

using RingCollective = double (*)(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s);
using TorusCollective = double (*)(double bytes, const TorusTopology& group, double alpha_s);

}  // namespace

PointResult price_training_communication(const PointInputs& in, const TrainingLayout& at, const TorusTopology& torus,
                                         const TrainingVolumes& volumes, StepInput& step) {
  using Param = TrainingSolver::Param;
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const ServingShape& shape = in.model->serving_shape;
  const double n = at.gpus, t = at.tp, p = at.pp, cp = at.cp, dp = at.dp, b = at.micro_batch, e = at.ep;
  const double etp_degree = at.etp, node = at.gpus_per_node, pod = at.gpus_per_pod;
  const bool multi_pod = at.multi_pod, on_torus = torus.count > 0;
  const auto& strides = at.strides;
  const auto& expert_strides = at.expert_strides;
  const double s = shape.built_seq_len, h = shape.d_model, params = shape.parameter_count;
  const double element_bytes = volumes.element_bytes, activation_message = volumes.activation_message_bytes;
  const double adapters = volumes.adapters;
  const bool lora = volumes.lora;
  const int zero = volumes.zero_stage;
  const double nvlink = hw.accelerator_link_bandwidth_bytes_per_s > 0 ? hw.accelerator_link_bandwidth_bytes_per_s
                                                                      : hw.host_link_bandwidth_bytes_per_s;
  const double nic = v[Param::fabric_bandwidth] / v[Param::oversubscription];
  const double fabric_alpha = v[Param::fabric_latency];
  // Gradients are reduced over the dp x cp ranks that hold the same weights, tp apart in rank order
  // (Megatron-Core's order tp-cp-ep-dp-pp). With pp inside dp (tp-cp-ep-pp-dp) the cp ranks stay tp
  // apart and the dp ranks are tp x cp x pp apart: a node holds its cp ranks and as many dp ranks as
  // whole tp x cp x pp blocks fit in it.
  const double dp_group = dp * cp;
  const auto in_node = [node](double stride_ranks, double ranks) {
    return std::min(ranks, std::max(1.0, std::floor(node / stride_ranks)));
  };
  const double cp_in_node_ranks = in_node(strides[kCpGroup], cp), dp_in_node_ranks = in_node(strides[kDpGroup], dp);
  const double dp_in_node = cp_in_node_ranks * dp_in_node_ranks;
  // Across pods: a pod holds its share of the DP x CP ranks (as a node does), and the 2D all-reduce
  // runs over the pods (engine/collectives.hpp cross_pod_all_reduce_s).
  const auto in_pod = [pod](double stride_ranks, double ranks) {
    return std::min(ranks, std::max(1.0, std::floor(pod / stride_ranks)));
  };
  const double dp_in_pod = multi_pod ? in_pod(strides[kCpGroup], cp) * in_pod(strides[kDpGroup], dp) : dp_group;
  const double dcn = v[Param::dcn_bandwidth], dcn_alpha = v[Param::dcn_latency];
  HierarchicalFabric fabric;
  fabric.gpus_per_node = dp_in_node;
  fabric.intra_bandwidth_bytes_per_s = nvlink;
  fabric.intra_alpha_s = kNvlinkAlphaS;
  fabric.nic_bandwidth_bytes_per_s = nic;
  fabric.nics_per_node = dp_in_node;  // one NIC per GPU
  fabric.inter_alpha_s = fabric_alpha;
  const double expert_params = shape.expert_weight_elements;
  // This GPU's share of its stage's dense and expert weights: a hybrid's stage its own (the slowest
  // stage's gradients bound the step), otherwise 1 / pp of the model's.
  const bool own_stage = volumes.stage_parameters >= 0;
  const double stage_dense_per_gpu = own_stage ? (volumes.stage_parameters - volumes.stage_expert_parameters) / t
                                               : (params - expert_params) / (t * p);
  const double stage_experts_per_gpu = own_stage ? volumes.stage_expert_parameters / (etp_degree * e)
                                                 : expert_params / (etp_degree * p * e);
  // LoRA reduces the adapters' gradients only, all counted with the dense ones.
  const double dense_gradient_bytes = (lora ? adapters / (t * p) : stage_dense_per_gpu) * element_bytes;
  const double expert_gradient_bytes = lora ? 0.0 : stage_experts_per_gpu * element_bytes;
  const double dp_volume = zero >= 3 ? 1.5 : 1.0;
  // Expert gradients are reduced over the dp x cp x tp / (etp x ep) expert-DP ranks, the expert grid's DP
  // group (etp x ep apart in Megatron-Core's default order, etp x ep x pp with pp inside dp).
  const double expert_dp = dp_group * t / (etp_degree * e);
  const double expert_stride = expert_strides[kDpGroup];
  const double expert_dp_in_node = in_node(expert_stride, expert_dp);
  const HierarchicalFabric expert_fabric = {.gpus_per_node = expert_dp_in_node,
                                            .intra_bandwidth_bytes_per_s = nvlink,
                                            .intra_alpha_s = kNvlinkAlphaS,
                                            .nic_bandwidth_bytes_per_s = nic,
                                            .nics_per_node = expert_dp_in_node,
                                            .inter_alpha_s = fabric_alpha};
  const TorusTopology expert_torus =
      on_torus ? torus_strided_group(torus, expert_stride, expert_fabric.gpus_per_node) : TorusTopology{};
  const double expert_dp_in_pod = multi_pod ? in_pod(expert_stride, expert_dp) : expert_dp;
  const auto expert_all_reduce_s = [&](double bytes) {
    const double nodes = expert_dp_in_pod / expert_fabric.gpus_per_node;
    const double in_pod_s = on_torus ? torus_hierarchical_all_reduce_s(bytes, nodes, expert_torus, expert_fabric)
                                     : hierarchical_all_reduce_s(bytes, nodes, expert_fabric);
    return expert_dp_in_pod < expert_dp
               ? cross_pod_all_reduce_s(in_pod_s, bytes, expert_dp_in_pod, expert_dp / expert_dp_in_pod, dcn, dcn_alpha)
               : in_pod_s;
  };
  const double expert_dp_s = expert_gradient_bytes > 0 ? expert_all_reduce_s(expert_gradient_bytes) : 0.0;
  const bool ep_in_node = expert_strides[kEpGroup] * e <= node;
  const double dispatch_bytes = b * s * shape.experts_per_token * h * element_bytes / t / cp;
  // Ring attention: cp - 1 steps, each passing one rank's K and V chunk (b s / cp tokens of this TP
  // rank's KV heads; a GQA model with fewer KV heads than tp keeps one per rank). On a torus node
  // each step crosses the faces between neighbouring blocks of the ranks inside CP (TP blocks in
  // Megatron-Core's orders; engine/torus.hpp torus_block_hop_s).
  const bool cp_in_node = strides[kCpGroup] * cp <= node;
  const double kv_elements_per_layer = shape.kv_elements_per_token / shape.attention_layers;
  const double kv_chunk_bytes = b * s / cp * kv_elements_per_layer / std::min(t, std::max(1.0, shape.kv_heads)) *
                                element_bytes;
  // The all-gather form (Llama 3) gathers the cp chunks at once: on a switched node or the NICs a ring
  // all-gather, on a torus node the bidirectional rings of the strided group of the cp ranks.
  const bool cp_all_gather = v[Param::cp_comm] == 1;
  const double cp_exchange_s =
      !(cp > 1) ? 0.0
      : cp_all_gather
          ? (cp_in_node && on_torus
                 ? torus_all_gather_s(cp * kv_chunk_bytes, torus_strided_group(torus, strides[kCpGroup], cp), kNvlinkAlphaS)
                 : all_gather_s(cp * kv_chunk_bytes, cp, cp_in_node ? nvlink : nic, cp_in_node ? kNvlinkAlphaS : fabric_alpha))
      : cp_in_node && on_torus ? (cp - 1) * torus_block_hop_s(kv_chunk_bytes, torus, strides[kCpGroup], cp, kNvlinkAlphaS)
                               : (cp - 1) * point_to_point_s(kv_chunk_bytes, cp_in_node ? nvlink : nic,
                                                             cp_in_node ? kNvlinkAlphaS : fabric_alpha);
  step.cp_kv_exchange_s = cp_exchange_s;
  step.cp_all_gather = cp_all_gather;
  // A TP group larger than a node rings through the NICs, whose hops are its slowest links.
  // So does one whose ranks (strides[tp] apart) span more than a node. Inside a torus node a TP group
  // of consecutive ranks is a block, a strided one the peers of the blocks inside it.
  // A group spanning pods is paced by its hops across them, on the data-centre network.
  const auto over_group = [&](double bytes, double stride, double ranks, RingCollective ring, TorusCollective on_ring) {
    return multi_pod && stride * ranks > pod ? ring(bytes, ranks, dcn, dcn_alpha)
           : stride * ranks > node           ? ring(bytes, ranks, nic, fabric_alpha)
           : on_torus ? on_ring(bytes, stride == 1 ? torus_group(torus, ranks) : torus_strided_group(torus, stride, ranks),
                                kNvlinkAlphaS)
                      : ring(bytes, ranks, nvlink, kNvlinkAlphaS);
  };
  const double tp_stride = strides[kTpGroup];
  step.tp_all_reduce_s = over_group(activation_message, tp_stride, t, ring_all_reduce_s, torus_all_reduce_s);
  // A pipeline spans strides[pp] x pp ranks: in one node when such blocks tile it (or the whole job
  // is one node). Megatron-Core's default puts the stages outermost, so they share a node only when
  // the job does; with pp inside dp a pipeline is a block of tp x cp x pp consecutive ranks.
  const double pipeline_block = strides[kPpGroup] * p;
  const bool pp_in_node = n <= node || (pipeline_block <= node && std::fmod(node, pipeline_block) == 0);
  // On a torus node the stages are neighbouring blocks of strides[pp] chips (tp x cp x dp in the
  // default order, tp x cp with pp inside dp) and each transfer crosses the faces between them
  // (engine/torus.hpp torus_block_hop_s).
  const double stage_chips = strides[kPpGroup];
  step.pp_p2p_s = !pp_in_node ? point_to_point_s(activation_message / t, nic, fabric_alpha)
                  : on_torus  ? torus_block_hop_s(activation_message / t, torus, stage_chips, p, kNvlinkAlphaS)
                              : point_to_point_s(activation_message / t, nvlink, kNvlinkAlphaS);
  const double dp_nodes = dp_in_pod / dp_in_node;
  // On a torus node the in-node DP x CP ranks are one strided group when their cp and dp ranks are
  // adjacent in rank order or only one of the two has more than one rank in the node (the peers of
  // the TP blocks, tp apart, in Megatron-Core's default); otherwise (pp inside dp: the cp ranks tp
  // apart, the dp ranks tp x cp x pp apart) they are the product of two strided groups, reduced as
  // one schedule over both (engine/torus.hpp torus_product_reduce_scatter_s).
  const double cp_stride = strides[kCpGroup], dp_stride = strides[kDpGroup];
  const bool dp_one_group = cp_in_node_ranks == 1 || dp_in_node_ranks == 1 || dp_stride == cp_stride * cp ||
                            cp_stride == dp_stride * dp;
  const bool cp_inside_dp = cp_stride < dp_stride;
  const double dp_inner_stride =
      cp_in_node_ranks == 1 ? dp_stride : dp_in_node_ranks == 1 ? cp_stride : std::min(cp_stride, dp_stride);
  const double dp_inner_ranks = dp_one_group ? dp_in_node : cp_inside_dp ? cp_in_node_ranks : dp_in_node_ranks;
  const TorusTopology dp_torus =
      on_torus ? torus_strided_group(torus, dp_inner_stride, dp_inner_ranks) : TorusTopology{};
  const double dp_outer_stride = std::max(cp_stride, dp_stride);
  const TorusTopology dp_outer_torus = on_torus && !dp_one_group
                                           ? torus_strided_group(torus, dp_outer_stride, dp_in_node / dp_inner_ranks)
                                           : TorusTopology{};
  const auto dp_all_reduce_s = [&](double bytes) {
    const double in_pod_s =
        !on_torus      ? hierarchical_all_reduce_s(bytes, dp_nodes, fabric)
        : dp_one_group ? torus_hierarchical_all_reduce_s(bytes, dp_nodes, dp_torus, fabric)
                       : torus_hierarchical_all_reduce_s(bytes, dp_nodes, dp_torus, dp_outer_torus, fabric);
    return dp_in_pod < dp_group ? cross_pod_all_reduce_s(in_pod_s, bytes, dp_in_pod, dp_group / dp_in_pod, dcn, dcn_alpha)
                                : in_pod_s;
  };
  if (lora && zero >= 3) {
    // The adapters' gradients are reduce-scattered (half an all-reduce) and every weight, frozen base
    // included, is all-gathered for the forward and again for the backward (one all-reduce's volume;
    // Rajbhandari et al. 2020 section 7, with gradients and weights of different sizes).
    const double weight_bytes = stage_dense_per_gpu * volumes.base_weight_bytes_per_param + adapters / (t * p) * element_bytes;
    const double expert_weight_bytes = stage_experts_per_gpu * volumes.base_weight_bytes_per_param;
    step.dp_all_reduce_s =
        0.5 * dp_all_reduce_s(dense_gradient_bytes) + dp_all_reduce_s(weight_bytes) +
        (expert_weight_bytes > 0 ? expert_all_reduce_s(expert_weight_bytes) : 0.0);
  } else {
    step.dp_all_reduce_s = dp_volume * (dp_all_reduce_s(dense_gradient_bytes) + expert_dp_s);
  }
  step.expert_parallel = e;
  step.moe_layers = shape.moe_layers;
  const TorusTopology ep_torus =
      e > 1 && ep_in_node && on_torus ? torus_strided_group(torus, expert_strides[kEpGroup], e) : TorusTopology{};
  step.ep_all_to_all_s = e <= 1                     ? 0.0
                         : ep_in_node && on_torus ? torus_all_to_all_s(dispatch_bytes, ep_torus, kNvlinkAlphaS)
                                                  : all_to_all_s(dispatch_bytes, e, ep_in_node ? nvlink : nic,
                                                                 ep_in_node ? kNvlinkAlphaS : fabric_alpha);
  if (multi_pod) {
    // A group spanning pods is paced by its hops across them, on the data-centre network.
    if (pipeline_block > pod) step.pp_p2p_s = point_to_point_s(activation_message / t, dcn, dcn_alpha);
    if (cp > 1 && strides[kCpGroup] * cp > pod) {
      step.cp_kv_exchange_s = (cp - 1) * point_to_point_s(kv_chunk_bytes, dcn, dcn_alpha);
    }
    if (e > 1 && expert_strides[kEpGroup] * e > pod) step.ep_all_to_all_s = all_to_all_s(dispatch_bytes, e, dcn, dcn_alpha);
  }
  if (e > 1 && !ep_in_node && v[Param::ep_all_to_all] == 1) {
    // Tutel's 2DH all-to-all (engine/collectives.hpp): the EP ranks a node holds exchange on NVLink (on
    // the torus, their strided group), then the nodes of a pod on the NIC, then the pods on the DCN.
    const double ep_stride = expert_strides[kEpGroup];
    const double ep_per_node = in_node(ep_stride, e);
    const double ep_per_pod = multi_pod ? in_pod(ep_stride, e) : e;
    if (std::fmod(e, ep_per_pod) != 0 || std::fmod(ep_per_pod, ep_per_node) != 0) {
      return {PointStatus::infeasible, TrainingSolver::hierarchical_all_to_all_uneven};
    }
    const double node_stage_s =
        ep_per_node <= 1 ? 0.0
        : on_torus       ? torus_all_to_all_s(dispatch_bytes, torus_strided_group(torus, ep_stride, ep_per_node), kNvlinkAlphaS)
                         : all_to_all_s(dispatch_bytes, ep_per_node, nvlink, kNvlinkAlphaS);
    const std::array<AllToAllTier, 2> outer = {{{.ranks = ep_per_pod / ep_per_node, .bandwidth_bytes_per_s = nic,
                                                 .alpha_s = fabric_alpha},
                                                {.ranks = e / ep_per_pod, .bandwidth_bytes_per_s = dcn, .alpha_s = dcn_alpha}}};
    const TokenRouting routing = {.experts_per_token = shape.experts_per_token,
                                  .max_nodes_per_token = v[Param::max_nodes_per_token]};
    step.ep_all_to_all_s = node_stage_s + hierarchical_all_to_all_s(dispatch_bytes, outer, routing);
  }
  if (e > 1 && etp_degree > 1) {
    // Megatron-Core's alltoall dispatcher with expert TP: each rank all-gathers the tokens its EP peers
    // sent it (dispatch_bytes on average) over the expert-TP group, t x dispatch_bytes gathered, and
    // reduce-scatters the experts' partial outputs back (moe/token_dispatcher.py: "permute->A2A(EP)->
    // AG(TP)", "RS(TP)->A2A(EP)->unpermute"); the group sits at the expert grid's tp stride.
    const double gathered = t * dispatch_bytes, etp_stride = expert_strides[kTpGroup];
    step.moe_tp_gather_scatter_s = over_group(gathered, etp_stride, t, all_gather_s, torus_all_gather_s) +
                                   over_group(gathered, etp_stride, t, reduce_scatter_s, torus_reduce_scatter_s);
  }
  if (shape.recurrent_layers > 0 && t > 1) {
    // Every layer's mixer (attention or Mamba) ends in one d-wide all-reduce and each feed-forward in
    // another; a Mamba-1 mixer adds one of x_proj's dt_rank + 2 d_state outputs, a Mamba-2 mixer none
    // (engine/parallelism.hpp).
    step.tp_forward_calls_per_layer = (shape.layers + std::min(shape.feed_forward_layers, shape.layers)) / shape.layers;
    step.tp_narrow_forward_calls_per_layer = (shape.recurrent_layers - shape.ssd_layers) / shape.layers;
    const double narrow_message = activation_message * shape.recurrent_x_proj_width / h;
    step.tp_narrow_all_reduce_s = over_group(narrow_message, tp_stride, t, ring_all_reduce_s, torus_all_reduce_s);
  }
  return {};
}

}  // namespace dsx::training
