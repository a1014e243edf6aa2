// Alpha-beta costs of collective operations (Hockney's model): a message of S bytes over a link of
// ONE-WAY bandwidth B with per-step latency alpha costs alpha + S / B. NVLink 4 on H100 is 900 GB/s
// bidirectional = 450 GB/s per direction; feeding the bidirectional figure halves every time
// (mlsysim's section 6.7 bug). Local reduction compute is ignored.
//
// Sources: Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication Operations in
// MPICH", IJHPCA 2005 (ring/pairwise all-gather, reduce-scatter, all-to-all, binomial-tree reduce
// and broadcast); Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
// workstations", JPDC 2009 (ring all-reduce = reduce-scatter + all-gather, bandwidth optimal).
//   ring all-reduce:      2 (N-1)/N S/B + 2 (N-1) alpha
//   reduce-scatter:       (N-1)/N S/B + (N-1) alpha       (S = the full, unscattered buffer)
//   all-gather:           (N-1)/N S/B + (N-1) alpha       (S = the full, gathered buffer)
//   all-to-all:           (N-1)/N S/B + (N-1) alpha       (pairwise exchange; S = one rank's buffer)
//   tree all-reduce:      2 ceil(log2 N) (alpha + S/B)    (binomial reduce + broadcast, Thakur 2005;
//                                                          latency-optimal, for small messages)
//   hierarchical:         intra-node reduce-scatter over g GPUs (NVLink), inter-node ring all-reduce
//                         of S/g over n nodes, intra-node all-gather back (the broadcast step).
// The inter-node part runs g concurrent rings (one per local rank) that share the node's NICs: each
// ring gets nics_per_node x NIC bandwidth / g / oversubscription. mlsysim assumes one NIC per GPU.
//
// A third tier (pods: TPU slices joined by the data-centre network, Google Cloud TPU Multislice
// overview, docs.cloud.google.com/tpu/docs/multislice-introduction: chips in a slice talk over ICI, slices
// over DCN through their hosts; or a GPU cluster's scalable units joined by its spine): the 2D
// all-reduce of Ying et al., "Image Classification at Supercomputer Scale", arXiv:1811.06992 (its 2-D
// gradient summation: reduce-scatter along the first dimension, all-reduce along the second,
// all-gather along the first), with the pod as the first dimension:
//   cross-pod:            reduce-scatter over the r ranks of the group inside a pod (its own
//                         hierarchical schedule: NVLink or ICI, then the NICs), ring all-reduce of
//                         S/r over the P pods on the data-centre network (r concurrent rings, each
//                         on one GPU's share of it), all-gather inside the pod. The in-pod
//                         reduce-scatter and all-gather above are both halves of the in-pod ring
//                         all-reduce, so their sum is its cost.
//
// Hierarchical all-to-all across tiers (the "2D hierarchical a2a algorithm used for extremely-large
// scaling" that Tutel added in v0.1.5, github.com/microsoft/tutel/releases/tag/v0.1.5, the 2DH
// all-to-all of Hwang et al., "Tutel: Adaptive Mixture-of-Experts at Scale", arXiv:2206.03382; the
// stage prices below are dsx's, in the alpha-beta model above; the two-stage path of DeepSeek-V3's
// dispatch, arXiv:2412.19437 section 3.2.2: tokens cross InfiniBand to the GPU of the same in-node index
// on each target node, then NVLink to their expert's GPU). A group of N = r_1 x r_2 x ... ranks, r_1 of
// them inside the innermost domain (a node), r_2 such domains inside the next (a pod), and so on: each
// stage is a pairwise all-to-all of the whole per-rank buffer S among the r_i ranks of one tier (the
// first gathers, per destination at the next tier, the chunks its peers hold for it; the local
// re-layouts between stages are memory copies, not counted):
//   hierarchical:         sum_i [ (r_i - 1)/r_i S/B_i + (r_i - 1) alpha_i ]
// against the flat pairwise exchange (N-1)/N S/B + (N-1) alpha, whose every step waits on the slowest
// tier (at each step some rank's peer sits across it), so it prices (N-1)/N S and N - 1 alphas at the
// slow tier's rate. (r_out - 1)/r_out S crosses the slow tier either way; the hierarchy pays r_out - 1
// slow steps and moves the in-domain share at the fast tiers' rates and alphas. The
// deduplication of DeepSeek-V3's node-limited routing (a token crosses to each target node once,
// whatever its experts there) is not modelled.
#pragma once

