# Shared by the bats suites. They run inside the tools image (make test).
ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export ROOT

bats_load_library bats-support
bats_load_library bats-assert

# The logs the replays read: the real ones where the clone has them
# (WORKLOADS_DIR: ../shared/workloads beside it, as in CI, or what `make
# fetch-logs` fetched); on a bare clone, the synthetic Theta log in the
# study's format in tests/fixtures/workloads (its README).
if [ ! -f "${WORKLOADS_DIR:-}/seed000-theta-2018.jobs" ]; then
	WORKLOADS_DIR=$ROOT/tests/fixtures/workloads
fi
export WORKLOADS_DIR
# real_logs: the tests that check a real log's own content (its pinned
# sha256) skip without it, saying how to get it.
real_logs() {
	[ "$WORKLOADS_DIR" != "$ROOT/tests/fixtures/workloads" ] ||
		skip "the real logs are not here: run 'make fetch-logs' or set WORKLOADS_DIR (../shared/workloads)"
}
# The topology files (TOPOLOGIES_DIR, default ../shared/topologies).
real_topology() {
	[ -f "${TOPOLOGIES_DIR:-$ROOT/../shared/topologies}/$1" ] ||
		skip "$1 is not here: set TOPOLOGIES_DIR to a directory that has it (../shared/topologies)"
}

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

# kill_tree <pid>: ends a command the test started in the background and
# everything it started, and nothing else (pkill -f would end other
# projects' replays on the machine too). SIGINT to it and its descendants
# (the replay driver under make stops cleanly on it: it records the stop
# and sets the clock back to rate 1), then SIGKILL to whatever has not
# ended within 30 s.
kill_tree() {
	local all=() new=("$1") p
	while [ ${#new[@]} -gt 0 ]; do
		all+=("${new[@]}")
		mapfile -t new < <(for p in "${new[@]}"; do ps -o pid= --ppid "$p"; done | awk '{print $1}')
	done
	kill -INT "${all[@]}" 2>/dev/null || true
	wait_for 30 ended "${all[*]}" || true
	kill -KILL "${all[@]}" 2>/dev/null || true
}

# ended "<pid> <pid> ...": none of them runs (a zombie has ended: its
# parent has yet to reap it).
ended() { ! ps -o stat= -p "$1" | grep -qv '^Z'; }

sacct_json() { make -s -C "$ROOT" exec CMD="sacct -X --json -j $1"; }

job_state() { sacct_json "$1" | jq -r '.jobs[0].state.current[0] // empty'; }

job_completed() { [ "$(job_state "$1")" = COMPLETED ]; }

# scripts/testbed's cluster_dir: another TESTBED_PROJECT than the clone's
# own (TESTBED_CLONE_PROJECT) has its own generated configuration.
cluster_dir() {
	if [ "$TESTBED_PROJECT" = "$TESTBED_CLONE_PROJECT" ]; then
		echo "$ROOT/build/clusters/$1"
	else
		echo "$ROOT/build/projects/$TESTBED_PROJECT/clusters/$1"
	fi
}

# check_run <run dir> [resumed] [slack]: a resumed run's jobs whose time
# passed while the driver was stopped become eligible late, never early;
# slack: how much longer than its runtime a job may take (s of Slurm's
# time, default 3).
check_run() {
	local run=$1 resumed=${2:-} planned n s slack=${3:-3}
	s=$(jq .speedup "$run/manifest.json")
	planned=$(($(wc -l <"$run/plan.tsv") - 1))
	n=$(jq '.jobs | length' "$run/sacct.json")
	assert_equal "$n" "$planned"
	# Every job of the window once, COMPLETED.
	assert_equal "$(jq '[.jobs[].name] | unique | length' "$run/sacct.json")" "$planned"
	assert_equal "$(jq '[.jobs[] | select(.state.current[0] != "COMPLETED")] | length' "$run/sacct.json")" 0
	assert_equal "$(jq -r .finished "$run/manifest.json")" true
	# The run keeps the topology it ran on, for the report's APH.
	assert_equal "$(sha256sum <"$run/topology.json" | cut -d' ' -f1)" \
		"$(jq -r .topology_sha256 "$run/manifest.json")"
	# Elapsed = scaled runtime / SPEEDUP, within 1 s (sacct counts whole
	# seconds) plus up to 2 s of launch overhead (slurmstepd starting on a
	# front end; seen up to 2.2 s with several jobs starting at once on a
	# loaded 2-core machine).
	jq -r '.jobs[] | [.time.elapsed, (.comment.administrator |
		capture("runtime_scaled=(?<s>[0-9.e+]+)").s)] | @tsv' "$run/sacct.json" |
		awk -v s="$s" -v slack="$slack" '{d = $1 - $2 / s; if (d < -1 || d > slack) {print "elapsed " $1 " for " $2 / s; bad = 1}}
		     END {exit bad}'
	# Eligible times follow the log: t0 + offset / SPEEDUP, within 1 s.
	local t0
	t0=$(jq .t0 "$run/manifest.json")
	join <(tail -n +2 "$run/plan.tsv" | awk '{print $1, $2}' | sort) \
		<(jq -r '.jobs[] | [(.name | split(":")[1]), .time.eligible] | @tsv' "$run/sacct.json" | sort) |
		awk -v t0="$t0" -v s="$s" -v late="${resumed:+1}" '{d = $3 - (t0 + $2 / s); if (d < -1 || (d > 1 && !late)) {print "job " $1 " eligible off by " d; bad = 1}}
		     END {exit bad}'
	# Time limits: five times the log runtime (the window has no requested
	# times), rounded up to the manifest's log-time grid, in wall minutes.
	local grid
	grid=$(jq .limit_grid_s "$run/manifest.json")
	[ "$grid" != null ] || fail "manifest has no limit_grid_s"
	join <(tail -n +2 "$run/plan.tsv" | awk '{print $1, $3}' | sort) \
		<(jq -r '.jobs[] | [(.name | split(":")[1]), .time.limit.number] | @tsv' "$run/sacct.json" | sort) |
		awk -v g="$grid" -v s="$s" '{w = 5 * $2; k = int(w / g); if (k * g < w - 1e-6) k++; m = k * g / s / 60;
		     if ($3 != m) {print "job " $1 " limit " $3 " min, expected " m; bad = 1}}
		     END {exit bad}'
}
