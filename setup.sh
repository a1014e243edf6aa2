#!/usr/bin/env bash
# dsx setup on Debian 12: installs what dsx needs through apt-get, builds it in Release, and then
#   ./setup.sh          runs the default study (studies/quickstart.yaml) and prints where the report is
#   ./setup.sh test     runs the whole test suite (ctest over GoogleTest), then again under ASan+UBSan,
#                       then replays the fuzz corpus of the study and catalog loaders (tests/fuzz) and
#                       runs a fixed number of mutations from a fixed seed: the same executions every time
#   ./setup.sh fuzz [S] fuzzes the loaders open-ended for S seconds each (default 600); what it finds
#                       lands in build-fuzzers/corpus-*, to be turned into corpus files and fixes
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-run}"
case "$mode" in run|test|fuzz) ;; *) echo "usage: ./setup.sh [run|test|fuzz [SECONDS]]" >&2; exit 2 ;; esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
packages=(
  g++ cmake make pkg-config git
  libboost-program-options-dev libtbb-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libyaml-dev nlohmann-json3-dev libkainjow-mustache-dev libmd4c-dev libmd4c-html0-dev
  libsqlite3-dev libfmt-dev libmuparser-dev
  gnuplot-nox fonts-dejavu-core
  libopenmpi-dev openmpi-bin
  python3 python3-dev pybind11-dev python3-numpy python3-pandas
)
# The tests also open report.html in headless Chromium (tests/output/browser_test.cpp), run the
# Slurm batch scripts on a single-node cluster they start (tests/cli/slurm_test.cpp); the fuzz
# targets (tests/fuzz) need clang's libFuzzer.
if [ "$mode" = test ]; then packages+=(chromium clang libclang-rt-14-dev slurm-wlm munge); fi
if [ "$mode" = fuzz ]; then packages+=(clang libclang-rt-14-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"
fi

jobs="$(nproc 2>/dev/null || echo 2)"

# The study and catalog loaders under libFuzzer + ASan (clang), in build-fuzzers.
build_fuzzers() {
  CXX=clang++ cmake -S . -B build-fuzzers -DCMAKE_BUILD_TYPE=Debug -DDSX_BUILD_TESTS=OFF -DDSX_BUILD_PYTHON=OFF \
    -DDSX_BUILD_BENCHMARKS=OFF -DDSX_BUILD_FUZZERS=ON \
    -DCMAKE_CXX_FLAGS="-O1 -fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only"
  cmake --build build-fuzzers -j "$jobs" --target study_fuzz catalog_fuzz
}

if [ "$mode" = fuzz ]; then
  seconds="${2:-600}"
  build_fuzzers
  for target in study catalog; do
    mkdir -p "build-fuzzers/corpus-$target" "build-fuzzers/crashes-$target"
    "./build-fuzzers/tests/fuzz/${target}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="build-fuzzers/crashes-$target/" -print_final_stats=1 \
      "build-fuzzers/corpus-$target" "tests/fuzz/corpus/$target"
  done
  echo "New inputs: build-fuzzers/corpus-*; failures: build-fuzzers/crashes-* (reproduce with the fuzzer and the"
  echo "file; add a fixed case to tests/fuzz/corpus/<target>/ with its fix)."
  exit 0
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"

if [ "$mode" = test ]; then
  ctest --test-dir build --output-on-failure -j "$jobs"
  # The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer. The browser tests
  # exercise Chromium, not dsx, and the 25-kill resume and the Slurm cluster repeat, at length, code
  # paths the shorter kill, resume and MPI tests already take under the sanitizers: they run in the
  # Release pass only.
  # The Python module is tested in the Release pass (an ASan library cannot load into python3).
  # -Og -g1: the optimizations that keep code debuggable and line tables only, enough for the
  # file:line of every frame in a sanitizer report. Against -O1 with full debug information this
  # halves the compile time of a file (output/report.cpp: 36 -> 19 CPU-s); the pass's tests run
  # a fifth to a third longer than at -O1 (282 -> 336-373 s on the 2-core VM).
  # CMAKE_CXX_FLAGS_DEBUG replaces the Debug type's own -g, which would otherwise follow -g1 and win.
  # -Wno-maybe-uninitialized: with -fsanitize=address, g++ 12 warns inside libstdc++'s own <regex>
  # (GCC bug 105616, https://gcc.gnu.org/bugzilla/show_bug.cgi?id=105616); the Release pass keeps
  # the warning.
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DDSX_BUILD_BENCHMARKS=OFF -DDSX_BUILD_PYTHON=OFF \
    -DCMAKE_CXX_FLAGS="-Og -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -Wno-maybe-uninitialized" \
    -DCMAKE_CXX_FLAGS_DEBUG="-g1" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
  cmake --build build-sanitize -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j "$jobs" -E '^(SlowBrowser|ResumeLong|SlurmCluster)\.'
  # The loaders under libFuzzer + ASan, deterministically: every corpus file once, then a fixed
  # number of mutations from a fixed seed (the same inputs on every machine); a crash, a leak, an
  # input over 60 s (a hang) or more than 2 GB fails the run. Open-ended fuzzing: ./setup.sh fuzz.
  build_fuzzers
  for target in study catalog; do
    case "$target" in study) runs=8000 ;; catalog) runs=20000 ;; esac
    rm -rf "build-fuzzers/ci-corpus-$target"
    mkdir -p "build-fuzzers/ci-corpus-$target"
    "./build-fuzzers/tests/fuzz/${target}_fuzz" -runs="$runs" -seed=20261123 -rss_limit_mb=2048 -timeout=60 \
      -print_final_stats=1 "build-fuzzers/ci-corpus-$target" "tests/fuzz/corpus/$target"
  done
else
  ./build/dsx run studies/quickstart.yaml
fi
