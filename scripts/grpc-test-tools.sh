#!/usr/bin/env bash
# The PyPI packages the ext_authz gRPC live tests and bench/ext-authz-grpc.sh drive the listener
# with: grpcio (the reference gRPC implementation), xds-protos (Envoy's API, generated),
# grpcio-health-checking (grpc.health.v1) and protobuf, pinned, in a venv at .build/grpc-tools
# (scripts/lib/tools.sh: Debian's python3 refuses pip installs into the system).
# Usage: scripts/grpc-test-tools.sh   (make test-deps runs it; installs only when the pins changed)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/tools.sh
source scripts/lib/tools.sh
python_tools .build/grpc-tools grpcio==1.85.3 grpcio-health-checking==1.85.1 xds-protos==1.85.0 protobuf==7.36.2
