// Collectives on a torus (TPU ICI, Trainium NeuronLink): the costs of reduce-scatter, all-gather,
// all-reduce and all-to-all for a group laid out on a k-dimensional torus or mesh of chips whose
// neighbours are joined by point-to-point links, instead of the switched domain of
// engine/collectives.hpp, where every member reaches every other at the full per-chip bandwidth.
//
// Sources:
//  - Multi-dimensional ring all-reduce: reduce-scatter along each dimension in turn, each step on a
//    1/n-th of the previous step's data, then all-gather back in the reverse order (the "2-D torus
//    all-reduce" of Ying et al., "Image Classification at Supercomputer Scale", arXiv:1811.06992,
//    which sums ResNet-50's gradients on a 1,024-chip TPU v3 pod). dsx's schedule splits the data
//    into one part per dimension, each part taking the dimensions in a rotated order, so that every
//    dimension's links are busy in every phase; parts move in lockstep, so a phase lasts as long as
//    its slowest part. On a wrapped torus of equal dimensions this reaches the bandwidth-optimal
//    (N - 1) / N x bytes / (chip bandwidth) of Patarasuk and Yuan (engine/collectives.hpp) per
//    reduce-scatter.
//  - One dimension is a bidirectional ring: with wraparound, two rings (one per direction) each carry
//    half the data, so the ring runs at twice the one-way link bandwidth ("How to Scale Your Model",
//    jax-ml.github.io/scaling-book, part 3, as its collectives playground at
//    scaling-book-viz.aronteh.com tabulates it: AllGather and ReduceScatter bytes / W_ici, AllReduce
//    2 bytes / W_ici, AllToAll bytes / (4 W_ici), W_ici the bidirectional link bandwidth). Without
//    wraparound (a line, or a dimension of two chips) the ring's forward and return halves share the
//    two directions of each link, so it runs at the one-way link bandwidth (dsx's reading of a ring
//    embedded in a line). Each phase costs (n - 1) / n x bytes / ring bandwidth + (n - 1) alpha
//    (Thakur et al. 2005, per dimension), alpha being one neighbour hop.
//  - All-to-all: the larger of the injection bound (every chip sends (N - 1) / N of its buffer over
//    its links) and the bisection bound: cutting the torus across dimension d into halves of N a and
//    N (1 - a) chips (a = floor(n_d / 2) / n_d) sends N a (1 - a) x S bytes each way across the cut,
//    which has N / n_d links (2 N / n_d with wraparound) of one-way bandwidth B (the AllToAll bytes /
//    (4 W_ici) above is this bound for one wrapped dimension). Latency: the (N - 1) pairwise steps of the
//    switched model, each one message; the extra router hops of multi-hop messages are not counted.
//  - Bisection bandwidth: the smallest such cut, one way. Google Cloud TPU documentation: a TPU v6e
//    pod (2D torus, 256 chips, 4 ICI ports at 800 GBps bidirectional per chip) has 3.2 TB/s of
//    bisection bandwidth and 102.4 TB/s of all-reduce bandwidth; v5e 1.6 TB/s and 51.2 TB/s.
//
// A group of r chips inside a larger torus (a TP or expert-parallel group of a pod) is a block of
// the torus: per dimension an extent that divides that dimension, wrapping only where it spans a
// wrapped dimension whole. Of the blocks of r chips, the one whose all-reduce is fastest is taken
// (the layout a compiler choosing the device mesh would pick); where no block has r chips the group
// is a line of r chips. The peers of such a block (a data-parallel group, one chip per block) form
// the complementary strided torus: n_d / e_d chips per dimension, each ring hop crossing e_d links
// that the e_d interleaved groups share, so each sees B / e_d.
//
// Point-to-point traffic between the blocks of a group (pipeline stages, the ranks of a context-
// parallel ring): "How to Scale Your Model" part 2 (TPUs): within a slice chips are connected only to
// their nearest neighbours, so traffic between distant chips hops over the chips between them; part
// 5 (training): pipeline stages pass activations "over a single hop". A group of blocks of `block`'s
// shape tiling the block `t` (p pipeline stages of n / p chips; the cp ranks of a context-parallel
// group, one per TP block; Liu et al., "Ring Attention with Blockwise Transformers for Near-Infinite
// Context", arXiv:2310.01889, section 3: each host sends its key-value block to the next host of a
// ring while it receives one from the previous) sends, every chip at once, to its counterpart in the
// neighbouring block. The face between two blocks adjacent along dimension d has chips(block) / e_d
// links (e_d the block's extent there), so each of the chips(block) senders gets B_d / e_d one way
// (torus_peers' link); where the dimension wraps and holds just two blocks both faces join them
// (2 B_d / e_d). A chain or ring of blocks across several dimensions takes its slowest. The routes
// around the other side of a wrapped dimension carry the other pairs' traffic, so they add nothing.
// One alpha per transfer, as per ring step above.
//
// Units: bytes, seconds, one-way bandwidths in bytes per second; a link's bandwidth is per
// direction, as for NVLink in engine/collectives.hpp.
#pragma once

