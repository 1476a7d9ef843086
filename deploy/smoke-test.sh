#!/usr/bin/env bash
# deploy/smoke-test.sh [--cuda] — builds the server image with podman (no Docker engine or
# registry needed) and checks it end to end (docs/deploy.md, "Checking the image"):
#   1. the bookworm base image, made once with debootstrap from this machine's Debian mirror
#      (read from `apt-cache policy`) as ../shared/tools/fresh-machine does, when it is missing;
#   2. podman build --pull=never of deploy/Dockerfile (the whole project in Release: ~30-50 min on
#      2 cores the first time);
#   3. a container with a state volume, published on loopback; waits until its HEALTHCHECK
#      (`contactsim health`: the gRPC health service) passes;
#   4. real RPCs with the image's CLI: load a scene, step it, list it; health from the host
#      through the published port when a built CLI is there; the server's log says which backend
#      it has: the CPU image "this build has no CUDA backend"; the CUDA image, run without a GPU
#      (none is passed in), "no usable CUDA device", and a local_global session (soft_lift, which
#      picks CUDA where a device is usable) then runs on the CPU;
#   5. podman stop (SIGTERM): the container exits 0 (drained), and a second container on the same
#      volume serves the session again at the same step count (persisted), then stops cleanly.
# Exit 0 on success, 77 when podman is not installed, 1 with the reason otherwise. Run as root
# (podman rootful, as fresh-machine) from any directory.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build_args=()
cuda=off
if [[ ${1:-} == --cuda ]]; then
  build_args=(--build-arg CUDA=on)
  cuda=on
fi
command -v podman >/dev/null || { echo "smoke-test: SKIP: podman is not installed" >&2; exit 77; }

