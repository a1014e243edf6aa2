// `dsx merge OUT SHARD_DIR...`: joins the run folders of `dsx run --shard I/N` into the run folder
// one `dsx run` of the whole grid would have made (dse/shard.hpp says why the result is the same).
//
// Checks first, and reports every problem at once: each folder is a shard's run folder; all hold
// the same study (the same result identity, dse/result_identity.hpp; study.resolved.yaml byte for
// byte for shards of a dsx that recorded none) made with the same catalog and dsx version;
// all were cut into the same number of shards; together they cover the grid exactly once (a
// missing shard is named, so is one given twice); each is complete (a stopped shard says how to
// finish it). Then the union of the shards' rows, with their counts added in range order, is
// chosen from again as the study's keep: says and written into OUT's store, ready to analyse.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dse/analysis/retention.hpp"
#include "dse/shard.hpp"
#include "dse/study.hpp"

namespace dsx {

struct ShardFolder {
  std::string dir;
  ShardSpec shard;
  PointRange range;
  SweepCounts counts;
};

struct MergePlan {
  std::optional<ResolvedStudy> study;   // loaded from the shards' study.resolved.yaml
  std::string resolved_text;            // that file's text, from the grid's first shard given
  std::vector<std::pair<std::string, std::string>> identity;  // store meta every shard shares
  std::vector<ShardFolder> shards;      // by index
  std::vector<std::string> notes;       // worth saying, not wrong: shards whose prose differs
};

// Reads and checks the shard folders; every problem goes to `problems` (one line each) and the
// plan is then empty.
std::optional<MergePlan> plan_merge(const std::vector<std::string>& shard_dirs, std::vector<std::string>& problems);

// Writes OUT's study.resolved.yaml and store (which must not exist yet): the rows the study keeps
// of the shards' union and the added counts. Throws std::runtime_error on a store failure.
void write_merged_store(const MergePlan& plan, const std::string& out_dir);

}  // namespace dsx
