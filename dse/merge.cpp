#include "dse/merge.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "dse/grid.hpp"
#include "dse/physics_fingerprint.hpp"
#include "dse/result_identity.hpp"
#include "dse/store.hpp"
#include "dse/sweep.hpp"
#include "dse/sweep_store.hpp"

namespace dsx {

namespace {

namespace fs = std::filesystem;

// Store meta every shard of one study must share, and the meta the merged store takes from the first.
// The study itself is compared by its result identity (dse/result_identity.hpp), so shards whose
// study.resolved.yaml differ only in prose merge; shards of a dsx that recorded none must hold the
// same text.
constexpr const char* kIdentityKeys[] = {"catalog_hash", "dsx_version", kPhysicsFingerprintKey};
constexpr const char* kCopiedKeys[] = {"study_hash", kResultIdentityKey, "catalog_hash", "dsx_version", "git_revision",
                                       "study_file", kResolvedStudyHashKey, kPhysicsFingerprintKey};
constexpr std::size_t kMaxListed = 20;

std::optional<std::uint64_t> whole(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ShardRead {
  std::string dir;
  std::string resolved;
  std::map<std::string, std::string> meta;
  ShardSpec shard;
  std::uint64_t first = 0, end = 0;
  std::optional<std::string> counts;
};

// Appends every row of `from` to `to` (same columns).
void append_rows(ResultTable& to, const ResultTable& from, const std::string& dir) {
  if (from.axis_names != to.axis_names || from.metric_names != to.metric_names) {
    throw std::runtime_error(dir + ": the stored results have other columns than the study's");
  }
  to.append_rows(from);
}

}  // namespace

std::optional<MergePlan> plan_merge(const std::vector<std::string>& shard_dirs, std::vector<std::string>& problems) {
  const std::size_t problems_before = problems.size();
  std::vector<ShardRead> reads;
  for (const std::string& dir : shard_dirs) {
    const fs::path resolved = fs::path(dir) / "study.resolved.yaml";
    const std::string store_path = result_store_path(dir);
    std::error_code ec;
    if (!fs::is_regular_file(resolved, ec) || !fs::is_regular_file(store_path, ec)) {
      problems.push_back(dir + " is not a run folder (it needs study.resolved.yaml and results.sqlite)");
      continue;
    }
    ShardRead r;
    r.dir = dir;
    r.resolved = read_whole(resolved);
    try {
      const ResultStore store(store_path, StoreMode::read_only);
      for (auto& [key, value] : store.read_meta()) r.meta[key] = value;
      r.counts = store.meta(kSweepCountsKey);
    } catch (const std::exception& e) {
      problems.push_back(e.what());
      continue;
    }
    const auto spec = r.meta.find(kShardKey);
    if (spec == r.meta.end() || spec->second.empty()) {
      problems.push_back(dir + " is not a shard: it was not made with dsx run --shard I/N");
      continue;
    }
    std::string why;
    const auto parsed = parse_shard(spec->second, why);
    const auto first = whole(r.meta.count(kShardFirstKey) ? std::optional(r.meta[kShardFirstKey]) : std::nullopt);
    const auto end = whole(r.meta.count(kShardEndKey) ? std::optional(r.meta[kShardEndKey]) : std::nullopt);
    if (!parsed || !first || !end) {
      problems.push_back(dir + ": its store names no valid shard (" + spec->second + ")");
      continue;
    }
    r.shard = *parsed;
    r.first = *first;
    r.end = *end;
    reads.push_back(std::move(r));
  }
  if (reads.empty()) {
    if (problems.size() == problems_before) problems.push_back("no shard folder given");
    return std::nullopt;
  }
  const ShardRead& ref = reads.front();
  const auto identity_of = [](const ShardRead& r) -> std::optional<std::string> {
    const auto it = r.meta.find(kResultIdentityKey);
    return it == r.meta.end() ? std::nullopt : std::optional(it->second);
  };
  for (const ShardRead& r : reads) {
    const auto a = identity_of(ref), b = identity_of(r);
    if (a && b ? *a != *b : r.resolved != ref.resolved) {
      problems.push_back(r.dir + " holds another study than " + ref.dir +
                         (a && b ? " (their results depend on other axes, inputs or keep:)"
                                 : " (their study.resolved.yaml differ)"));
      continue;
    }
    for (const char* key : kIdentityKeys) {
      const auto a = ref.meta.find(key), b = r.meta.find(key);
      const std::string va = a == ref.meta.end() ? "missing" : a->second, vb = b == r.meta.end() ? "missing" : b->second;
      if (va != vb) problems.push_back(r.dir + " was made with " + key + " " + vb + ", " + ref.dir + " with " + va);
    }
    if (r.shard.count != ref.shard.count) {
      problems.push_back(r.dir + " is shard " + r.shard.text() + ", cut into " + std::to_string(r.shard.count) +
                         " shards, but " + ref.dir + " is one of " + std::to_string(ref.shard.count));
    }
  }
  if (problems.size() != problems_before) return std::nullopt;

  MergePlan plan;
  // The text of the first shard of the grid, whichever order the folders were given in.
  const ShardRead& text = *std::min_element(reads.begin(), reads.end(), [](const ShardRead& x, const ShardRead& y) {
    return x.shard.index < y.shard.index;
  });
  for (const ShardRead& r : reads) {
    if (r.resolved != text.resolved) {
      plan.notes.push_back("the shards' study.resolved.yaml differ in text their results do not depend on (titles, "
                           "prose, figures): the report takes " + text.dir + "'s; " + r.dir + " has other text");
      break;
    }
  }
  plan.resolved_text = text.resolved;
  Diagnostics diags;
  plan.study = load_study_text((fs::path(text.dir) / "study.resolved.yaml").string(), text.resolved, "", diags);
  if (!plan.study) {
    problems.push_back(diags.format());
    return std::nullopt;
  }
  if (const auto f = text.meta.find("study_file"); f != text.meta.end()) plan.study->file = f->second;
  for (const char* key : kCopiedKeys) {
    if (const auto it = text.meta.find(key); it != text.meta.end()) plan.identity.emplace_back(key, it->second);
  }
  const std::uint64_t grid_points = Grid(*plan.study).size();
  std::map<std::uint64_t, const ShardRead*> by_index;
  for (const ShardRead& r : reads) {
    if (const auto [it, fresh] = by_index.emplace(r.shard.index, &r); !fresh) {
      problems.push_back("shard " + r.shard.text() + " is given twice: " + it->second->dir + " and " + r.dir);
    }
  }
  std::vector<std::string> missing;
  for (std::uint64_t i = 0; i < ref.shard.count; ++i) {
    if (by_index.count(i) == 0) missing.push_back(std::to_string(i));
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < kMaxListed; ++i) list += (i == 0 ? "" : ", ") + missing[i];
    if (missing.size() > kMaxListed) list += " and " + std::to_string(missing.size() - kMaxListed) + " more";
    problems.push_back("missing shard" + std::string(missing.size() == 1 ? " " : "s ") + list + " of " +
                       std::to_string(ref.shard.count) + ": run dsx run " + plan.study->file + " --shard I/" +
                       std::to_string(ref.shard.count) + " --out DIR for each, then merge them all");
  }
  for (const auto& [index, r] : by_index) {
    const PointRange range = shard_range(r->shard, grid_points);
    if (range.first != r->first || range.end != r->end) {
      problems.push_back(r->dir + ": shard " + r->shard.text() + " should cover points " + std::to_string(range.first) +
                         " to " + std::to_string(range.end) + " of this grid, its store says " +
                         std::to_string(r->first) + " to " + std::to_string(r->end));
      continue;
    }
    ShardFolder folder{r->dir, r->shard, range, SweepCounts{}};
    try {
      if (r->counts) folder.counts = SweepCounts::from_json(*r->counts, *plan.study);
    } catch (const std::exception& e) {
      problems.push_back(r->dir + ": " + e.what());
      continue;
    }
    const std::uint64_t done = r->counts ? folder.counts.points_done : range.first;
    if (done < range.end) {
      problems.push_back("shard " + r->shard.text() + " in " + r->dir + " stopped after " +
                         std::to_string(done - range.first) + " of " + std::to_string(range.end - range.first) +
                         " points: finish it with dsx run " + plan.study->file + " --shard " + r->shard.text() +
                         " --out " + r->dir);
      continue;
    }
    plan.shards.push_back(std::move(folder));
  }
  if (problems.size() != problems_before) return std::nullopt;
  return plan;
}

void write_merged_store(const MergePlan& plan, const std::string& out_dir) {
  const ResolvedStudy& study = *plan.study;
  const Grid grid(study);
  ResultTable all = make_result_table(study);
  SweepCounts counts = RowKeeper(study, grid).counts();  // zero, in the study's shape
  for (const ShardFolder& s : plan.shards) {
    if (s.range.first == s.range.end) continue;  // more shards than points: an empty one
    const ResultStore store(result_store_path(s.dir), StoreMode::read_only);
    append_rows(all, store.read_results(), s.dir);
    counts.append(s.counts, s.range.first);
  }
  RowKeeper keeper(study, grid);
  keeper.restore(all, counts);
  ResultTable kept = all;
  if (!keeper.keeps_all()) {
    const std::vector<std::uint64_t>& drop = keeper.unkept_after_restore();
    std::vector<std::size_t> rows;
    for (std::size_t r = 0; r < all.rows(); ++r) {
      if (!std::binary_search(drop.begin(), drop.end(), all.point_index[r])) rows.push_back(r);
    }
    ResultTable chosen = make_result_table(study);
    for (const std::size_t r : rows) chosen.append_row(all, r);
    kept = std::move(chosen);
  }
  fs::create_directories(out_dir);
  {
    std::ofstream out(fs::path(out_dir) / "study.resolved.yaml", std::ios::binary);
    out << plan.resolved_text;
    if (!out) throw std::runtime_error(out_dir + "/study.resolved.yaml: cannot be written");
  }
  ResultStore store(result_store_path(out_dir));
  store.set_meta(plan.identity);
  store.ensure_schema(make_result_table(study));
  const std::pair<std::string, std::string> meta[] = {{kSweepCountsKey, counts.to_json()}};
  store.commit_block(kept, {}, meta);
}

}  // namespace dsx
