// A sweep into a result store, block after block, resumable: what `dsx run` does between loading
// the study and analysing the results (dse/cli/run.cpp), and what the sweep benchmarks time.
//
// Each block of points is evaluated in parallel (dse/sweep.hpp), handed to the study's RowKeeper
// (dse/analysis/retention.hpp), and its kept rows, the rows it dropped and the sweep counts are
// committed in one transaction (ResultStore::commit_block). The counts live in the store's meta
// table under kSweepCountsKey, so a killed run resumes at the first point after its last commit.
// With more than one thread the commits run on a writer thread of their own, fed a ring of three
// taken blocks, in block order, while the WAL is checkpointed on another
// (ResultStore::BackgroundCheckpoints): the sweep evaluates and keeps the next blocks meanwhile and
// waits only when three blocks are still to be written. The store is the one a single thread
// writes; a commit that fails on the writer thread is rethrown by sweep_into_store. With one
// thread everything runs on the calling thread.
#pragma once

#include <csignal>
#include <cstdint>
#include <limits>
#include <optional>

#include "dse/analysis/retention.hpp"
#include "dse/grid.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"

namespace dsx {

inline constexpr const char* kSweepCountsKey = "sweep_counts";
inline constexpr const char* kResolvedStudyHashKey = "resolved_study_hash";

// The hash stored under kResolvedStudyHashKey: of the run folder's study.resolved.yaml text.
std::string resolved_study_hash(std::string_view resolved_yaml);

// "" when `store` holds the results of `study`, read from `resolved_yaml` (its run folder's
// study.resolved.yaml): a results table with the study's axes and metrics and, when the store
// records one, the hash of that text, or else the same result identity and catalog hash
// (dse/result_identity.hpp), so a file rewritten with other prose still fits. Otherwise what is wrong, in a sentence for the user: a store
// edited by hand, or copied in from another run.
std::string store_mismatch(ResultStore& store, const ResolvedStudy& study, std::string_view resolved_yaml);

struct SweepOptions {
  unsigned threads = 0;                       // 0 = all cores
  std::uint64_t block_points = 1U << 14U;     // points per committed block
  const volatile std::sig_atomic_t* stop = nullptr;  // the sweep stops after the block in hand when nonzero
  SweepProgress* progress = nullptr;
  std::uint64_t max_blocks = 0;  // stop after committing this many blocks (0 = no limit): a sweep in slices
  // The part of the grid this sweep covers, [first, end): the whole grid, or a shard's share
  // (dse/shard.hpp). Its counts cover only this range.
  std::uint64_t first = 0;
  std::uint64_t end = std::numeric_limits<std::uint64_t>::max();
};

// The counts committed with the store's rows; nullopt for a store without any. Throws
// std::runtime_error when they do not fit the study.
std::optional<SweepCounts> stored_sweep_counts(const ResultStore& store, const ResolvedStudy& study);

// The sweep's two steps around evaluation, shared with the distributed sweep (dse/cli/distributed.hpp):
// `keeper` continues from what the store holds (or starts at options.first), and one evaluated
// block is taken and committed with the counts.
void resume_keeper(RowKeeper& keeper, const ResultStore& store, const ResolvedStudy& study, const SweepOptions& options);
void take_and_commit(RowKeeper& keeper, const SweepBlock& block, ResultStore& store, RowKeeper::Change& change);

// Sweeps from where the store stopped (options.first for a new one) to the end of the grid or of
// the range, or until *options.stop. The store must have the study's schema (ensure_schema).
// Returns the counts after the last commit.
SweepCounts sweep_into_store(const ResolvedStudy& study, const Grid& grid, ResultStore& store,
                             const SweepOptions& options);

}  // namespace dsx
