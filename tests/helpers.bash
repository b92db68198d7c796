# Shared by the bats suites. They run inside the tools image (make test).
ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export ROOT

bats_load_library bats-support
bats_load_library bats-assert

# Node, core and leaf counts from a generated topology.json.
json_count() { jq "$2" "$ROOT/build/test-config/$1/topology.json"; }

generate() {
	python3 "$ROOT/emulated-clusters/generate.py" "$1" "$ROOT/build/test-config/$1" \
		--topologies-dir "${TOPOLOGIES_DIR:-$ROOT/../shared/topologies}" "${@:2}"
}

# Retries a command until it succeeds or the time (s) runs out.
wait_for() {
	local limit=$1 start=$SECONDS
	shift
	until "$@"; do
		[ $((SECONDS - start)) -lt "$limit" ] || return 1
		sleep 1
	done
}

sacct_json() { make -s -C "$ROOT" exec CMD="sacct -X --json -j $1"; }

job_state() { sacct_json "$1" | jq -r '.jobs[0].state.current[0] // empty'; }

job_completed() { [ "$(job_state "$1")" = COMPLETED ]; }

# scripts/testbed's cluster_dir: another TESTBED_PROJECT has its own
# generated configuration.
cluster_dir() {
	if [ "${TESTBED_PROJECT:-testbed}" = testbed ]; then
		echo "$ROOT/build/clusters/$1"
	else
		echo "$ROOT/build/projects/$TESTBED_PROJECT/clusters/$1"
	fi
}
