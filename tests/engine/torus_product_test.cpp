// The reduce-scatter over the product of two strided groups of a torus (engine/torus.hpp
// torus_product_reduce_scatter_s: the cp ranks and the dp ranks of pipelines in a TPU pod) as one
// rotated multi-dimensional ring schedule, against hand calculations.
#include "engine/torus.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

constexpr double kGB = 1e9, kBytes = 1e9, kAlpha = 1e-6;

// Inner: 2 chips along dimension 0 without wraparound, 50 GB/s a link (a ring of 50 GB/s). Outer:
// 8 chips along dimension 1, wrapped, 50 GB/s a link (a bidirectional ring of 100 GB/s). Two parts of
// S / 2: phase one sends 1/2 x S/2 / 50 GB/s on the inner ring while the other part sends 7/8 x S/2 /
// 100 GB/s on the outer one, on other links (16 / 3,200 against 14 / 3,200 of S per GB/s); phase two
// sends 7/8 x S/4 / 100 GB/s and 1/2 x S/16 / 50 GB/s (7 / 3,200 and 2 / 3,200). 23 / 3,200 S per GB/s
// and 7 + 7 hops, against 1/2 x S / 50 + 7/8 x S/2 / 100 = 46 / 3,200 and 1 + 7 hops one group after
// the other.
TEST(TorusProduct, GroupsOnDifferentDimensionsReduceAtTheSameTime) {
  const TorusTopology inner = make_torus({2, 1, 1}, 2, 50 * kGB, false);
  const TorusTopology outer = make_torus({1, 8, 1}, 2, 50 * kGB, true);
  const double expected = 23.0 / 3200 * kBytes / kGB + 14 * kAlpha;
  EXPECT_NEAR(torus_product_reduce_scatter_s(kBytes, inner, outer, kAlpha), expected, 1e-12);
  const double sequential =
      torus_reduce_scatter_s(kBytes, inner, kAlpha) + torus_reduce_scatter_s(kBytes / 2, outer, kAlpha);
  EXPECT_NEAR(sequential, 46.0 / 3200 * kBytes / kGB + 8 * kAlpha, 1e-12);
  // The same as the reduce-scatter of the 2 x 8 torus those two rings make.
  EXPECT_NEAR(torus_reduce_scatter_s(kBytes, make_torus({2, 8, 1}, 2, 50 * kGB, true), kAlpha), expected, 1e-12);
  EXPECT_NEAR(torus_hierarchical_all_reduce_s(kBytes, 1, inner, outer,
                                              HierarchicalFabric{.gpus_per_node = 16, .intra_alpha_s = kAlpha}),
              2 * expected, 1e-12);
}

// The same two rings along one dimension share its links: phase one takes 16 / 3,200 + 14 / 3,200 and
// phase two 7 / 3,200 + 2 / 3,200 of S per GB/s, 39 / 3,200 in all: slower than on two dimensions (23),
// faster than one group after the other (46).
TEST(TorusProduct, GroupsSharingLinksShareTheirBandwidth) {
  const TorusTopology inner = make_torus({1, 2, 1}, 2, 50 * kGB, false);
  const TorusTopology outer = make_torus({1, 8, 1}, 2, 50 * kGB, true);
  EXPECT_NEAR(torus_product_reduce_scatter_s(kBytes, inner, outer, 0.0), 39.0 / 3200 * kBytes / kGB, 1e-12);
  // With a fast inner ring (400 GB/s links) the outer ring's time dominates both phases of the joint
  // schedule: (4 + 28) / 2 / 3,200 and 7 / 3,200 + 0.25 / 3,200, 23.25 / 3,200 in all, where one group
  // after the other takes 1/2 x S / 400 + 7/8 x S/2 / 100 = 18 / 3,200, which is what runs.
  const TorusTopology fast_inner = make_torus({1, 2, 1}, 2, 400 * kGB, false);
  EXPECT_NEAR(torus_product_reduce_scatter_s(kBytes, fast_inner, outer, 0.0), 18.0 / 3200 * kBytes / kGB, 1e-12);
}

}  // namespace
}  // namespace dsx
