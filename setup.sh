#!/usr/bin/env bash
# Installs dsx's build and runtime dependencies from Debian's packages (Debian 12).
# Usage: ./setup.sh            build deps + runtime
#        ./setup.sh --browser  also chromium for the report browser test
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
packages=(
  g++ cmake make pkg-config
  libboost-program-options-dev libtbb-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libyaml-dev nlohmann-json3-dev libkainjow-mustache-dev libmd4c-dev libmd4c-html0-dev
  libsqlite3-dev libfmt-dev libmuparser-dev
  gnuplot-nox fonts-dejavu-core
)
if [ "${1:-}" = "--browser" ]; then packages+=(chromium); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"
fi
