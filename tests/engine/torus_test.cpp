// Torus collectives (engine/torus.hpp) against hand calculations and Google's published TPU pod
// figures (Google Cloud TPU documentation, "TPU v6e" and "TPU v5e": per chip 800 / 400 GBps
// bidirectional ICI over 4 ports, 256 chips in a 2D torus; all-reduce bandwidth per pod 102.4 /
// 51.2 TB/s; bisection bandwidth per pod 3.2 / 1.6 TB/s).
#include "engine/torus.hpp"

#include <gtest/gtest.h>

#include "engine/collectives.hpp"

namespace dsx {
namespace {

constexpr double kGB = 1e9;

// v6e: 800 GBps bidirectional per chip over 4 ports = 200 GB/s per port both ways = 100 GB/s one way.
TorusTopology v6e_pod() { return make_torus({16, 16, 1}, 2, 100 * kGB); }
// v5e: 400 GBps over 4 ports = 50 GB/s per link one way.
TorusTopology v5e_pod() { return make_torus({16, 16, 1}, 2, 50 * kGB); }
// A 4x4x4 cube, 100 GB/s per link one way (v5p: 1,200 GBps bidirectional over 6 neighbours).
TorusTopology cube() { return make_torus({4, 4, 4}, 3, 100 * kGB); }

TEST(Torus, RingBandwidthDoublesWithWraparoundOnly) {
  EXPECT_DOUBLE_EQ(torus_ring_bandwidth_bytes_per_s({16, true, 100 * kGB}), 200 * kGB);
  EXPECT_DOUBLE_EQ(torus_ring_bandwidth_bytes_per_s({16, false, 100 * kGB}), 100 * kGB);
  EXPECT_DOUBLE_EQ(torus_ring_bandwidth_bytes_per_s({2, true, 100 * kGB}), 100 * kGB);
  EXPECT_DOUBLE_EQ(torus_ring_bandwidth_bytes_per_s({1, true, 100 * kGB}), 0.0);
}

// 4x4x4, S bytes, three parts of S/3 taking the dimensions in rotated orders, each ring at 2 x 100
// GB/s: reduce-scatter = 3/4 (S/3 + S/12 + S/48) / 200 GB/s = 63/64 S / 600 GB/s, and 3 phases of
// 3 hops; the all-reduce is twice that.
TEST(Torus, CubeAllReduceMatchesHandCalculation) {
  const double S = 1e9, alpha = 1e-6;
  const double rs = 0.75 * (S / 3 + S / 12 + S / 48) / (200 * kGB) + 9 * alpha;
  EXPECT_DOUBLE_EQ(torus_reduce_scatter_s(S, cube(), alpha), rs);
  EXPECT_DOUBLE_EQ(torus_all_gather_s(S, cube(), alpha), rs);
  EXPECT_DOUBLE_EQ(torus_all_reduce_s(S, cube(), alpha), 2 * rs);
  EXPECT_NEAR(torus_all_reduce_s(S, cube(), 0), 2 * 63.0 / 64 * S / (600 * kGB), 1e-15);
}

// A full wrapped torus with equal dimensions is bandwidth-optimal: the same bandwidth term as a
// switched domain at the chip's 2 x dimensions x link bandwidth, with sum(n_d - 1) hops instead of
// N - 1.
TEST(Torus, FullTorusAllReduceEqualsTheSwitchedBandwidthTerm) {
  const double S = 3e8;
  EXPECT_NEAR(torus_all_reduce_s(S, v6e_pod(), 0), ring_all_reduce_s(S, 256, 400 * kGB, 0), 1e-12);
  EXPECT_NEAR(torus_all_reduce_s(S, v6e_pod(), 1e-6) - torus_all_reduce_s(S, v6e_pod(), 0), 60 * 1e-6, 1e-15);
}

// Google's "all-reduce bandwidth per pod": chips x the per-chip rate 2 (N-1)/N S / time.
TEST(Torus, PodAllReduceBandwidthMatchesGooglesFigures) {
  const double S = 1e10;
  const auto pod_rate = [&](const TorusTopology& t) { return 256 * 2 * 255.0 / 256 * S / torus_all_reduce_s(S, t, 0); };
  EXPECT_NEAR(pod_rate(v6e_pod()), 102.4e12, 1e3);
  EXPECT_NEAR(pod_rate(v5e_pod()), 51.2e12, 1e3);
}

// 16 x 16 wrapped: a cut across one dimension has 2 x 16 links: 3.2 TB/s at 100 GB/s (v6e), 1.6
// TB/s at 50 GB/s (v5e), as Google publishes.
TEST(Torus, BisectionBandwidthMatchesGooglesFigures) {
  EXPECT_DOUBLE_EQ(torus_bisection_bandwidth_bytes_per_s(v6e_pod()), 3.2e12);
  EXPECT_DOUBLE_EQ(torus_bisection_bandwidth_bytes_per_s(v5e_pod()), 1.6e12);
  EXPECT_DOUBLE_EQ(torus_bisection_bandwidth_bytes_per_s(make_torus({16, 16, 1}, 2, 100 * kGB, false)), 1.6e12);
}

// TPU v4 (Google Cloud TPU documentation, "TPU v4": 4,096 chips, bisection bandwidth per pod 24 TB/s):
// a 16 x 16 x 16 torus cut has 2 x 256 links; at the 44.76 GB/s per link the catalog derives (268.55
// GB/s one way per chip over 6 links) that is 22.9 TB/s, within 5% of Google's figure.
TEST(Torus, V4PodBisectionIsWithinFivePercentOfGooglesFigure) {
  const TorusTopology v4 = make_torus({16, 16, 16}, 3, 268.55e9 / 6);
  EXPECT_NEAR(torus_bisection_bandwidth_bytes_per_s(v4), 24e12, 0.05 * 24e12);
  EXPECT_DOUBLE_EQ(torus_bisection_bandwidth_bytes_per_s(v4), 512 * 268.55e9 / 6);
}

// All-to-all over the v6e pod: 256 chips each send S; S/4 x 256 bytes cross the 3.2 TB/s cut each
// way: S / 50 GB/s, 8 x 256/255 times the switched model's 255/256 S / 400 GB/s.
TEST(Torus, PodAllToAllIsBoundByTheBisection) {
  const double S = 1e8;
  const double t = torus_all_to_all_s(S, v6e_pod(), 0);
  EXPECT_DOUBLE_EQ(t, 256 * S / 4 / 3.2e12);
  EXPECT_NEAR(t / all_to_all_s(S, 256, 400 * kGB, 0), 8 * 256.0 / 255, 1e-12);
  EXPECT_NEAR(torus_all_to_all_s(S, v6e_pod(), 1e-6) - t, 255 * 1e-6, 1e-15);
}

// "How to Scale Your Model" (its collectives playground's table): an AllToAll on a bidirectional ring
// costs V / (4 W) for V = N S bytes in all and W the bidirectional link bandwidth (2 x one way).
TEST(Torus, RingAllToAllIsAQuarterOfTheAllGather) {
  const double S = 1e6, n = 8, link = 45 * kGB;
  const TorusTopology ring = make_torus({n, 1, 1}, 1, link);
  EXPECT_DOUBLE_EQ(torus_all_to_all_s(S, ring, 0), n * S / (4 * 2 * link));
}

// Trn2 (AWS Neuron: 4 x 4 torus of 16 chips, 4 NeuronLink-v3 per chip): 160 GB/s per link from the
// catalog's 640 GB/s one way per chip. Cut: 8 links, 1.28 TB/s; 16 S / 4 bytes cross it.
TEST(Torus, Trn2AllToAllHandCalculation) {
  const double S = 1e8;
  const TorusTopology trn2 = make_torus({4, 4, 1}, 2, 160 * kGB);
  EXPECT_DOUBLE_EQ(torus_all_to_all_s(S, trn2, 0), 4 * S / 1.28e12);
}

TEST(Torus, AGroupIsTheFastestBlockOfItsSize) {
  const TorusTopology g = torus_group(v6e_pod(), 8);
  ASSERT_EQ(g.count, 2u);
  EXPECT_DOUBLE_EQ(g.dimensions[0].chips * g.dimensions[1].chips, 8);
  EXPECT_FALSE(g.dimensions[0].wraparound);
  EXPECT_FALSE(g.dimensions[1].wraparound);
  // 2 x 4 (or 4 x 2) without wraparound, S/2 per part at 100 GB/s, lockstep phases:
  // max(3/4, 1/2) S/2 + max(1/2 x S/8, 3/4 x S/4) = 3/8 S + 3/16 S, at 100 GB/s, per reduce-scatter.
  const double S = 1e9;
  EXPECT_DOUBLE_EQ(torus_reduce_scatter_s(S, g, 0), (3.0 / 8 + 3.0 / 16) * S / (100 * kGB));
  // A block spanning a wrapped dimension whole keeps its wraparound.
  const TorusTopology row = torus_group(v6e_pod(), 16);
  EXPECT_LE(torus_all_reduce_s(S, row, 0), torus_all_reduce_s(S, make_torus({16, 1, 1}, 1, 100 * kGB), 0));
  // The whole pod is the torus itself.
  EXPECT_DOUBLE_EQ(torus_chips(torus_group(v6e_pod(), 256)), 256);
}

TEST(Torus, AGroupWithNoBlockIsALine) {
  const TorusTopology g = torus_group(v6e_pod(), 3);
  EXPECT_DOUBLE_EQ(g.dimensions[0].chips, 3);
  EXPECT_FALSE(g.dimensions[0].wraparound);
  EXPECT_DOUBLE_EQ(torus_chips(g), 3);
}

// The peers of 2 x 4 blocks in the 16 x 16 pod: an 8 x 4 strided torus whose rings share each link
// among the 2 (resp. 4) interleaved groups.
TEST(Torus, PeersOfABlockShareTheLinks) {
  const TorusTopology block = make_torus({2, 4, 1}, 2, 100 * kGB, false);
  const TorusTopology peers = torus_peers(v6e_pod(), block);
  EXPECT_DOUBLE_EQ(peers.dimensions[0].chips, 8);
  EXPECT_DOUBLE_EQ(peers.dimensions[1].chips, 4);
  EXPECT_DOUBLE_EQ(peers.dimensions[0].link_bandwidth_bytes_per_s, 50 * kGB);
  EXPECT_DOUBLE_EQ(peers.dimensions[1].link_bandwidth_bytes_per_s, 25 * kGB);
  EXPECT_TRUE(peers.dimensions[0].wraparound);
}

}  // namespace
}  // namespace dsx
