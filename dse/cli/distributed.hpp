// `mpirun -np N dsx run STUDY.yaml`: one study over N processes (Open MPI), with the results a
// single process gives, byte for byte.
//
// Rank 0 does what `dsx run` does alone (loads the study, owns the run folder and its store, keeps
// rows, writes the report) except evaluating: it hands out blocks of the grid to ranks 1..N-1 on
// request, one at a time, so a rank that meets a slow region of the grid simply asks less often.
// Each worker evaluates its block with all its threads and sends the raw results back; rank 0
// takes the blocks in grid order (holding any that arrive early) and commits each exactly as a
// single process commits it (dse/sweep_store.hpp), so the store, the kept rows, the counts and the
// report are the same, and a killed run resumes from its last committed block. Workers load the
// study from the resolved text rank 0 sends, never from their own files.
//
// Built only when CMake finds MPI (option DSX_WITH_MPI); otherwise every function here reports a
// single process. A process counts as launched by MPI when Open MPI's, PMIx's or PMI's environment
// variables say so; dsx started on its own never initialises MPI.
#pragma once

#include <string>

#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep_store.hpp"

namespace dsx::cli {

// Starts MPI for the process when a launcher started it, and finalises it when destroyed.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

int world_rank();  // 0 without MPI
int world_size();  // 1 without MPI
bool built_with_mpi();

// Rank 0's side of the start: the workers wait for either the study (go) or a stop. Until go() is
// called, destroying it stops them (so every early return of rank 0 ends the workers too).
class WorkerStart {
 public:
  WorkerStart() = default;
  ~WorkerStart();
  WorkerStart(const WorkerStart&) = delete;
  WorkerStart& operator=(const WorkerStart&) = delete;
  // Sends the resolved study to every worker; after this the sweep must run on rank 0.
  void go(const std::string& resolved_study_text);

 private:
  bool sent_ = false;
};

// Rank 0: the sweep of sweep_into_store, with the evaluation done by the workers.
SweepCounts coordinate_sweep(const ResolvedStudy& study, const Grid& grid, ResultStore& store,
                             const SweepOptions& options);

// Ranks 1..N-1 of `dsx run`: waits for the start, evaluates blocks until told to stop. Returns the
// process's exit code (the one rank 0 sent when it stopped before the sweep, else 0).
int serve_sweep(unsigned threads);

}  // namespace dsx::cli