#include <span>

namespace dsx {

// Per-step latencies the solvers use by default (mlsysim's alpha_intra for NVLink, its InfiniBand
// NDR latency for a transfer across nodes).
inline constexpr double kNvlinkAlphaS = 0.5e-6;
inline constexpr double kFabricAlphaS = 5e-6;

double point_to_point_s(double bytes, double bandwidth_bytes_per_s, double alpha_s);
double ring_all_reduce_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s);
double tree_all_reduce_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s);
double reduce_scatter_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s);
double all_gather_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s);
double all_to_all_s(double bytes_per_rank, double ranks, double bandwidth_bytes_per_s, double alpha_s);

struct HierarchicalFabric {
  double gpus_per_node = 8;
  double intra_bandwidth_bytes_per_s = 0;  // one-way, per GPU (NVLink)
  double intra_alpha_s = 0;
  double nic_bandwidth_bytes_per_s = 0;    // one-way, per NIC
  double nics_per_node = 8;
  double inter_alpha_s = 0;
  double oversubscription = 1;             // >= 1; 1 = full bisection
};

// Inter-node bandwidth one concurrent ring sees: nics x NIC / g / oversubscription.
double inter_node_ring_bandwidth_bytes_per_s(const HierarchicalFabric& f);
// All-reduce of `bytes` over `nodes` nodes of f.gpus_per_node GPUs each.
double hierarchical_all_reduce_s(double bytes, double nodes, const HierarchicalFabric& f);
// All-reduce of `bytes` over `pods` pods holding `ranks_in_pod` ranks each, given the time of the same
// all-reduce over one pod's ranks (in_pod_all_reduce_s); dcn_bandwidth_bytes_per_s is one GPU's
// one-way share of the data-centre network.
double cross_pod_all_reduce_s(double in_pod_all_reduce_s, double bytes, double ranks_in_pod, double pods,
                              double dcn_bandwidth_bytes_per_s, double dcn_alpha_s);

// One tier of a hierarchical all-to-all: the ranks of the group that meet on it (per domain of the
// tier above) and that tier's one-way bandwidth per rank and per-step latency.
struct AllToAllTier {
  double ranks = 1;
  double bandwidth_bytes_per_s = 0;
  double alpha_s = 0;
  bool inside_node = false;  // a tier of the node's own links (NVLink, ICI); the others cross nodes
};
// Routed tokens: each token's experts_per_token copies go to as many experts. DeepSeek-V3's
// node-limited routing (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, section 3.2.2:
// "we limit each token to be dispatched to at most 4 nodes, thereby reducing IB traffic"; a token
// goes over IB to the GPU of the same in-node index on each target node, which forwards it over
// NVLink to the GPUs hosting its experts) sends a token across
// nodes once per node it reaches, at most max_nodes_per_token and at most the nodes the group spans;
// the tiers inside a node still carry every copy. 0 = unlimited: every copy crosses every tier.
struct TokenRouting {
  double experts_per_token = 1;
  double max_nodes_per_token = 0;
};
// All-to-all of `bytes_per_rank` (experts_per_token copies of each token) as one pairwise exchange per
// tier, innermost first (a tier of one rank costs nothing); under node-limited routing the tiers
// across nodes carry min(k, M, nodes) / k of the buffer, nodes the product of their ranks.
double hierarchical_all_to_all_s(double bytes_per_rank, std::span<const AllToAllTier> tiers,
                                 const TokenRouting& routing = {});

}  // namespace dsx
