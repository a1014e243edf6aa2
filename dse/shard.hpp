// One study over many machines: a shard is a share of the grid that one `dsx run --shard I/N`
// sweeps into a run folder of its own, and `dsx merge` joins the shards' folders into the run a
// single `dsx run` would have made.
//
// Shard I of N covers the points [floor(I T / N), floor((I + 1) T / N)) of a grid of T points: N
// consecutive ranges that cover the grid exactly once, each within one point of the same size. A
// shard's folder is a normal run folder (resumable after a kill) whose store says which shard it
// holds (meta keys below) and whose counts cover only its range; merging adds the counts in range
// order (SweepCounts::append) and re-applies the study's keep: to the union of the shards' kept
// rows (RowKeeper::restore), which gives exactly the rows one run keeps: each chosen set (fronts,
// top-k, sample, pinned points) is a function of the whole grid that the union of the parts'
// choices contains (dse/analysis/retention.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dsx {

struct ShardSpec {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
  std::string text() const;  // "I/N"
};

// "I/N" with 0 <= I < N and 1 <= N <= 2^20; nullopt with why in `problem`.
std::optional<ShardSpec> parse_shard(std::string_view text, std::string& problem);

struct PointRange {
  std::uint64_t first = 0;
  std::uint64_t end = 0;
};
PointRange shard_range(const ShardSpec& shard, std::uint64_t grid_points);

// Store meta keys of a shard's run folder.
inline constexpr const char* kShardKey = "shard";              // "I/N"
inline constexpr const char* kShardFirstKey = "shard_first";   // first point of its range
inline constexpr const char* kShardEndKey = "shard_end";       // one past its last point

}  // namespace dsx
