#!/usr/bin/env bats
# TOFA's faults realized inside Slurm (workloads/tofa_faults.py), on
# torus64 (4x4x4, node id = x + 4y + 16z): one instance of a chain of 4
# processes (tests/fixtures/tofa-chain4.txt), nf = 1 at pf = 0.5, seeds
# chosen so that the instance's first attempt has its Nf node failed and
# the second not (python3 -m workloads.tofa_faults draws --nodes 64 --nf 1
# --pf 0.5 --seed <s> --instances 1):
#   seed 50:  Nf = t000; tofa takes the window 1-4 and maps the chain
#             4,3,2,1, whose route 3 -> 4 passes t000: requeued once,
#             though t000 is none of its nodes (L272-275)
#   seed 36:  Nf = t002; default takes t000-t003: requeued once (its node)
#   seed 217: Nf = t040, on no route of the job (tofa: window 0-3): not
#             requeued

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools >/dev/null
	make -s -C "$ROOT" down >/dev/null
	CLOCK_RATE=10 make -s -C "$ROOT" up CLUSTER=torus64 POLICY=tofa >/dev/null
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

# run_faults <policy> <seed>: one batch of one instance.
run_faults() {
	RESULTS_DIR=$BATS_FILE_TMPDIR/results make -s -C "$ROOT" tofa-faults TOFA_APP=chain4 \
		TOFA_GRAPH="$ROOT/tests/fixtures/tofa-chain4.txt" TOFA_NF=1 TOFA_PF=0.5 SEED="$2" \
		TOFA_BATCHES=1 TOFA_INSTANCES=1 TOFA_T0=5 SPEEDUP=10 POLICY="$1"
}

newest() { find "$BATS_FILE_TMPDIR/results" -maxdepth 1 -name "*-$1" | sort | tail -n 1; }

# sacct's attempts of the run's job, one line each: state, exit code,
# nodes, restarts before it.
attempts() {
	jq -r '.[] | "\(.State) \(.ExitCode) \(.NodeList) \(.Restarts)"' "$(newest "$1")/attempts.json"
}

node_state() { make -s -C "$ROOT" exec CMD="sinfo -h -n $1 -o %T"; }

@test "a failed node on a route only (tofa): the attempt is requeued, the restart counted from sacct" {
	# The library's view of the same state: window 1-4, abort > 0.
	printf 'torus 4 4 4\nrisky 0\nedge 0 1 1\nedge 1 2 1\nedge 2 3 1\njob nodes=4\n' \
		>"$BATS_TEST_TMPDIR/s.scenario"
	run "$ROOT/build/c/tb-alloc" "$BATS_TEST_TMPDIR/s.scenario" tofa
	assert_output "tofa nodes=1-4 map=4,3,2,1 cost=104 hops=4 abort=0.02"
	run run_faults tofa 50
	assert_success
	assert_output --partial "1 batches x 1 instances, 2 attempts, 1 aborted"
	run attempts chain4-nf1-tofa
	assert_output "REQUEUED 85:0 t[001-004] 0
COMPLETED 0:0 t[001-004] 1"
	run jq -c '.[] | [.failed, .aborted]' "$(newest chain4-nf1-tofa)/events.json"
	assert_output '[["t000"],true]'
	run jq -c '.[0] | [.attempts, .aborts, .aborted_instances]' "$(newest chain4-nf1-tofa)/batches.json"
	assert_output '[2,1,1]'
	# Resumed at once (L270).
	run node_state t000
	assert_output idle
}

@test "a failed node the job avoids: no requeue" {
	run run_faults tofa 217
	assert_success
	run attempts chain4-nf1-tofa
	# Nf = t040 leaves the first window clean: nodes 0-3.
	assert_output "COMPLETED 0:0 t[000-003] 0"
	# t040 did fail (set DOWN and resumed once the job had ended).
	run jq -c '.[] | [.failed, .aborted]' "$(newest chain4-nf1-tofa)/events.json"
	assert_output '[["t040"],false]'
	run node_state t040
	assert_output idle
}

@test "a failed node of the job's own (default): requeued, counted" {
	run run_faults default 36
	assert_success
	run attempts chain4-nf1-default
	assert_output "REQUEUED 85:0 t[000-003] 0
COMPLETED 0:0 t[000-003] 1"
	run jq -c '.[0] | [.attempts, .aborts]' "$(newest chain4-nf1-default)/batches.json"
	assert_output '[2,1]'
}
