#include "dse/sweep.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <exception>

namespace dsx {

void evaluate_block(const Grid& grid, const Solver& solver, std::uint64_t first, std::uint64_t count,
                    unsigned threads, SweepBlock& block, SweepProgress* progress) {
  const std::size_t metric_count = solver.metrics().size();
  block.first = first;
  block.count = count;
  block.metrics.assign(count * metric_count, 0.0);
  block.results.assign(count, PointResult{});
  block.errors.assign(count, std::string());

  auto body = [&](const tbb::blocked_range<std::uint64_t>& range) {
    PointInputs inputs;
    for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
      const std::span<double> out(block.metrics.data() + i * metric_count, metric_count);
      try {
        grid.inputs(first + i, inputs);
        block.results[i] = solver.evaluate(inputs, out);
      } catch (const std::exception& e) {
        block.results[i] = {PointStatus::error, 0};
        block.errors[i] = e.what();
      } catch (...) {
        block.results[i] = {PointStatus::error, 0};
        block.errors[i] = "unknown exception";
      }
    }
    if (progress != nullptr) progress->points_done.fetch_add(range.size(), std::memory_order_relaxed);
  };
  const int concurrency = threads == 0 ? tbb::task_arena::automatic : static_cast<int>(threads);
  tbb::task_arena arena(concurrency);
  arena.execute([&] { tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 1024), body); });
}

ResultTable make_result_table(const ResolvedStudy& study) {
  ResultTable table;
  for (const Axis& axis : study.axes) table.axis_names.push_back(axis.param);
  for (const MetricSpec& m : study.solver->metrics()) table.metric_names.emplace_back(m.name);
  for (std::string_view r : study.solver->reasons()) table.reasons.emplace_back(r);
  return table;
}

void append_block(const ResolvedStudy& study, const Grid& grid, const SweepBlock& block, ResultTable& table) {
  const std::size_t metric_count = table.metric_names.size();
  std::vector<std::uint32_t> coords(grid.axis_count());
  for (std::uint64_t i = 0; i < block.count; ++i) {
    const std::uint64_t index = block.first + i;
    grid.coordinates(index, coords);
    table.point_index.push_back(index);
    for (std::size_t a = 0; a < coords.size(); ++a) {
      table.axis_labels.push_back(study.axes[a].values[coords[a]].label);
    }
    const PointResult r = block.results[i];
    table.status.push_back(r.status);
    switch (r.status) {
      case PointStatus::ok: table.status_detail.emplace_back(); break;
      case PointStatus::infeasible: table.status_detail.push_back(table.reasons.at(r.reason)); break;
      case PointStatus::error: table.status_detail.push_back(block.errors[i]); break;
    }
    table.metrics.insert(table.metrics.end(), block.metrics.begin() + static_cast<std::ptrdiff_t>(i * metric_count),
                         block.metrics.begin() + static_cast<std::ptrdiff_t>((i + 1) * metric_count));
  }
}

}  // namespace dsx
