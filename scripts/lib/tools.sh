# Shared by scripts/deploy-check.sh and scripts/conformance.sh (sourced, not run).

# python_tools VENV PACKAGE==VERSION...
# Makes VENV a virtualenv holding exactly these pinned PyPI packages, installing only when
# the pins changed. A venv because Debian's python3 refuses pip installs into the system
# (PEP 668), and a venv needs no root and no --break-system-packages. Needs python3-venv.
python_tools() {
  local venv=$1
  shift
  local pins="$*"
  if [[ -f $venv/.pins && $(<"$venv/.pins") == "$pins" ]]; then return 0; fi
  echo "installing $pins into $venv (PyPI)" >&2
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
  echo "$pins" >"$venv/.pins"
}

# start_navpolicyd LOG ARGS...
# Starts `ARGS...` (a navpolicyd serve command listening on 127.0.0.1:0) in the background
# with stderr to LOG, waits for its `listening` event and sets daemon_pid and daemon_port.
# Returns 1 (daemon_port empty) when it does not start within 5 seconds.
start_navpolicyd() {
  local log=$1
  shift
  "$@" 2>"$log" &
  daemon_pid=$!
  daemon_port=""
  for _ in $(seq 1 250); do
    daemon_port=$(grep -o '"event":"listening","address":"127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    [[ -n $daemon_port ]] && return 0
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.02
  done
  return 1
}

# stop_navpolicyd: SIGTERM to the daemon start_navpolicyd started, and wait for it.
stop_navpolicyd() {
  if [[ -n ${daemon_pid:-} ]]; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=""
  fi
}
