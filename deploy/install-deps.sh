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
  prometheus-cpp-dev  # the server's Prometheus metrics and /metrics listener (MIT; server/metrics)
  libsiconos-numerics-dev  # test-only: the LCP solvers' cross-check (Apache-2.0; tests/core/contact)
  libqhull-dev  # convex hulls of polytope bodies (reentrant qhull_r; the Qhull licence)
  liburdfdom-dev  # robot descriptions from URDF (BSD; core/dynamics/robots)
  libtinyxml2-dev  # the C++ client finds a URDF's mesh files (zlib licence; clients/cpp)
  libssl-dev  # the viewer's TLS links OpenSSL (and civetweb loads libssl.so at run time)
  clang-format clang-tidy python3  # the lint tests (format, naming, include arrows)
  clang libclang-rt-14-dev  # the fuzz preset: libFuzzer, ASan and UBSan (docs/fuzzing.md)
  openssl  # the TLS tests make throwaway certificates with it
  python3-grpcio python3-protobuf python3-matplotlib
  python3-numpy  # the Python client's results and inputs are numpy arrays (tests/python)
  # `pip install clients/python` into a venv (docs/python.md): venv and pip, and Debian's
  # setuptools and wheel for --no-build-isolation (no package index needed)
  python3-venv python3-pip python3-setuptools python3-wheel
  # Deployment tests (tests/deploy): the gateway (nginx grpc_pass), the manifests' structure.
  nginx python3-yaml
  # The headless browser of tests/web and bench/viewer_bench.mjs (browser viewer, docs/viewer.md).
  chromium
  # web.firefox: the viewer in Firefox too (the issue asks for Chromium and Firefox), driven by
  # playwright-core's WebDriver-BiDi driver; headless Firefox draws WebGL only through an X
  # display, so the test gives it a private Xvfb (docs/viewer.md, "Tests").
  firefox-esr xvfb
)
# node and npm bundle the viewer page at build time (esbuild) and run its tests: Debian's
# nodejs and npm unless a node (e.g. NodeSource's, which bundles npm) is already on PATH.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# The viewer page's npm packages (three.js, esbuild, playwright-core), exactly as pinned in
# clients/web/package-lock.json, into clients/web/node_modules (git-ignored).
install_npm_packages() {
  local web_dir
  web_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/clients/web"
  if [ -f "$web_dir/node_modules/.package-lock.json" ] &&
     [ "$web_dir/node_modules/.package-lock.json" -nt "$web_dir/package-lock.json" ]; then
    echo "install-deps: clients/web npm packages present"
    return 0
  fi
  echo "install-deps: npm ci in clients/web (from package-lock.json)"
  # The viewer page is optional: without the npm registry the server, clients and every other
  # test still build and run; the page is not bundled and the web tests skip, saying why.
  if ! (cd "$web_dir" && npm ci --no-audit --no-fund --loglevel=error); then
    echo "install-deps: WARNING: npm ci failed (is the npm registry reachable?); the browser" \
         "viewer page will not be built and the web tests will skip" >&2
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_npm_packages
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
install_npm_packages
echo "install-deps: done"
