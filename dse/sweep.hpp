// The parallel sweep: evaluates grid points in blocks with TBB, each point written to its own
// slot, so the rows are identical whatever the thread count. One point that throws becomes an
// error row; it never stops the sweep.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "dse/grid.hpp"
#include "dse/results.hpp"

namespace dsx {

// Raw results of points [first, first + count).
struct SweepBlock {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::vector<double> metrics;           // count x metric count
  std::vector<PointResult> results;      // count
  std::vector<std::string> errors;       // message of each point whose status is error
};

// Live counters a progress display reads while a block is evaluated: workers add with one relaxed
// fetch_add per chunk of points, never per point and never under a lock.
struct SweepProgress {
  std::atomic<std::uint64_t> points_done{0};
};

// Evaluates a block on up to `threads` threads (0 = all cores). Reuses the block's buffers.
void evaluate_block(const Grid& grid, const Solver& solver, std::uint64_t first, std::uint64_t count,
                    unsigned threads, SweepBlock& block, SweepProgress* progress = nullptr);

// An empty table with the study's columns.
ResultTable make_result_table(const ResolvedStudy& study);

// Appends the block's rows (labels, statuses, metrics) to `table`.
void append_block(const ResolvedStudy& study, const Grid& grid, const SweepBlock& block, ResultTable& table);

}  // namespace dsx