#include <array>
#include <cstddef>

#include "engine/collectives.hpp"

namespace dsx {

inline constexpr std::size_t kMaxTorusDimensions = 3;

struct TorusDimension {
  double chips = 1;
  bool wraparound = true;
  double link_bandwidth_bytes_per_s = 0;  // one neighbour link, one way
};

struct TorusTopology {
  std::array<TorusDimension, kMaxTorusDimensions> dimensions{};
  std::size_t count = 0;  // dimensions in use
};

// A torus of `count` dimensions of `chips[i]` chips each, every link at `link_bandwidth_bytes_per_s`.
TorusTopology make_torus(const std::array<double, kMaxTorusDimensions>& chips, std::size_t count,
                         double link_bandwidth_bytes_per_s, bool wraparound = true);

double torus_chips(const TorusTopology& t);
// One chip's sending bandwidth along dimension d as a bidirectional ring (0 for a dimension of one).
double torus_ring_bandwidth_bytes_per_s(const TorusDimension& d);
// The smallest one-way bandwidth across a cut of the torus into halves.
double torus_bisection_bandwidth_bytes_per_s(const TorusTopology& t);

// `bytes` as in engine/collectives.hpp: the full buffer for reduce-scatter and all-gather, the
// reduced buffer for all-reduce, one rank's buffer for all-to-all. alpha_s is one neighbour hop.
double torus_reduce_scatter_s(double bytes, const TorusTopology& t, double alpha_s);
double torus_all_gather_s(double bytes, const TorusTopology& t, double alpha_s);
double torus_all_reduce_s(double bytes, const TorusTopology& t, double alpha_s);
double torus_all_to_all_s(double bytes_per_rank, const TorusTopology& t, double alpha_s);

// Rooted collectives and point-to-point on a torus (Chan, Heimlich, Purkayastha and van de Geijn,
// "Collective communication: theory, practice, and experience", Concurrency and Computation:
// Practice and Experience 19(13), 2007, doi:10.1002/cpe.1206, sections 4-7), `bytes` the whole
// buffer, alpha_s one neighbour hop:
//  - broadcast: the faster of their two algorithms. Short vectors: the minimum-spanning-tree (MST)
//    broadcast, dimension after dimension (their section 7, multidimensional meshes), a binomial tree
//    along each dimension of n_d chips: ceil(log2 n_d) sends of the whole buffer over one link (B_d),
//    whose hop distances n_d / 2, n_d / 4, ... add up to at most n_d - 1 hops of alpha:
//      sum_d ceil(log2 n_d) x bytes / B_d + (n_d - 1) alpha.
//    Long vectors: scatter followed by all-gather (their "long-vector" broadcast), each as the torus's
//    multi-dimensional bidirectional rings above. The scatter costs what the reduce-scatter costs: in
//    each phase the chips that hold a part send (n_d - 1) / n_d of it around their ring, the root's
//    two directions (one without wraparound) carrying it, and the rotated parts use disjoint links
//    (part p phase 1 the root's line along dimension p, phase 2 the lines along dimension p + 1
//    through it), so 2 x torus_reduce_scatter_s.
//  - reduce: the dual of broadcast (their section 4: each algorithm run in reverse, MST reduce, and
//    reduce-scatter followed by gather), the same cost; the local reductions are not counted, as in
//    engine/collectives.hpp.
//  - send/recv between two chips `hops` neighbour hops apart, routed on one minimal path (dimension-
//    order routing with cut-through, Dally and Towles, "Principles and Practices of Interconnection
//    Networks", 2004, section 3.3 zero-load latency T = H t_r + L / b): hops x alpha + bytes / B, B
//    the slowest active dimension's link. `hops` is at most the torus's diameter.
double torus_broadcast_s(double bytes, const TorusTopology& t, double alpha_s);
double torus_reduce_s(double bytes, const TorusTopology& t, double alpha_s);
double torus_send_recv_s(double bytes, const TorusTopology& t, double hops, double alpha_s);
// The largest hop distance between two chips: sum_d floor(n_d / 2) where dimension d wraps, else n_d - 1.
double torus_diameter_hops(const TorusTopology& t);
// Broadcast (equivalently reduce) over `nodes` nodes, each holding the block `intra`: the scatter on
// the root's block, g concurrent pipelined chains over the nodes of bytes / g each (every byte crosses
// each node's fabric port once: bytes / g / ring bandwidth + (nodes - 1) inter alpha, the switched
// domain's chain of engine/solvers/collectives.hpp), then the all-gather on every block (Chan et al.'s
// long-vector broadcast with the node tier in the middle); reduce runs it in reverse.
double torus_hierarchical_broadcast_s(double bytes, double nodes, const TorusTopology& intra, const HierarchicalFabric& f);

// The block of `ranks` chips of `t` a group is laid out on (see above); `ranks` >= the torus's chips
// gives the whole torus.
TorusTopology torus_group(const TorusTopology& t, double ranks);
// The strided torus of the peers of `group` (one chip per block of `group`'s shape) inside `t`.
TorusTopology torus_peers(const TorusTopology& t, const TorusTopology& group);
// A group of `ranks` chips `stride` apart in rank order (the data-parallel peers of TP groups of
// `stride` chips): the peers of a `stride`-chip block inside the block of stride x ranks chips.
TorusTopology torus_strided_group(const TorusTopology& t, double stride, double ranks);

// One chip's one-way bandwidth to its counterpart in the next block when blocks of `block`'s shape
// tile `t` and every chip sends at once (see above); 0 when `t` holds one such block.
double torus_block_hop_bandwidth_bytes_per_s(const TorusTopology& t, const TorusTopology& block);
// One point-to-point transfer of `bytes` from every chip of a block to the next block of the group
// of `blocks` blocks of `block_chips` chips each (the pipeline stages, or the ring of context-parallel
// ranks with block_chips = tp). Each block is torus_group(t, block_chips), the shape its own
// collectives use; the group is the block of t tiled by them (extents multiples of the block's) whose
// hop is fastest, else, where none tiles, torus_group's block of block_chips x blocks chips. 0 for a
// single block.
double torus_block_hop_s(double bytes, const TorusTopology& t, double block_chips, double blocks, double alpha_s);

// The torus of a node whose solver parameters torus_x, torus_y, torus_z give its chips per
// dimension (0 = no such dimension; all 0: count 0, a switched node), wrapped in each, the chip's
// one-way accelerator link shared evenly by its 2 x dimensions neighbour links (a v6e chip's 4 ICI
// ports, a Trn2 chip's 4 NeuronLink-v3 links, a v5p chip's 6 in a 3D torus).
TorusTopology node_torus(double x, double y, double z, double chip_link_bandwidth_bytes_per_s);

// engine/collectives.hpp's hierarchical all-reduce with its reduce-scatter and all-gather inside a
// node on the torus group `intra` instead of a switch; f.gpus_per_node is intra's chip count.
double torus_hierarchical_all_reduce_s(double bytes, double nodes, const TorusTopology& intra, const HierarchicalFabric& f);
// Its two halves over `nodes` nodes (pod slices joined by a data-center network): the reduce-scatter
// inside the node on `intra`, then g concurrent rings over the nodes of bytes / g each; the all-gather
// the reverse. Their sum is torus_hierarchical_all_reduce_s.
double torus_hierarchical_reduce_scatter_s(double bytes, double nodes, const TorusTopology& intra,
                                           const HierarchicalFabric& f);
double torus_hierarchical_all_gather_s(double bytes, double nodes, const TorusTopology& intra, const HierarchicalFabric& f);
// All-to-all of `bytes_per_rank` over nodes x g ranks, g = chips(intra): each chip sends (n - g) / n
// of its buffer over its share of the node's NICs and (g - 1) / n on the node's torus (an all-to-all
// of g / n of its buffer over intra, bound by intra's bisection), both at once; (n - 1) steps of
// the fabric's alpha, as engine/solvers/collectives.hpp's switched nodes.
double torus_hierarchical_all_to_all_s(double bytes_per_rank, double nodes, const TorusTopology& intra,
                                       const HierarchicalFabric& f);
// Reduce-scatter (equivalently all-gather) over a group that is the product of two strided groups of
// one torus, `inner` and `outer` (the cp ranks tp apart and the dp ranks a pipeline apart; each from
// torus_strided_group, its dimensions indexed as the torus's), as one schedule: the rings of both
// groups' dimensions are the dimensions of one multi-dimensional ring (the rotated parts above), so
// the two groups reduce at the same time instead of one after the other. Each ring's bandwidth is
// already its share of the links it crosses (torus_peers: the interleaved groups, disjoint blocks
// reducing at once); two rings of one phase that run along the same dimension of the torus cross the
// same links and share them, so their times in that phase add. Where that schedule is slower than
// reducing over inner and then over outer on 1 / chips(inner) of the buffer, the latter is taken (both
// are schedules a collective library may run).
double torus_product_reduce_scatter_s(double bytes, const TorusTopology& inner, const TorusTopology& outer,
                                      double alpha_s);
// The hierarchical all-reduce with the node's ranks the product of `inner` and `outer`: the product
// reduce-scatter above, the ring over the nodes, the product all-gather back; f.gpus_per_node is
// chips(inner) x chips(outer).
double torus_hierarchical_all_reduce_s(double bytes, double nodes, const TorusTopology& inner, const TorusTopology& outer,
                                       const HierarchicalFabric& f);

}  // namespace dsx
