#!/usr/bin/env bash
# dsx setup on Debian 12: installs what dsx needs through apt-get, builds it in Release, and then
#   ./setup.sh          runs the default study (studies/quickstart.yaml) and prints where the report is
#   ./setup.sh test     runs the whole test suite (ctest over GoogleTest)
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-run}"
case "$mode" in run|test) ;; *) echo "usage: ./setup.sh [run|test]" >&2; exit 2 ;; esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
packages=(
  g++ cmake make pkg-config git
  libboost-program-options-dev libtbb-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libyaml-dev nlohmann-json3-dev libkainjow-mustache-dev libmd4c-dev libmd4c-html0-dev
  libsqlite3-dev libfmt-dev libmuparser-dev
  gnuplot-nox fonts-dejavu-core
)
# The tests also open report.html in headless Chromium (tests/output/browser_test.cpp).
if [ "$mode" = test ]; then packages+=(chromium); fi
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
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"

if [ "$mode" = test ]; then
  ctest --test-dir build --output-on-failure -j "$jobs"
else
  ./build/dsx run studies/quickstart.yaml
fi
