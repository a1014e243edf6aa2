// The flattened graphs a sweep walks (engine/graph.hpp FlatGraph) against the op-by-op walk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "dse/catalog.hpp"
#include "engine/dispatch.hpp"
#include "engine/fusion.hpp"

namespace dsx {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The sweep walks flattened graphs: every catalog model, eager and fused, must give the graph walk's
// breakdown to the last bit at every batch, eta and launch setting.
TEST(FlatGraph, WalkEqualsTheGraphWalkBitForBitForEveryCatalogModel) {
  HardwareSpec hw;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 100e12;
  hw.memory_bandwidth_bytes_per_s = 1e12;
  Diagnostics diags;
  const Catalog catalog = load_catalog(DSX_SOURCE_DIR "/studies/catalog", diags);
  ASSERT_FALSE(diags.has_errors());
  for (const CatalogModel& model : catalog.models) {
    const PreparedModel& m = model.prepared;
    const std::string_view name = model.id;
    for (const Execution e : {Execution::eager, Execution::compiled}) {
      for (const FusionPolicy policy : {FusionPolicy::none, FusionPolicy::elementwise, FusionPolicy::elementwise_norm}) {
        const ModelGraph& graph = m.graph(e, policy);
        const FlatGraph& flat = m.flat(e, policy);
        ASSERT_EQ(flat.size(), graph.ops.size()) << name;
        double largest = 0;
        for (const Op& op : graph.ops) {
          largest = std::max(largest, op.input_elements_per_sample + op.output_elements_per_sample);
        }
        EXPECT_EQ(flat.largest_activation_elements_per_sample, largest) << name;
        for (const double batch : {1.0, 7.0, 256.0}) {
          for (const LaunchSettings launch : {LaunchSettings{.launch_overhead_s = 5e-6},
                                              LaunchSettings{.launch_overhead_s = 5e-6, .cuda_graphs = true}}) {
            const ExecutionBreakdown x = execute_graph(graph, hw, Precision::fp16, batch, 0.7, launch);
            const ExecutionBreakdown y = execute_graph(flat, hw, Precision::fp16, batch, 0.7, launch);
            EXPECT_TRUE(same_bits(x.compute_s, y.compute_s) && same_bits(x.memory_s, y.memory_s) &&
                        same_bits(x.dispatch_s, y.dispatch_s) && same_bits(x.kernel_count, y.kernel_count) &&
                        same_bits(x.launches, y.launches) && same_bits(x.flops, y.flops) &&
                        same_bits(x.bytes, y.bytes) && same_bits(x.compute_bound_ops, y.compute_bound_ops) &&
                        same_bits(x.memory_bound_ops, y.memory_bound_ops))
                << name << " batch " << batch;
          }
        }
      }
    }
  }
}

TEST(FlatGraph, ResidentWeightsAreTheParameterCountOrTheWeightsRead) {
  ModelGraph g;
  g.ops.push_back(Op{.name = "a", .kind = OpKind::matmul, .weight_elements = 10, .repeat = 3});
  EXPECT_EQ(flatten(g).resident_weight_elements, 30);
  g.parameter_count = 100;
  EXPECT_EQ(flatten(g).resident_weight_elements, 100);
}

}  // namespace
}  // namespace dsx
