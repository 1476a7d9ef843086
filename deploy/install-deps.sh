#!/usr/bin/env bash
# Installs everything ContactSim needs to build and test, from Debian 12 packages only.
# Idempotent: packages already present are skipped; quiet unless something fails.
# CUDA is optional and not installed here: the GPU library builds when nvcc is found.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libeigen3-dev libabsl-dev libtbb-dev libassimp-dev libcli11-dev libspdlog-dev
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libgtest-dev libgmock-dev libbenchmark-dev
  libmetis-dev libcivetweb-dev
  clang-format clang-tidy python3  # the lint tests (format, naming, include arrows)
  openssl  # the TLS tests make throwaway certificates with it
  python3-grpcio python3-protobuf python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi

echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
log=$(mktemp)
export DEBIAN_FRONTEND=noninteractive
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  echo "install-deps: apt-get failed; its output:" >&2
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
echo "install-deps: done"
