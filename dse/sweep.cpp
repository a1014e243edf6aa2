#include "dse/sweep.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <exception>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"

namespace dsx {

struct GridGate::PerThread {
  tbb::enumerable_thread_specific<std::unique_ptr<PointFormulas>> formulas;
};

GridGate::GridGate(const ResolvedStudy& study)
    : study_(study), active_(!analyses_of(study).grid_constraints.empty()), per_thread_(std::make_unique<PerThread>()) {}

GridGate::~GridGate() = default;

std::uint32_t GridGate::check(const PointInputs& in) const {
  if (!active_) return 0;
  std::unique_ptr<PointFormulas>& f = per_thread_->formulas.local();
  if (!f) f = std::make_unique<PointFormulas>(study_);
  const auto broken = f->broken_grid_constraint(in);
  return broken ? static_cast<std::uint32_t>(*broken + 1) : 0;
}

namespace {

void size_block(std::uint64_t first, std::uint64_t count, std::size_t metric_count, SweepBlock& block) {
  block.first = first;
  block.count = count;
  block.metrics.assign(count * metric_count, 0.0);
  block.results.assign(count, PointResult{});
  block.errors.assign(count, std::string());
  block.excluded.assign(count, 0);
  if (block.prework) block.prework->begin(block);
}

// Evaluates block chunks [range.begin(), range.end()), each followed by the block's prework.
void evaluate_chunks(const Grid& grid, const Solver& solver, const GridGate* gate, SweepProgress* progress,
                     SweepBlock& block, const tbb::blocked_range<std::uint64_t>& range) {
  const std::size_t metric_count = solver.metrics().size();
  const bool gated = gate != nullptr && gate->active();
  PointInputs inputs;
  for (std::uint64_t c = range.begin(); c != range.end(); ++c) {
    const std::uint64_t begin = c * kSweepChunkPoints;
    const std::uint64_t end = std::min(block.count, begin + kSweepChunkPoints);
    for (std::uint64_t i = begin; i != end; ++i) {
      const std::span<double> out(block.metrics.data() + i * metric_count, metric_count);
      try {
        grid.inputs(block.first + i, inputs);
        if (gated) {
          block.excluded[i] = gate->check(inputs);
          if (block.excluded[i] != 0) continue;
        }
        block.results[i] = solver.evaluate(inputs, out);
      } catch (const std::exception& e) {
        block.results[i] = {PointStatus::error, 0};
        block.errors[i] = e.what();
      } catch (...) {
        block.results[i] = {PointStatus::error, 0};
        block.errors[i] = "unknown exception";
      }
    }
    if (block.prework) block.prework->chunk_done(block, c);
    if (progress != nullptr) progress->points_done.fetch_add(end - begin, std::memory_order_relaxed);
  }
}

std::uint64_t chunk_count(std::uint64_t points) { return (points + kSweepChunkPoints - 1) / kSweepChunkPoints; }

int arena_concurrency(unsigned threads) {
  return threads == 0 ? tbb::task_arena::automatic : static_cast<int>(threads);
}

}  // namespace

void evaluate_block(const Grid& grid, const Solver& solver, std::uint64_t first, std::uint64_t count,
                    unsigned threads, SweepBlock& block, SweepProgress* progress, const GridGate* gate) {
  size_block(first, count, solver.metrics().size(), block);
  tbb::task_arena arena(arena_concurrency(threads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, chunk_count(count), 1),
                      [&](const tbb::blocked_range<std::uint64_t>& range) {
                        evaluate_chunks(grid, solver, gate, progress, block, range);
                      });
  });
}

struct BackgroundEvaluator::Impl {
  const Grid& grid;
  const Solver& solver;
  SweepProgress* progress;
  const GridGate* gate;
  tbb::task_arena arena;
  tbb::task_group group;
  bool running = false;
};

BackgroundEvaluator::BackgroundEvaluator(const Grid& grid, const Solver& solver, unsigned threads,
                                         SweepProgress* progress, const GridGate* gate)
    : impl_(new Impl{grid, solver, progress, gate, tbb::task_arena(arena_concurrency(threads)), {}, false}) {}

BackgroundEvaluator::~BackgroundEvaluator() {
  if (!impl_->running) return;
  try {
    wait();
  } catch (...) {  // the owner is unwinding from its own failure
  }
}

void BackgroundEvaluator::start(std::uint64_t first, std::uint64_t count, SweepBlock& block) {
  if (impl_->running) throw std::logic_error("BackgroundEvaluator::start while a block is running");
  size_block(first, count, impl_->solver.metrics().size(), block);
  Impl& impl = *impl_;
  impl.running = true;
  impl.arena.execute([&impl, &block, count] {
    impl.group.run([&impl, &block, count] {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, chunk_count(count), 1),
                        [&impl, &block](const tbb::blocked_range<std::uint64_t>& range) {
                          evaluate_chunks(impl.grid, impl.solver, impl.gate, impl.progress, block, range);
                        });
    });
  });
}

void BackgroundEvaluator::wait() {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->arena.execute([this] { impl_->group.wait(); });
}

ResultTable make_result_table(const ResolvedStudy& study) {
  ResultTable table;
  for (const Axis& axis : study.axes) {
    table.axis_names.push_back(axis.param);
    // Code i is the axis's value i, so a row takes its grid coordinates as codes.
    TextDictionary& texts = table.axis_texts.emplace_back();
    for (const auto& value : axis.values) texts.push(value.label);
  }
  for (const MetricSpec& m : study.solver->metrics()) table.metric_names.emplace_back(m.name);
  for (std::string_view r : study.solver->reasons()) table.reasons.emplace_back(r);
  return table;
}

void append_point(const Grid& grid, const SweepBlock& block, std::uint64_t i,
                  std::span<std::uint32_t> coords, ResultTable& table) {
  const std::size_t metric_count = table.metric_names.size();
  const std::uint64_t index = block.first + i;
  grid.coordinates(index, coords);
  table.point_index.push_back(index);
  table.push_label_codes(coords);  // make_result_table's codes
  const PointResult r = block.results[i];
  table.status.push_back(r.status);
  switch (r.status) {
    case PointStatus::ok: table.push_detail(""); break;
    case PointStatus::infeasible: {
      const std::string& reason = table.reasons.at(r.reason);
      if (reason.find(kReasonHardware) == std::string::npos) {
        table.push_detail(reason);
      } else {
        PointInputs in;
        grid.inputs(index, in);
        table.push_detail(reason_text(reason, in.hardware));
      }
      break;
    }
    case PointStatus::error: table.push_detail(block.errors[i]); break;
  }
  table.metrics.insert(table.metrics.end(), block.metrics.begin() + static_cast<std::ptrdiff_t>(i * metric_count),
                       block.metrics.begin() + static_cast<std::ptrdiff_t>((i + 1) * metric_count));
}

void append_block(const Grid& grid, const SweepBlock& block, ResultTable& table) {
  std::vector<std::uint32_t> coords(grid.axis_count());
  for (std::uint64_t i = 0; i < block.count; ++i) {
    if (block.excluded.empty() || block.excluded[i] == 0) append_point(grid, block, i, coords, table);
  }
}

}  // namespace dsx
