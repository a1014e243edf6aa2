// The Slurm batch scripts of docs/slurm as users run them:
//  - the array script's command per task, without a scheduler (SLURM_ARRAY_TASK_ID set by hand),
//    then `dsx merge`: the run one `dsx run` makes;
//  - under a real single-node Slurm the test starts in a temporary folder (munged, slurmctld and
//    slurmd from Debian's slurm-wlm and munge, on ports 16817 and 16818): `sbatch --array=0-2
//    --wait` of the array script, then the MPI script with two tasks through srun and PMIx. It needs
//    root (the daemons run as root) and is skipped, with the reason, when not root, when the
//    daemons are not installed, or when the cluster does not come up within 30 s.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kDsx = DSX_BINARY;

void expect_same_run(const fs::path& a, const fs::path& b) {
  for (const char* f : {"results.csv", "pareto.csv", "report.md", "report.html"}) {
    EXPECT_EQ(read_text(a / f), read_text(b / f)) << f;
    EXPECT_FALSE(read_text(a / f).empty()) << f;
  }
}

TEST(SlurmScripts, TheArrayScriptsCommandsWithoutASchedulerGiveTheSingleRun) {
  TempDir dir("slurm_script");
  const std::string base = dir.path();
  ASSERT_EQ(run_shell("'" + kDsx + "' run studies/quickstart.yaml --quiet --out '" + base + "/one'").exit_code, 0);
  for (int task = 0; task < 3; ++task) {
    const CommandResult r = run_shell("SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " SLURM_CPUS_PER_TASK=1 DSX='" + kDsx +
                           "' sh docs/slurm/array.sbatch studies/quickstart.yaml '" + base + "/run' 3");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  const CommandResult m = run_shell("'" + kDsx + "' merge '" + base + "/run' '" + base + "/run.shard-0' '" + base + "/run.shard-1' '" +
                         base + "/run.shard-2'");
  ASSERT_EQ(m.exit_code, 0) << m.out;
  expect_same_run(base + "/one", base + "/run");
}

// A single-node cluster in a temporary folder, shut down when the object goes.
class LocalSlurm {
 public:
  explicit LocalSlurm(const std::string& dir) : dir_(dir) {
    const std::string host = run_shell("hostname").out.substr(0, run_shell("hostname").out.find('\n'));
    fs::create_directories(dir_ + "/state");
    fs::create_directories(dir_ + "/spool");
    fs::create_directories(dir_ + "/munge");
    fs::permissions(dir_ + "/munge", fs::perms::owner_all);
    std::ofstream(dir_ + "/slurm.conf")
        << "ClusterName=dsxtest\nSlurmctldHost=" << host << "\nAuthType=auth/munge\nAuthInfo=socket=" << dir_
        << "/munge/munge.socket\nSlurmUser=root\nSlurmdUser=root\nStateSaveLocation=" << dir_
        << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\nSlurmctldPidFile=" << dir_
        << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\nSlurmctldLogFile=" << dir_
        << "/slurmctld.log\nSlurmdLogFile=" << dir_
        << "/slurmd.log\nSlurmctldPort=16817\nSlurmdPort=16818\nProctrackType=proctrack/linuxproc\n"
           "TaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nReturnToService=2\n"
           "MpiDefault=none\nNodeName="
        << host << " CPUs=" << std::max(2u, std::thread::hardware_concurrency())
        << " RealMemory=2000 State=UNKNOWN\nPartitionName=debug Nodes=" << host
        << " Default=YES MaxTime=INFINITE State=UP\n";
    env_ = "SLURM_CONF='" + dir_ + "/slurm.conf' ";
    started_ = run_shell("mungekey -c -f -k '" + dir_ + "/munge/munge.key' && munged --force --key-file='" + dir_ +
                     "/munge/munge.key' --socket='" + dir_ + "/munge/munge.socket' --pid-file='" + dir_ +
                     "/munge/munged.pid' --log-file='" + dir_ + "/munged.log' --seed-file='" + dir_ +
                     "/munge/seed' && " + env_ + "slurmctld && " + env_ + "slurmd")
                   .exit_code == 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (started_ && !up_ && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      up_ = run_shell(env_ + "sinfo -h -o %t").out.find("idle") != std::string::npos;
    }
  }
  ~LocalSlurm() {
    run_shell(env_ + "scontrol shutdown");
    run_shell("kill $(cat '" + dir_ + "/munge/munged.pid') 2>/dev/null");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  bool up() const { return up_; }
  const std::string& env() const { return env_; }
  std::string logs() const { return read_text(dir_ + "/slurmctld.log") + read_text(dir_ + "/slurmd.log"); }

 private:
  std::string dir_;
  std::string env_;
  bool started_ = false;
  bool up_ = false;
};

TEST(SlurmCluster, ArrayAndMpiScriptsRunOnARealScheduler) {
  if (geteuid() != 0) GTEST_SKIP() << "the test starts slurmctld and slurmd, which needs root";
  for (const char* tool : {"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo"}) {
    if (run_shell(std::string("command -v ") + tool).exit_code != 0) GTEST_SKIP() << tool << " is not installed";
  }
  if (run_shell("pgrep -x slurmctld").exit_code == 0) GTEST_SKIP() << "a slurmctld is already running here";
  TempDir dir("slurm_cluster");
  const std::string base = dir.path();
  LocalSlurm slurm(base + "/cluster");
  if (!slurm.up()) GTEST_SKIP() << "the single-node cluster did not come up in 30 s:\n" << slurm.logs();
  ASSERT_EQ(run_shell("'" + kDsx + "' run studies/quickstart.yaml --quiet --out '" + base + "/one'").exit_code, 0);

  const CommandResult array = run_shell(slurm.env() + "DSX='" + kDsx + "' timeout 120 sbatch --wait --array=0-2 --cpus-per-task=1 " +
                             "--output='" + base + "/array-%a.log' docs/slurm/array.sbatch studies/quickstart.yaml '" +
                             base + "/array' 3");
  ASSERT_EQ(array.exit_code, 0) << array.out << read_text(base + "/array-0.log");
  const CommandResult m = run_shell("'" + kDsx + "' merge '" + base + "/array' '" + base + "/array.shard-0' '" + base +
                         "/array.shard-1' '" + base + "/array.shard-2'");
  ASSERT_EQ(m.exit_code, 0) << m.out;
  expect_same_run(base + "/one", base + "/array");

  if (run_shell("'" + kDsx + "' --version").out.find("with MPI") == std::string::npos) return;
  // Open MPI keeps allocations until exit that LeakSanitizer would report in a sanitizer build.
  const CommandResult mpi = run_shell(slurm.env() + "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 DSX='" + kDsx + "' timeout 120 sbatch --wait --ntasks=2 --ntasks-per-node=2 " +
                           "--cpus-per-task=1 --output='" + base + "/mpi.log' docs/slurm/mpi.sbatch " +
                           "studies/quickstart.yaml '" + base + "/mpi'");
  ASSERT_EQ(mpi.exit_code, 0) << mpi.out << read_text(base + "/mpi.log");
  expect_same_run(base + "/one", base + "/mpi");
}

}  // namespace
}  // namespace dsx
