#include "dse/sweep.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "dse/grid.hpp"
#include "dse/study.hpp"

// Counts heap allocations so the test can check that evaluating a point allocates nothing.
namespace {
std::atomic<long> g_allocations{0};
}
namespace {
void* counted_malloc(std::size_t n) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* counted_malloc_or_throw(std::size_t n) {
  if (void* p = counted_malloc(n)) return p;
  throw std::bad_alloc();
}
}  // namespace
// Every replaceable form of plain new/delete goes through malloc/free, so they always pair.
void* operator new(std::size_t n) { return counted_malloc_or_throw(n); }
void* operator new[](std::size_t n) { return counted_malloc_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace dsx {
namespace {

const char* kStudy = R"(study: sweep_test
title: sweep test
question: does the sweep work?
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  model: [lab07_kws, resnet50, gpt2_layer]
  execution: [eager, compiled]
  launch_overhead: {from: 5 us, to: 20 us, count: 4}
  batch: [1, 8, 64]
fixed:
  precision: fp16
  eta: 0.5
)";

// The serving solver's closed loop (clients), unchunked and chunked, below and beyond the batch limit.
const char* kClosedLoopStudy = R"(study: sweep_closed_loop_test
title: sweep closed-loop test
question: does a closed-loop serving point allocate?
solver: serving
axes:
  clients: [1, 5, 50, 400]
  prefill_chunk_tokens: [0, 512]
  prompt_tokens: [500, 5000]
fixed:
  hardware: h100_sxm
  model: llama3_70b
  precision: fp8
  batch: 0
  tp: 2
  output_tokens: 500
)";

ResolvedStudy load(const char* text = kStudy) {
  Diagnostics diags;
  auto study = load_study_text("sweep_test.yaml", text, DSX_SOURCE_DIR "/studies/catalog", diags);
  if (!study) throw std::runtime_error("the sweep test study does not load:\n" + diags.format());
  return std::move(*study);
}

TEST(Grid, IndexAndCoordinatesAreMixedRadixWithTheLastAxisFastest) {
  const ResolvedStudy study = load();
  const Grid grid(study);
  ASSERT_EQ(grid.size(), 2u * 3 * 2 * 4 * 3);
  std::vector<std::uint32_t> c(grid.axis_count());
  grid.coordinates(0, c);
  EXPECT_EQ(c, (std::vector<std::uint32_t>{0, 0, 0, 0, 0}));
  grid.coordinates(1, c);
  EXPECT_EQ(c, (std::vector<std::uint32_t>{0, 0, 0, 0, 1}));
  grid.coordinates(grid.size() - 1, c);
  EXPECT_EQ(c, (std::vector<std::uint32_t>{1, 2, 1, 3, 2}));
  // hardware=1, model=2, execution=0, launch=2, batch=1
  const std::uint64_t index = (((1 * 3 + 2) * 2 + 0) * 4 + 2) * 3 + 1;
  grid.coordinates(index, c);
  EXPECT_EQ(c, (std::vector<std::uint32_t>{1, 2, 0, 2, 1}));
  PointInputs in;
  grid.inputs(index, in);
  EXPECT_EQ(in.hardware->id, "h100_sxm");
  EXPECT_EQ(in.model->eager.id, "gpt2_layer");
  EXPECT_DOUBLE_EQ(in.values[study.axes[3].param_index], 15e-6);
  EXPECT_DOUBLE_EQ(in.values[study.axes[4].param_index], 8);
}

TEST(Sweep, RowsAreIdenticalOnOneAndTwoThreads) {
  const ResolvedStudy study = load();
  const Grid grid(study);
  SweepBlock one, two;
  evaluate_block(grid, *study.solver, 0, grid.size(), 1, one);
  evaluate_block(grid, *study.solver, 0, grid.size(), 2, two);
  ASSERT_EQ(one.metrics.size(), two.metrics.size());
  EXPECT_EQ(0, std::memcmp(one.metrics.data(), two.metrics.data(), one.metrics.size() * sizeof(double)));
  for (std::size_t i = 0; i < one.results.size(); ++i) EXPECT_EQ(one.results[i].status, two.results[i].status);
}

TEST(Sweep, EvaluatingAPointAllocatesNothing) {
  const ResolvedStudy study = load();
  const Grid grid(study);
  std::vector<double> metrics(study.solver->metrics().size());
  PointInputs in;
  const long before = g_allocations.load();
  for (std::uint64_t i = 0; i < grid.size(); ++i) {
    grid.inputs(i, in);
    study.solver->evaluate(in, metrics);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(Sweep, EvaluatingAClosedLoopServingPointAllocatesNothing) {
  const ResolvedStudy study = load(kClosedLoopStudy);
  const Grid grid(study);
  std::vector<double> metrics(study.solver->metrics().size());
  PointInputs in;
  std::uint64_t feasible = 0;
  const long before = g_allocations.load();
  for (std::uint64_t i = 0; i < grid.size(); ++i) {
    grid.inputs(i, in);
    feasible += study.solver->evaluate(in, metrics).status == PointStatus::ok;
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(feasible, grid.size());
}

TEST(Sweep, AppendBlockLabelsRowsByAxisValue) {
  const ResolvedStudy study = load();
  const Grid grid(study);
  SweepBlock block;
  evaluate_block(grid, *study.solver, 10, 5, 1, block);
  ResultTable table = make_result_table(study);
  append_block(grid, block, table);
  ASSERT_EQ(table.rows(), 5u);
  EXPECT_EQ(table.point_index[0], 10u);
  std::vector<std::uint32_t> c(grid.axis_count());
  grid.coordinates(10, c);
  for (std::size_t a = 0; a < grid.axis_count(); ++a) EXPECT_EQ(table.label(0, a), study.axes[a].values[c[a]].label);
}

}  // namespace
}  // namespace dsx
