// Design points per second of the serving and training solvers alone (one thread): Llama-3-70B on an
// H100-class device, cycling the layout so no two consecutive points are equal.
//   ./build/tests/bench/dsx_bench --benchmark_filter='Serving|Training'
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/solvers/serving.hpp"
#include "engine/solvers/training.hpp"

namespace {

dsx::PreparedModel llama3_70b() {
  const std::map<std::string, double> given = {
      {"layers", 80},    {"d_model", 8192},  {"heads", 64},     {"kv_heads", 8}, {"d_ff", 28672},
      {"vocab", 128256}, {"seq_len", 2048},  {"gated_mlp", 1},  {"norm", 1},     {"embeddings", 1},
      {"rope", 1}};
  const dsx::Architecture* a = dsx::find_architecture("transformer");
  std::vector<double> values;
  for (const dsx::ArchParamSpec& spec : a->params) {
    const auto it = given.find(std::string(spec.name));
    values.push_back(it != given.end() ? it->second : spec.default_value);
  }
  return dsx::prepare_model(a->build(values));
}

dsx::HardwareSpec h100_class() {
  dsx::HardwareSpec hw;
  hw.peak_flops_per_s[dsx::index_of(dsx::Precision::fp16)] = 989e12;
  hw.peak_flops_per_s[dsx::index_of(dsx::Precision::fp8)] = 1979e12;
  hw.memory_bytes = 80 * 1024.0 * 1024 * 1024;
  hw.memory_bandwidth_bytes_per_s = 3.35e12;
  hw.accelerator_link_bandwidth_bytes_per_s = 450e9;
  hw.compute_units = 132;
  hw.price_usd = 25000;
  hw.tdp_w = 700;
  hw.idle_power_fraction = 0.3;
  return hw;
}

// Llama-3-70B in fp8 on the H100-class device: `configure` sets the fixed parameters once, `vary` the
// i-th point's.
template <class Configure, class Vary>
void serving_points(benchmark::State& state, Configure configure, Vary vary) {
  const dsx::ServingSolver solver;
  const dsx::PreparedModel model = llama3_70b();
  const dsx::HardwareSpec hw = h100_class();
  dsx::PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  for (std::size_t i = 0; i < solver.params().size(); ++i) in.values[i] = solver.params()[i].default_value;
  in.values[dsx::ServingSolver::precision] = static_cast<double>(dsx::index_of(dsx::Precision::fp8));
  configure(in);
  std::vector<double> metrics(solver.metrics().size());
  std::size_t i = 0;
  for (auto _ : state) {
    vary(in, i);
    benchmark::DoNotOptimize(solver.evaluate(in, metrics));
    benchmark::ClobberMemory();
    ++i;
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}

// Batch 1 to 256 at TP 2 to 8 with an M/M/c queue.
void open_loop_points(benchmark::State& state, double gemm_shapes) {
  serving_points(
      state,
      [gemm_shapes](dsx::PointInputs& in) {
        in.values[dsx::ServingSolver::arrival_rate] = 0.01;
        in.values[dsx::ServingSolver::gemm_shapes] = gemm_shapes;
      },
      [](dsx::PointInputs& in, std::size_t i) {
        constexpr double batches[] = {1, 4, 16, 64, 256};
        constexpr double tps[] = {2, 4, 8};
        in.values[dsx::ServingSolver::batch] = batches[i % 5];
        in.values[dsx::ServingSolver::tp] = tps[i % 3];
        in.values[dsx::ServingSolver::prompt_tokens] = (i & 1) ? 2048 : 8192;
      });
}
void BM_ServingPoint(benchmark::State& state) { open_loop_points(state, 0); }
BENCHMARK(BM_ServingPoint);
// The same points with each step's GEMMs priced by shape (gemm_shapes: on; the prefills, the decode
// keeping the seeds' efficiency).
void BM_ServingPointGemmShapes(benchmark::State& state) { open_loop_points(state, 1); }
BENCHMARK(BM_ServingPointGemmShapes);

// A benchmark's fixed concurrency (clients: the closed loop's mean-value analysis, one pass per
// running sequence up to the batch the KV cache holds), 1 to 512 clients at 2,048 or 8,192-token
// prompts, unchunked or in 512-token chunks, TP4.
void BM_ServingPointClients(benchmark::State& state) {
  serving_points(
      state,
      [](dsx::PointInputs& in) {
        in.values[dsx::ServingSolver::batch] = 0;
        in.values[dsx::ServingSolver::tp] = 4;
      },
      [](dsx::PointInputs& in, std::size_t i) {
        constexpr double clients[] = {1, 8, 32, 128, 512};
        in.values[dsx::ServingSolver::clients] = clients[i % 5];
        in.values[dsx::ServingSolver::prompt_tokens] = (i & 1) ? 2048 : 8192;
        in.values[dsx::ServingSolver::prefill_chunk_tokens] = (i % 3 == 0) ? 512 : 0;
      });
}
BENCHMARK(BM_ServingPointClients);

// 1,024 GPUs, global batch 1,024 sequences; tp x pp over {2, 4, 8} x {1, 2, 4, 8} and micro-batch 1 or 2.
void BM_TrainingPoint(benchmark::State& state) {
  const dsx::TrainingSolver solver;
  const dsx::PreparedModel model = llama3_70b();
  const dsx::HardwareSpec hw = h100_class();
  dsx::PointInputs in;
  in.hardware = &hw;
  in.model = &model;
  for (std::size_t i = 0; i < solver.params().size(); ++i) in.values[i] = solver.params()[i].default_value;
  in.values[dsx::TrainingSolver::gpus] = 1024;
  in.values[dsx::TrainingSolver::global_batch] = 1024;
  std::vector<double> metrics(solver.metrics().size());
  const double tps[] = {2, 4, 8};
  const double pps[] = {1, 2, 4, 8};
  std::size_t i = 0;
  for (auto _ : state) {
    in.values[dsx::TrainingSolver::tp] = tps[i % 3];
    in.values[dsx::TrainingSolver::pp] = pps[i % 4];
    in.values[dsx::TrainingSolver::micro_batch] = (i & 1) ? 1 : 2;
    benchmark::DoNotOptimize(solver.evaluate(in, metrics));
    benchmark::ClobberMemory();
    ++i;
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrainingPoint);

}  // namespace