base=docker.io/library/debian:bookworm
tag=localhost/contactsim:smoke
if [[ $cuda == on ]]; then tag=localhost/contactsim:smoke-cuda; fi
name=contactsim-smoke-$$
volume=contactsim-smoke-$$
steps=50
# As ../shared/tools/fresh-machine: runc refuses limits above the caller's own hard limits.
limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=32768:32768)
say() { echo "smoke-test: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

cleanup() {
  podman rm -f "$name" "$name-2" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT

if ! podman image exists "$base"; then
  command -v debootstrap >/dev/null || fail "debootstrap is needed to make the base image"
  mirror=$(apt-cache policy | awk '$2 ~ /^https?:/ && $3 == "bookworm/main" {print $2; exit}')
  security=$(apt-cache policy | awk '$2 ~ /^https?:/ && $3 == "bookworm-security/main" {print $2; exit}')
  [[ -n $mirror ]] || fail "could not read the Debian mirror from apt-cache policy"
  rootfs=$(mktemp -d /tmp/contactsim-rootfs.XXXXXX)
  say "making the bookworm base image (once)..."
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  : >"$rootfs/etc/resolv.conf"
  : >"$rootfs/etc/hostname"
  {
    echo "deb $mirror bookworm main"
    echo "deb $mirror bookworm-updates main"
    if [[ -n $security ]]; then echo "deb $security bookworm-security main"; fi
  } >"$rootfs/etc/apt/sources.list"
  tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
  rm -rf "$rootfs"
fi

say "building $tag (podman build --pull=never)..."
started=$(date +%s)
podman build --pull=never --format docker --runtime runc "${limits[@]}" "${build_args[@]}" \
  -f "$repo/deploy/Dockerfile" -t "$tag" "$repo" >&2
say "built in $(($(date +%s) - started)) s; $(podman image inspect "$tag" --format '{{.Size}}') bytes"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
podman volume create "$volume" >/dev/null

run_server() {  # NAME
  podman run -d --name "$1" --runtime runc "${limits[@]}" -p "127.0.0.1:$port:50051" \
    -v "$volume:/var/lib/contactsim/state" "$tag" >/dev/null
}

wait_healthy() {  # NAME
  local deadline=$((SECONDS + 120))
  until podman healthcheck run "$1" >/dev/null 2>&1; do
    [[ $(podman inspect "$1" --format '{{.State.Running}}') == true ]] ||
      fail "$1 exited: $(podman logs "$1" 2>&1 | tail -20)"
    ((SECONDS < deadline)) || fail "$1 not healthy after 120 s: $(podman logs "$1" 2>&1 | tail -20)"
    sleep 1
  done
}

cli() {  # NAME ARGS...: the image's own CLI, inside the container
  local container=$1
  shift
  podman exec "$container" contactsim --server 127.0.0.1:50051 "$@"
}

stop_drained() {  # NAME: SIGTERM, exit status 0, the log's last word
  podman stop -t 30 "$1" >/dev/null
  local code
  code=$(podman inspect "$1" --format '{{.State.ExitCode}}')
  [[ $code == 0 ]] || fail "$1 exited $code after SIGTERM: $(podman logs "$1" 2>&1 | tail -20)"
  podman logs "$1" 2>&1 | grep -q "event=server_stopped" || fail "$1 did not log its drain"
}

run_server "$name"
wait_healthy "$name"
say "healthy; the HEALTHCHECK says: $(cli "$name" health)"
device_line=$(podman logs "$name" 2>&1 | grep -m1 "event=device_chosen" || true)
say "the server's log: ${device_line#* event=}"
if [[ $cuda == on ]]; then
  # Built with CUDA, started without a GPU: it says why CUDA is unusable and serves the CPU.
  grep -q "CUDA is not usable (no usable CUDA device" <<<"$device_line" ||
    fail "the CUDA image did not report an unusable CUDA device: $device_line"
  soft=$(cli "$name" load /usr/local/share/contactsim/scenes/soft_lift.textproto)
  soft_session=$(awk '$1 == "session_id:" {print $2}' <<<"$soft")
  soft_token=$(awk '$1 == "controller_token:" {print $2}' <<<"$soft")
  [[ -n $soft_session ]] || fail "soft_lift: load printed no session: $soft"
  cli "$name" step "$soft_session" --token "$soft_token" --steps 2 >/dev/null
  soft_listed=$(cli "$name" sessions | grep "^$soft_session ")
  grep -q " pipeline=local_global .*device=cpu .*steps=2 " <<<"$soft_listed" ||
    fail "the local_global session did not run on the CPU: $soft_listed"
  say "a local_global session runs on the CPU: $soft_listed"
else
  grep -q "CUDA is not usable (this build has no CUDA backend" <<<"$device_line" ||
    fail "the CPU image did not say it has no CUDA backend: $device_line"
fi
loaded=$(cli "$name" load /usr/local/share/contactsim/scenes/box.textproto)
session=$(awk '$1 == "session_id:" {print $2}' <<<"$loaded")
token=$(awk '$1 == "controller_token:" {print $2}' <<<"$loaded")
[[ -n $session && -n $token ]] || fail "load printed no session: $loaded"
cli "$name" step "$session" --token "$token" --steps "$steps" >/dev/null
cli "$name" sessions | grep -q "$session .*steps=$steps " || fail "the session did not step"
if [[ -x $repo/build/clients/cpp/contactsim ]]; then
  "$repo/build/clients/cpp/contactsim" --server "127.0.0.1:$port" health >/dev/null ||
    fail "health through the published port"
fi
say "session $session stepped $steps times; stopping (SIGTERM)..."
stop_drained "$name"
say "drained (exit 0); a new container on the same volume..."

run_server "$name-2"
wait_healthy "$name-2"
cli "$name-2" sessions | grep -q "$session .*steps=$steps " ||
  fail "the session did not come back: $(cli "$name-2" sessions)"
cli "$name-2" step "$session" --token "$token" --steps 1 >/dev/null ||
  fail "the restored session refused its controller token"
stop_drained "$name-2"
say "OK: built, healthy, stepped, drained, persisted and restored"
