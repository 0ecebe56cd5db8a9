#!/usr/bin/env bash
# make conformance: docs/openapi.yaml against a live daemon, with the ecosystem's own tools.
#   openapi-spec-validator   the document is valid OpenAPI 3.1 (PyPI)
#   schemathesis             property-based requests from the document, every check (`--checks all`),
#                            against `serve` on the default config: once without tokens, once with
#                            an admin token (and server.requireTokenForDecide) and an intake token
# Both are pinned and go into a venv under .build/ (scripts/lib/tools.sh). The seed is fixed and
# the examples per operation bounded (CONFORMANCE_EXAMPLES, default 40), so a run is reproducible
# and takes about a minute on 2 cores. Any failure fails the script.
# Usage: scripts/conformance.sh [BINARY]   (default: .build/debug/navpolicyd)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/debug/navpolicyd}")
examples=${CONFORMANCE_EXAMPLES:-40}
seed=${CONFORMANCE_SEED:-20260511}
# shellcheck source=scripts/lib/tools.sh
source scripts/lib/tools.sh
tools=.build/conformance-tools
python_tools "$tools" schemathesis==4.32.5 openapi-spec-validator==0.9.0

scratch=$(mktemp -d)
daemon_pid=""
cleanup() {
  stop_navpolicyd
  rm -rf "$scratch"
}
trap cleanup EXIT

"$tools/bin/openapi-spec-validator" docs/openapi.yaml

# run_schemathesis NAME CONFIG [ENV...]: a fresh daemon (own data directory) and one run.
failed=0
run_schemathesis() {
  local name=$1 config=$2
  shift 2
  local data=$scratch/$name-data
  if ! start_navpolicyd "$scratch/$name.log" env "$@" NAVPOLICY_DATA_DIR="$data" \
    "$binary" serve --config "$config" --listen 127.0.0.1:0; then
    echo "conformance ($name): the daemon did not start: $(cat "$scratch/$name.log")" >&2
    failed=1
    return
  fi
  echo "conformance ($name): schemathesis against 127.0.0.1:$daemon_port, seed $seed, $examples examples per operation"
  # No proxies from the environment: the daemon is on loopback.
  if ! env "$@" PYTHONPATH=scripts NO_PROXY='*' no_proxy='*' "$tools/bin/st" --no-color --config-file scripts/schemathesis.toml run \
    docs/openapi.yaml --url "http://127.0.0.1:$daemon_port" --checks all --seed "$seed" \
    --max-examples "$examples" --workers 1 --request-timeout 10 --suppress-health-check all \
    --report junit --report-dir "$scratch/$name-report"; then
    failed=1
  fi
  stop_navpolicyd
  if grep -q '"level":"fault"\|"event":"crash"' "$scratch/$name.log"; then
    echo "conformance ($name): the daemon logged a fault:" >&2
    grep '"level":"fault"\|"event":"crash"' "$scratch/$name.log" >&2
    failed=1
  fi
}

# Strong tokens, new each run (the daemon refuses weak or placeholder ones).
admin_token=$(/usr/bin/python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
intake_token=$(/usr/bin/python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
/usr/bin/python3 - config/navpolicy.json "$scratch/protected.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config.setdefault("server", {})["requireTokenForDecide"] = True
json.dump(config, open(sys.argv[2], "w"), indent=2)
PY

# Without tokens the auth sections of scripts/schemathesis.toml resolve to nothing.
run_schemathesis open config/navpolicy.json NAVPOLICY_ADMIN_TOKEN= NAVPOLICY_INTAKE_TOKEN=
run_schemathesis tokens "$scratch/protected.json" \
  NAVPOLICY_ADMIN_TOKEN="$admin_token" NAVPOLICY_INTAKE_TOKEN="$intake_token"

if [[ $failed -ne 0 ]]; then
  echo "conformance: FAILED"
  exit 1
fi
echo "conformance: openapi-spec-validator and schemathesis (open and with tokens): 0 failures"
