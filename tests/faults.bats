#!/usr/bin/env bats
# Fault drills on tiny: a service dies during a replay. Each drill checks
# what the testbed says, what it loses and that nothing hit by the fault is
# counted as a result.

setup_file() {
	load helpers
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

container_of() {
	docker ps -aq --filter "label=com.docker.compose.project=${TESTBED_PROJECT:-testbed}" \
		--filter "label=com.docker.compose.service=$1"
}

running_jobs() { [ -n "$(make -s -C "$ROOT" exec CMD="squeue -h -t R -o %i")" ]; }

newest_run() { ls -d "$ROOT"/results/*-theta-"$1"* 2>/dev/null | tail -n 1; }

@test "an emulator killed mid-replay is named within 10 s, its jobs requeued at once, it is restarted and its jobs are flagged" {
	local out="$BATS_TEST_TMPDIR/replay.out" pid t0 took run
	make -s -C "$ROOT" replay LOG=theta JOBS=16 SCALE=16 SPEEDUP=600 POLICY=firstfit \
		AUTO_RECOVER=1 >"$out" 2>&1 &
	pid=$!
	wait_for 120 running_jobs || fail "no job started"
	t0=$SECONDS
	docker kill "$(container_of emu1)" >/dev/null
	wait_for 10 grep -q 'FAULT: emu1 is exited' "$out" ||
		fail "emu1's death was not named within 10 s: $(cat "$out")"
	took=$((SECONDS - t0))
	echo "# detected after ${took} s" >&3
	# The container is back and its front ends with it.
	wait_for 30 grep -q 'recovered: emu1 runs again' "$out" || fail "emu1 was not recovered"
	# Bounded: the requeued jobs start again after Slurm's requeue delay.
	wait_for 600 bash -c "! kill -0 $pid 2>/dev/null" || fail "the replay did not end: $(tail -n 3 "$out")"
	wait "$pid" || fail "the replay failed: $(tail -n 5 "$out")"
	run=$(newest_run firstfit)
	# What happened is on record: the death, the front ends drained and
	# the jobs that ran there requeued at once.
	run jq -r 'select(.kind == "died") | [.service, .drained, (.jobs | length > 0)] | @tsv' "$run/faults.jsonl"
	assert_output "$(printf 'emu1\ttrue\ttrue')"
	run grep -c '"kind": "recovered"' "$run/faults.jsonl"
	assert_output 1
	# Every job of the window is accounted for; the ones the death hit
	# (NODE_FAIL or requeued) are flagged and left out of the metrics.
	assert_equal "$(jq '.jobs | length' "$run/sacct.json")" 16
	make -s -C "$ROOT" report RUN="$(basename "$run")" >/dev/null
	local hit
	hit=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "fault") c = i; next}
		$c != "" {n++} END {print n + 0}' "$run/jobs.csv")
	[ "$hit" -ge 1 ] || fail "no job is flagged, though jobs were running when emu1 died"
	assert_equal "$(jq .fault_jobs "$run/metrics.json")" "$hit"
	assert_equal "$(jq .damaged "$run/metrics.json")" true
	assert_equal "$(jq .jobs "$run/metrics.json")" "$((16 - hit))"
	grep -q '^\*\*Damaged:\*\*' "$run/summary.md"
}

@test "make status names a dead emulator" {
	docker kill "$(container_of emu1)" >/dev/null
	run make -s -C "$ROOT" status
	assert_output --partial "NOT RUNNING: emu1 (exited)"
	make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
	run make -s -C "$ROOT" status
	refute_output --partial "NOT RUNNING"
}
