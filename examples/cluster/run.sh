#!/usr/bin/env bash
# make run-cluster: three hosts, Go, Python and Go, serving one data set from one PostgreSQL
# database, with this checkout's git history as the public project "forgecore" on the
# repository storage "default". Prints each host's URL, an administrator token (valid on every
# host: tokens live in the database) and a first request to try against each, then serves
# until Ctrl-C (or SIGTERM), which stops the hosts.
#
# It runs inside pg_virtualenv (the Makefile's PG_RUN), which sets PGHOST, PGPORT, PGUSER and
# PGPASSWORD for a throw-away server and drops it when this script ends, after the release
# library and the Go host linked with it are built (GO_HOST, FORGECORE_LIB: the Makefile
# passes target/release's).
# Settings: HOST (127.0.0.1), CLUSTER_PORT (8081: the hosts listen on it and the two ports
# after it), PYTHON (python3). State: .run/cluster (made afresh: the database is new each run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
: "${PGHOST:?run me through make run-cluster, inside pg_virtualenv}" "${PGPORT:?}" "${PGUSER:?}" "${PGPASSWORD:?}"
host=${HOST:-127.0.0.1}
first_port=${CLUSTER_PORT:-8081}
python=${PYTHON:-python3}
go_host=${GO_HOST:-$root/target/release/forgecore-http}
export PYTHONPATH=$root/bindings/python${PYTHONPATH:+:$PYTHONPATH}
export FORGECORE_LIB=${FORGECORE_LIB:-$root/target/release/libforgecore.so}
state=$root/.run/cluster
kinds=(go python go)

# The storage is the directory holding this checkout's git directory, so that the project is
# the live history (a linked worktree's common git directory works as well as a clone's .git).
git_dir=$(cd "$(git rev-parse --git-common-dir)" && pwd -P)
storage=$(dirname "$git_dir")

rm -rf "$state"
mkdir -p "$state"
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c 'CREATE DATABASE forgecore'
database="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/forgecore"
config=$state/config.json
"$python" -c 'import json, sys; json.dump({"store": {"postgres": sys.argv[1], "pool_size": 8, "timeout_millis": 5000},
                                         "storages": {"default": sys.argv[2]}}, open(sys.argv[3], "w"), indent=2)' \
  "$database" "$storage" "$config"

declare -a pids
stopping=
stop_hosts() {
  [ -n "$stopping" ] && return
  stopping=1
  [ ${#pids[@]} -gt 0 ] || return 0
  echo "stopping the hosts"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
# Ctrl-C reaches the hosts too (they stop on SIGINT); either way this is the normal end.
trap stop_hosts EXIT
trap 'exit 0' INT TERM

# launch N [ARGS...]: host N (1-3) on CLUSTER_PORT+N-1 in the background, its output in
# $state/host-N.log.
launch() {
  local n=$1 kind=${kinds[$1-1]} port=$((first_port + $1 - 1))
  shift
  if [ "$kind" = go ]; then
    "$go_host" -listen "$host:$port" -data-dir "$state/data-$n" -config "$config" "$@" > "$state/host-$n.log" 2>&1 &
  else
    "$python" -m forgecore serve --listen "$host:$port" --data-dir "$state/data-$n" --config "$config" "$@" \
      > "$state/host-$n.log" 2>&1 &
  fi
  pids[$n]=$!
}

# alive PID: the process runs (an exited child stays a zombie until waited for).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat:0:1}" != Z ]
}

# ready N: waits until host N prints "listening on"; fails when it exits first or takes a minute.
ready() {
  local n=$1 waited=0
  until grep -q '^listening on ' "$state/host-$n.log"; do
    if ! alive "${pids[$n]}" || [ $waited -ge 600 ]; then
      echo "host $n (${kinds[$n-1]}) did not start:" >&2
      cat "$state/host-$n.log" >&2
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# The first host migrates the new database and creates the administrator; the project is
# registered before the others start, and they start together.
launch 1 -print-admin-token
ready 1
token=$(sed -n 's/^admin token: //p' "$state/host-1.log")
"$python" -m forgecore admin --config "$config" --data-dir "$state/admin" \
  project add forgecore --storage default --repo "$(basename "$git_dir")" --visibility public > /dev/null
launch 2
launch 3
ready 2
ready 3

url() { sed -n 's/^listening on //p' "$state/host-$1.log"; }
cat <<TEXT

forgecore on three hosts, one data set: PostgreSQL postgresql://$PGUSER@$PGHOST:$PGPORT/forgecore,
the storage "default" at $storage (project "forgecore": this checkout's history)
  host 1  ${kinds[0]}      $(url 1)   (log: .run/cluster/host-1.log)
  host 2  ${kinds[1]}  $(url 2)   (log: .run/cluster/host-2.log)
  host 3  ${kinds[2]}      $(url 3)   (log: .run/cluster/host-3.log)
admin token (every host): $token

try, one request a host (a role created on host 1 is listed by host 2 at once):
  curl -H "PRIVATE-TOKEN: $token" -H "Content-Type: application/json" -d '{"name": "shared", "base_access_level": 10}' $(url 1)/api/v4/member_roles
  curl -H "PRIVATE-TOKEN: $token" $(url 2)/api/v4/member_roles
  curl $(url 3)/api/v4/projects/forgecore/repository/tree

serving; Ctrl-C stops the hosts and drops the database server
TEXT

# Until a signal, or a host that ends by itself (which stops the others): a host that fails
# (not 0: SIGINT and SIGTERM stop a host with 0) fails the run.
set +e
wait -n "${pids[@]}"
status=$?
if [ -z "$stopping" ] && [ $status -ne 0 ] && [ $status -le 128 ]; then
  echo "a host failed (exit status $status); see .run/cluster/host-*.log" >&2
  exit 1
fi
