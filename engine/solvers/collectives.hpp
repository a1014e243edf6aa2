// Solver "collectives": one collective operation over `ranks` accelerators, as nccl-tests measures it
// (time, algorithm bandwidth, bus bandwidth), inside one node or over several.
//
// Costs (engine/collectives.hpp: Hockney's alpha-beta model, Thakur, Rabenseifner and Gropp 2005,
// Patarasuk and Yuan 2009), with S = `message`, the size nccl-tests prints (the whole buffer: for
// all-gather and reduce-scatter the gathered one, recvcount x n), B a ONE-WAY bandwidth per GPU times
// bus_efficiency, alpha a per-step latency:
//  - inside one node (ranks_per_node >= ranks), over the accelerator link (NVLink; the host link,
//    PCIe, when the entry has none): all-reduce by ring 2 (n-1)/n S/B + 2 (n-1) alpha or by binomial
//    tree 2 ceil(log2 n) (alpha + S/B), `auto` taking the faster; reduce-scatter, all-gather and
//    all-to-all (n-1)/n S/B + (n-1) alpha; broadcast and reduce S/B + (n-1) alpha (a pipelined chain:
//    every byte leaves or enters the root once); send/recv alpha + S/B;
//  - over nodes of ranks_per_node GPUs with one fabric port each (fabric_bandwidth one-way per GPU,
//    fabric_latency): all-reduce hierarchically (reduce-scatter in the node, a ring over the nodes of
//    S / ranks_per_node per GPU, all-gather back); the other operations as one ring whose slowest hop
//    is the fabric; all-to-all sends (n - g)/n of S over the fabric and (g-1)/n over the node link
//    at once.
// Bus bandwidth, the nccl-tests convention that makes a measurement comparable with the link's
// peak whatever n (NVIDIA nccl-tests, doc/PERFORMANCE.md): algbw = S / t, busbw = algbw x 2(n-1)/n
// for all-reduce, x (n-1)/n for reduce-scatter, all-gather and all-to-all, x 1 for broadcast,
// reduce and send/recv.
// On a torus node (torus_x, torus_y, torus_z set, engine/torus.hpp; ranks_per_node at most its
// chips, laid out as its fastest block), the in-node all-reduce, reduce-scatter, all-gather and
// all-to-all are the torus's: multi-dimensional bidirectional rings and the bisection-bound
// all-to-all, alpha per neighbour hop, every link at the accelerator link / (2 x dimensions) x
// bus_efficiency (the `algorithm` choice does not apply). Over several such nodes (pod slices joined
// by the data-center network, fabric_bandwidth per chip) the node's ranks are the same block and the
// operations are hierarchical with the torus inside (engine/torus.hpp): the all-reduce reduce-
// scatters on the block, runs g concurrent rings of S / g over the nodes and all-gathers back; the
// reduce-scatter is its first half (block, then the rings' reduce-scatter), the all-gather its second
// (the rings' all-gather, then the block); the all-to-all sends (n - g) / n of S over the fabric while
// the block carries (g - 1) / n of it as its own all-to-all, bound by the block's bisection.
// Broadcast, reduce and send/recv on a torus node (engine/torus.hpp, after Chan, Heimlich, Purkayastha
// and van de Geijn, CCPE 2007, doi:10.1002/cpe.1206): broadcast and reduce the faster of the
// dimension-by-dimension binomial tree (short vectors) and scatter + all-gather (reduce: reduce-
// scatter + gather) on the multi-dimensional bidirectional rings (long vectors); over several nodes
// the scatter on the root's block, g pipelined chains of S / g over the nodes, the all-gather on
// every block. send/recv between two chips `hops` neighbour hops apart (default 1, neighbours; at most
// the node torus's diameter): hops x intra_latency + S / one torus link, on one minimal path; between
// nodes it crosses the fabric as on a switched node, and `hops` other than 1 is infeasible there, on a
// switched node and for the other operations (a switched domain is one hop between any two GPUs).
// link_bandwidth_bytes_per_s is then one torus link's (the slower of it and the fabric over nodes).
// bus_efficiency is the fraction of the one-way link bandwidth a large message achieves (default 1,
// the datasheet; the calibration profile gives what published nccl-tests results imply). NCCL's
// in-switch reductions (NVLS on NVSwitch systems) and its LL/LL128 protocols are not modelled: a
// measured bus bandwidth above the link's one-way peak shows them.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class CollectivesSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    operation,
    message,
    ranks,
    ranks_per_node,
    intra_bandwidth,
    intra_latency,
    fabric_bandwidth,
    fabric_latency,
    algorithm,
    bus_efficiency,
    torus_x,
    torus_y,
    torus_z,
    hops,
    kParamCount
  };
  enum Metric : std::size_t {
    time_s,
    algorithm_bandwidth_bytes_per_s,
    bus_bandwidth_bytes_per_s,
    bus_factor,
    link_bandwidth_bytes_per_s,
    tree_chosen,
    kMetricCount
  };
  enum Reason : std::uint8_t {
    ranks_per_node_must_divide,
    needs_fabric,
    needs_link,
    exceeds_torus,
    hops_need_torus_send_recv,
    hops_exceed_diameter
  };

  CollectivesSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
