#include "dse/cli/distributed.hpp"

#include <cstdlib>

#if DSX_HAS_MPI
#include <mpi.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "dse/diagnostics.hpp"
#include "dse/grid.hpp"
#include "dse/sweep.hpp"
#endif

namespace dsx::cli {

namespace {

// Whether a launcher started this process as one of several ranks (Open MPI's mpirun, a PMIx or
// PMI launcher such as Slurm's srun).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

[[maybe_unused]] bool g_mpi = false;
int g_rank = 0;
int g_size = 1;

}  // namespace

int world_rank() { return g_rank; }
int world_size() { return g_size; }

#if !DSX_HAS_MPI

bool built_with_mpi() { return false; }
MpiSession::MpiSession(int*, char***) { (void)launched_by_mpi(); }
MpiSession::~MpiSession() = default;
WorkerStart::~WorkerStart() = default;
void WorkerStart::go(const std::string&) { sent_ = true; }
SweepCounts coordinate_sweep(const ResolvedStudy& study, const Grid& grid, ResultStore& store,
                             const SweepOptions& options) {
  return sweep_into_store(study, grid, store, options);
}
int serve_sweep(unsigned) { return 0; }

#else

namespace {

constexpr int kTagRequest = 1;  // worker -> 0: ready for a block (empty)
constexpr int kTagWork = 2;     // 0 -> worker: {first, count}; count 0 = stop
constexpr int kTagResult = 3;   // worker -> 0: an evaluated block

// Byte buffers for one evaluated block: first, count, metrics per point, then per point its status
// and reason, its grid constraint (0 = evaluated), its metrics, and the error messages of the
// points that failed as (index, length, bytes).
class Writer {
 public:
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void put_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const char*>(data);
    bytes.insert(bytes.end(), p, p + n);
  }
  std::vector<char> bytes;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& b) : bytes_(b) {}
  template <class T>
  T get() {
    T v;
    take(&v, sizeof(T));
    return v;
  }
  void take(void* out, std::size_t n) {
    if (at_ + n > bytes_.size()) throw std::runtime_error("a worker's block message is truncated");
    std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }

 private:
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

std::vector<char> pack(const SweepBlock& block) {
  Writer w;
  const std::uint64_t metrics = block.count == 0 ? 0 : block.metrics.size() / block.count;
  w.put(block.first);
  w.put(block.count);
  w.put(metrics);
  for (const PointResult& r : block.results) {
    w.put(static_cast<std::uint8_t>(r.status));
    w.put(r.reason);
  }
  w.put_bytes(block.excluded.data(), block.excluded.size() * sizeof(std::uint32_t));
  w.put_bytes(block.metrics.data(), block.metrics.size() * sizeof(double));
  std::uint64_t failed = 0;
  for (const PointResult& r : block.results) failed += r.status == PointStatus::error ? 1 : 0;
  w.put(failed);
  for (std::uint64_t i = 0; i < block.count; ++i) {
    if (block.results[i].status != PointStatus::error) continue;
    w.put(i);
    w.put(static_cast<std::uint64_t>(block.errors[i].size()));
    w.put_bytes(block.errors[i].data(), block.errors[i].size());
  }
  return std::move(w.bytes);
}

void unpack(const std::vector<char>& bytes, SweepBlock& block) {
  Reader r(bytes);
  block.first = r.get<std::uint64_t>();
  block.count = r.get<std::uint64_t>();
  const auto metrics = r.get<std::uint64_t>();
  block.results.resize(block.count);
  for (PointResult& p : block.results) {
    p.status = static_cast<PointStatus>(r.get<std::uint8_t>());
    p.reason = r.get<std::uint8_t>();
  }
  block.excluded.resize(block.count);
  r.take(block.excluded.data(), block.count * sizeof(std::uint32_t));
  block.metrics.resize(block.count * metrics);
  r.take(block.metrics.data(), block.metrics.size() * sizeof(double));
  block.errors.assign(block.count, std::string());
  const auto failed = r.get<std::uint64_t>();
  for (std::uint64_t n = 0; n < failed; ++n) {
    const auto i = r.get<std::uint64_t>();
    const auto length = r.get<std::uint64_t>();
    if (i >= block.count) throw std::runtime_error("a worker's block message names a point outside the block");
    block.errors[i].resize(length);
    r.take(block.errors[i].data(), length);
  }
}

void send_work(int rank, std::uint64_t first, std::uint64_t count) {
  const std::uint64_t work[2] = {first, count};
  MPI_Send(work, 2, MPI_UINT64_T, rank, kTagWork, MPI_COMM_WORLD);
}

// The start message: an exit code (workers stop with it) or 0 and the resolved study's text.
void broadcast_start(int code, const std::string& text) {
  std::uint64_t header[2] = {static_cast<std::uint64_t>(code), text.size()};
  MPI_Bcast(header, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (code == 0) MPI_Bcast(const_cast<char*>(text.data()), static_cast<int>(text.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
}

}  // namespace

bool built_with_mpi() { return true; }

MpiSession::MpiSession(int* argc, char*** argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
}

MpiSession::~MpiSession() {
  if (g_mpi) MPI_Finalize();
}

WorkerStart::~WorkerStart() {
  if (g_size > 1 && g_rank == 0 && !sent_) broadcast_start(1, "");
}

void WorkerStart::go(const std::string& resolved_study_text) {
  sent_ = true;
  if (g_size > 1 && g_rank == 0) broadcast_start(0, resolved_study_text);
}

SweepCounts coordinate_sweep(const ResolvedStudy& study, const Grid& grid, ResultStore& store,
                             const SweepOptions& options) {
  if (g_size <= 1) return sweep_into_store(study, grid, store, options);
  RowKeeper keeper(study, grid);
  resume_keeper(keeper, store, study, options);
  const std::uint64_t total = std::min(grid.size(), options.end);
  const std::uint64_t block_points = std::max<std::uint64_t>(options.block_points, 1);
  std::uint64_t next = keeper.counts().points_done;  // first point not yet handed out
  std::map<std::uint64_t, SweepBlock> arrived;        // evaluated blocks waiting for their turn
  RowKeeper::Change change;
  int working = g_size - 1;                           // workers not yet told to stop
  const auto stopping = [&] { return options.stop != nullptr && *options.stop != 0; };
  std::vector<char> bytes;
  while (working > 0) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == kTagResult) {
      int size = 0;
      MPI_Get_count(&status, MPI_CHAR, &size);
      bytes.resize(static_cast<std::size_t>(size));
      MPI_Recv(bytes.data(), size, MPI_CHAR, status.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      SweepBlock block;
      unpack(bytes, block);
      if (options.progress != nullptr) options.progress->points_done.fetch_add(block.count, std::memory_order_relaxed);
      arrived.emplace(block.first, std::move(block));
    } else {
      MPI_Recv(nullptr, 0, MPI_CHAR, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    // Commit every block whose turn has come, in grid order, as one process would.
    for (auto it = arrived.find(keeper.counts().points_done); it != arrived.end();
         it = arrived.find(keeper.counts().points_done)) {
      take_and_commit(keeper, it->second, store, change);
      arrived.erase(it);
    }
    if (next < total && !stopping()) {
      const std::uint64_t count = std::min(block_points, total - next);
      send_work(status.MPI_SOURCE, next, count);
      next += count;
    } else {
      send_work(status.MPI_SOURCE, 0, 0);
      --working;
    }
  }
  // After a stop, blocks behind a gap stay uncommitted: a resumed run evaluates them again.
  return keeper.counts();
}

int serve_sweep(unsigned threads) {
  std::uint64_t header[2] = {0, 0};
  MPI_Bcast(header, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (header[0] != 0) return 0;  // rank 0 stopped before the sweep and reports why
  std::string text(header[1], '\0');
  MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  Diagnostics diags;
  const auto study = load_study_text("<resolved study from rank 0>", text, "", diags);
  if (!study) throw std::runtime_error("rank " + std::to_string(g_rank) + " cannot load the study rank 0 sent:\n" + diags.format());
  const Grid grid(*study);
  const GridGate gate(*study);
  SweepBlock block;
  MPI_Send(nullptr, 0, MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
  while (true) {
    std::uint64_t work[2] = {0, 0};
    MPI_Recv(work, 2, MPI_UINT64_T, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (work[1] == 0) return 0;
    evaluate_block(grid, *study->solver, work[0], work[1], threads, block, nullptr, &gate);
    const std::vector<char> bytes = pack(block);
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);
  }
}

#endif

}  // namespace dsx::cli
