#include "engine/registry.hpp"

#include <array>

#include "engine/solvers/attention.hpp"
#include "engine/solvers/collectives.hpp"
#include "engine/solvers/compile_breakeven.hpp"
#include "engine/solvers/compression.hpp"
#include "engine/solvers/data_pipeline.hpp"
#include "engine/solvers/dispatch_tax.hpp"
#include "engine/solvers/efficiency.hpp"
#include "engine/solvers/fleet.hpp"
#include "engine/solvers/foundations.hpp"
#include "engine/solvers/gemm.hpp"
#include "engine/solvers/inference.hpp"
#include "engine/solvers/matmul_tiling.hpp"
#include "engine/solvers/memory_bandwidth.hpp"
#include "engine/solvers/queueing.hpp"
#include "engine/solvers/scaling.hpp"
#include "engine/solvers/serving.hpp"
#include "engine/solvers/synthesis.hpp"
#include "engine/solvers/training.hpp"

namespace dsx {

namespace {
const InferenceSolver kInference;
const FoundationsSolver kFoundations;
const MatmulTilingSolver kMatmulTiling;
const DispatchTaxSolver kDispatchTax;
const DataPipelineSolver kDataPipeline;
const CompileBreakevenSolver kCompileBreakeven;
const EfficiencySolver kEfficiency;
const ServingSolver kServing;
const TrainingSolver kTraining;
const GemmSolver kGemm;
const AttentionSolver kAttention;
const MemoryBandwidthSolver kMemoryBandwidth;
const CollectivesSolver kCollectives;
const QueueingSolver kQueueing;
const FleetSolver kFleet;
const ScalingSolver kScaling;
const SynthesisSolver kSynthesis;
const CompressionSolver kCompression;

const auto kSolvers = std::to_array<const Solver*>({
    &kInference,
    &kFoundations,
    &kMatmulTiling,
    &kDispatchTax,
    &kDataPipeline,
    &kCompileBreakeven,
    &kEfficiency,
    &kServing,
    &kTraining,
    &kGemm,
    &kAttention,
    &kMemoryBandwidth,
    &kCollectives,
    &kQueueing,
    &kFleet,
    &kScaling,
    &kSynthesis,
    &kCompression,
});
}  // namespace

std::span<const Solver* const> all_solvers() { return kSolvers; }

std::vector<std::string> solver_names() {
  std::vector<std::string> names;
  for (const Solver* s : kSolvers) names.emplace_back(s->name());
  return names;
}

const Solver* find_solver(std::string_view name) {
  for (const Solver* s : kSolvers) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

}  // namespace dsx
