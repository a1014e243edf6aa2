// Point-to-point traffic between the blocks of a group on a torus (engine/torus.hpp: pipeline stages,
// context-parallel rings), against hand counts of the links on the face between neighbouring blocks.
#include <gtest/gtest.h>

#include "engine/torus.hpp"

namespace dsx {
namespace {

constexpr double kGB = 1e9;
constexpr double kLink = 100 * kGB;  // one link, one way
constexpr double kS = 1e8;           // bytes each chip sends

TorusTopology wrapped_4x4() { return make_torus({4, 4, 1}, 2, kLink); }
TorusTopology mesh_4x4() { return make_torus({4, 4, 1}, 2, kLink, false); }
TorusTopology cube_2x2x2() { return make_torus({2, 2, 2}, 3, kLink); }

// 4x4 wrapped, 4 blocks of 4: a block is a wrapped row (1 x 4); the next row is one link away from
// each of its 4 chips: S / B.
TEST(TorusBlockHop, FourRowsOfAWrappedFourByFour) {
  const TorusTopology row = torus_group(wrapped_4x4(), 4);
  EXPECT_DOUBLE_EQ(row.dimensions[0].chips * row.dimensions[1].chips, 4);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, wrapped_4x4(), 4, 4, 0), kS / kLink);
}

// 4x4 wrapped, 2 blocks of 8 (2 x 4): the halves meet on two faces (x = 1|2 and, wrapped, 3|0) of 4
// links each; 8 chips send S over 8 links: S / B. On the 4x4 mesh only one face: 2 S / B.
TEST(TorusBlockHop, TwoHalvesMeetOnTwoFacesOnlyWhenWrapped) {
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, wrapped_4x4(), 8, 2, 0), kS / kLink);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, mesh_4x4(), 8, 2, 0), 2 * kS / kLink);
}

// 4x4 mesh, 4 blocks of 4: a 2 x 2 block (its all-reduce beats a 1 x 4 line's) and its neighbours
// across a face of 2 links for 4 chips: 2 S / B.
TEST(TorusBlockHop, SquareBlocksOfAMeshShareTheirFace) {
  const TorusTopology block = torus_group(mesh_4x4(), 4);
  EXPECT_DOUBLE_EQ(block.dimensions[0].chips, 2);
  EXPECT_DOUBLE_EQ(block.dimensions[1].chips, 2);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, mesh_4x4(), 4, 4, 0), 2 * kS / kLink);
}

// 2x2x2 (no wraparound in a dimension of two): halves of 4 face each other over 4 links, S / B;
// 4 pairs and 8 single chips (a ring of 8 over the cube) each cross one link per chip, S / B.
TEST(TorusBlockHop, CubeOfTwo) {
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, cube_2x2x2(), 4, 2, 0), kS / kLink);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, cube_2x2x2(), 2, 4, 0), kS / kLink);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, cube_2x2x2(), 1, 8, 0), kS / kLink);
}

// TPU v6e pod (16 x 16, 100 GB/s per link one way: Google Cloud TPU documentation, 'TPU v6e', 800
// GBps bidirectional per chip over 4 ports). Four pipeline stages of 64 chips: a stage is 4 x 16
// (wrapped along its 16) and the face to the next has 16 links for 64 chips: 4 S / B. Two stages of
// 128 (8 x 16): two faces of 16 links, 32 links for 128 chips: 4 S / B again. The face's bandwidth
// is 16 or 32 links: the pod's 3.2 TB/s bisection is the two-face cut.
TEST(TorusBlockHop, V6ePodStages) {
  const TorusTopology pod = make_torus({16, 16, 1}, 2, kLink);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, pod, 64, 4, 0), 4 * kS / kLink);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, pod, 128, 2, 0), 4 * kS / kLink);
  EXPECT_DOUBLE_EQ(128 * kS / torus_block_hop_s(kS, pod, 128, 2, 0), torus_bisection_bandwidth_bytes_per_s(pod));
}

// A context-parallel ring of 4 TP blocks of 4 on the v6e pod: a TP block is 2 x 2 (faster than a
// 1 x 4 line without wraparound) and each hop crosses a face of 2 links for 4 chips: S / (B / 2).
TEST(TorusBlockHop, ContextParallelRingOfSquareTpBlocks) {
  const TorusTopology pod = make_torus({16, 16, 1}, 2, kLink);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, pod, 4, 4, 0), 2 * kS / kLink);
  // One alpha per transfer.
  EXPECT_NEAR(torus_block_hop_s(kS, pod, 4, 4, 1e-6) - torus_block_hop_s(kS, pod, 4, 4, 0), 1e-6, 1e-15);
  EXPECT_DOUBLE_EQ(torus_block_hop_s(kS, pod, 4, 1, 1e-6), 0.0);
}

// The bandwidth of the hop itself: a 2 x 4 block's peers in the 16 x 16 pod are 8 x 4, links shared
// by 2 (resp. 4) chips of the block; the slowest dimension, 25 GB/s, bounds a chain across both.
TEST(TorusBlockHop, BandwidthIsTheSlowestDimensionsShare) {
  const TorusTopology pod = make_torus({16, 16, 1}, 2, kLink);
  const TorusTopology block = make_torus({2, 4, 1}, 2, kLink, false);
  EXPECT_DOUBLE_EQ(torus_block_hop_bandwidth_bytes_per_s(pod, block), 25 * kGB);
  EXPECT_DOUBLE_EQ(torus_block_hop_bandwidth_bytes_per_s(block, block), 0.0);
}

}  // namespace
}  // namespace dsx
