#!/usr/bin/env bats
# Jobs hit by a fault, without a cluster: which ones make report flags and
# RERUN_FAULTED=1 runs again, and how a rerun stands in for the job it
# replaces (tests/fixtures/fault-run: run F, 7 jobs on tiny, SPEEDUP 10,
# t0 1000; emu1 died at 1008 with jobs 2 and 3 on its front end, slurmctld
# at 1030).
#
#   a  1  COMPLETED                      clean
#   b  2  NODE_FAIL                      node_fail
#   c  3  CANCELLED (emu1's job)         cancelled_after_emu1_died
#   d  4  TIMEOUT, 1010-1070             timeout_after_slurmctld_died
#   e  5  COMPLETED, restart_cnt 1       requeued
#   f  6  COMPLETED, 1020-1030           clean (ended, not timed out)
#   g  7  TIMEOUT, 1080-1140             timeout (no death during it)

setup() {
	load helpers
	RESULTS=$BATS_TEST_TMPDIR/results
	RUN_DIR=$RESULTS/F
	mkdir -p "$RESULTS"
	cp -r "$BATS_TEST_DIRNAME/fixtures/fault-run" "$RUN_DIR"
}

report() { python3 -m metrics.report report "$RUN_DIR"; }

metric() { jq -r "$1" "$RUN_DIR/metrics.json"; }

# The jobs.csv columns log_job_id,job_id,fault,rerun_of, one line per row,
# sorted by log job.
rows() {
	python3 -c 'import csv, sys
for r in sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: r["log_job_id"]):
    print(",".join((r["log_job_id"], r["job_id"], r["fault"], r["rerun_of"])))' "$RUN_DIR/jobs.csv"
}

# add_jobs <jq array of [job id, name, state, eligible, start, end]>: jobs
# appended to the fixture's sacct.json.
add_jobs() {
	jq --argjson add "$1" '.jobs += [$add[] | {job_id: .[0], name: .[1], allocation_nodes: 2,
		nodes: "t[00-01]", state: {current: [.[2]]},
		time: {eligible: .[3], start: .[4], end: .[5], elapsed: (.[5] - .[4])},
		comment: {administrator: "policy=greedy;comm=1;pattern=rd;comm_percent=50;cost=4;cost_default=4;runtime_base=100;runtime_scaled=100"}}]' \
		"$RUN_DIR/sacct.json" >"$RUN_DIR/s" && mv "$RUN_DIR/s" "$RUN_DIR/sacct.json"
}

# fake_replay <replay arguments>: the replay on the run's directory with
# tests/fake_slurm.py as the controller; its accounting is $SLURM.
fake_replay() {
	python3 "$BATS_TEST_DIRNAME/fake_slurm.py" "$SLURM" --root "$BATS_TEST_TMPDIR" \
		--results results --state-dir "$BATS_TEST_TMPDIR/state" "$@"
}

@test "make report flags the jobs a fault hit and leaves them out" {
	run report
	assert_success
	assert_output --partial "report: 5 jobs hit by a fault left out, 0 counted by their rerun"
	run rows
	assert_output "$(printf '%s\n' a,1,, b,2,node_fail, c,3,cancelled_after_emu1_died, \
		d,4,timeout_after_slurmctld_died, e,5,requeued, f,6,, g,7,timeout,)"
	assert_equal "$(metric .jobs)" 2
	assert_equal "$(metric .fault_jobs)" 5
	assert_equal "$(metric .fault_events)" 2
	assert_equal "$(metric .damaged)" true
	assert_equal "$(metric .rerun_jobs)" 0
	grep -q '^\*\*Damaged:\*\* 2 service deaths during the run (faults.jsonl); 5 jobs hit by a fault' "$RUN_DIR/summary.md"
	if grep -q '^\*\*Rerun' "$RUN_DIR/summary.md"; then fail "summary.md says rerun"; fi
}

@test "make report counts a rerun in place of the job it replaces, one row per log job" {
	# b run again clean; d twice (its first rerun hit by a node failure);
	# c's rerun still pending (no start): c keeps its faulted row.
	add_jobs '[[8, "F:b:rerun1", "COMPLETED", 1200, 1200, 1210],
		[9, "F:d:rerun1", "NODE_FAIL", 1200, 1200, 1205],
		[10, "F:d:rerun2", "COMPLETED", 1300, 1300, 1320],
		[11, "F:c:rerun1", "PENDING", 1200, 0, 0]]'
	run report
	assert_success
	assert_output --partial "report: 3 jobs hit by a fault left out, 2 counted by their rerun"
	run rows
	assert_output "$(printf '%s\n' a,1,, b,8,,2 c,3,cancelled_after_emu1_died, d,10,,9 \
		e,5,requeued, f,6,, g,7,timeout,)"
	assert_equal "$(metric .jobs)" 4
	assert_equal "$(metric .fault_jobs)" 3
	assert_equal "$(metric .rerun_jobs)" 2
	grep -q '^\*\*Rerun:\*\* 2 jobs hit by a fault were run again' "$RUN_DIR/summary.md"
	# The experiment tables and a replay of the run read it the same way.
	run python3 - "$RUN_DIR" <<-'PY'
		import sys
		from workloads import logs
		from workloads.experiment.results import Run
		r = Run(sys.argv[1])
		print(len(r.rows), r.fault_jobs, r.rerun_jobs, r.missing)
		log = logs.read(sys.argv[1] + "/sacct.json")
		print(" ".join(f"{j.log_id}:{j.submit:g}" for j in log.jobs))
	PY
	assert_success
	assert_output "$(printf '4 3 2 []\na:0 b:50 c:60 d:100 e:150 f:200 g:250')"
}

@test "RESUME with RERUN_FAULTED=1 submits the jobs a fault hit again at their log times; the report counts the reruns" {
	SLURM=$BATS_TEST_TMPDIR/slurm.json
	jq '{jobs}' "$RUN_DIR/sacct.json" >"$SLURM"
	run fake_replay --resume F
	assert_failure
	assert_output "error: run F is already complete (RERUN_FAULTED=1 runs its jobs a fault hit again)"
	run fake_replay --resume F --rerun-faulted 1
	assert_success
	assert_output --partial "replay F: 5 jobs hit by a fault run again (RERUN_FAULTED=1), eligible at once"
	# New jobs, each with its log time as begin time (t0 + offset / 10) and
	# its place in the log's priority order (submitters work in parallel,
	# so in any order).
	run jq -r '.submitted | sort_by(.[4]) | reverse | .[] | [.[0], .[3], .[4]] | @tsv' "$SLURM"
	assert_output "$(printf 'F:%s\n' 'b:rerun1	1005	999999999' 'c:rerun1	1006	999999998' \
		'd:rerun1	1010	999999997' 'e:rerun1	1015	999999996' 'g:rerun1	1025	999999994')"
	# rerun.tsv and the manifest name them; the pause lists them like late jobs.
	run bash -c "sort '$RUN_DIR/rerun.tsv' | cut -d' ' -f1,2 | paste -sd' '"
	assert_output "b 1 c 1 d 1 e 1 g 1"
	run jq -c '[.finished, .jobs_rerun, .pauses[-1].jobs_rerun, .pauses[-1].rerun_log_ids,
		[.reruns[] | [.log_id, .replaces, .fault]]]' "$RUN_DIR/manifest.json"
	assert_output '[true,5,5,["b","c","d","e","g"],[["b",2,"node_fail"],["c",3,"cancelled_after_emu1_died"],["d",4,"timeout_after_slurmctld_died"],["e",5,"requeued"],["g",7,"timeout"]]]'
	assert_equal "$(jq '[.reruns[].job_id] | sort' "$RUN_DIR/manifest.json")" \
		"$(jq '[.submitted[][0] as $n | .jobs[] | select(.name == $n) | .job_id] | sort' "$SLURM")"
	# sacct.json: every attempt, each once.
	assert_equal "$(jq '[.jobs[].name] | unique | length' "$RUN_DIR/sacct.json")" 12
	assert_equal "$(jq '.jobs | length' "$RUN_DIR/sacct.json")" 12
	run report
	assert_success
	run rows
	assert_output "$(printf '%s\n' a,1,, "b,$(awk '$1 == "b" {print $3}' "$RUN_DIR/rerun.tsv"),,2" \
		"c,$(awk '$1 == "c" {print $3}' "$RUN_DIR/rerun.tsv"),,3" \
		"d,$(awk '$1 == "d" {print $3}' "$RUN_DIR/rerun.tsv"),,4" \
		"e,$(awk '$1 == "e" {print $3}' "$RUN_DIR/rerun.tsv"),,5" f,6,, \
		"g,$(awk '$1 == "g" {print $3}' "$RUN_DIR/rerun.tsv"),,7")"
	assert_equal "$(metric .jobs)" 7
	assert_equal "$(metric .fault_jobs)" 0
	assert_equal "$(metric .rerun_jobs)" 5
	grep -q '^\*\*Rerun:\*\* 5 jobs hit by a fault were run again' "$RUN_DIR/summary.md"
	grep -q 'Every job a fault hit was run again' "$RUN_DIR/summary.md"
	# Again: nothing left to run again, and nothing changes.
	local before
	before=$(cat "$RUN_DIR/manifest.json" "$RUN_DIR/sacct.json" "$RUN_DIR/rerun.tsv" | sha256sum)
	run fake_replay --resume F --rerun-faulted 1
	assert_success
	assert_output "replay F: no job of the run that has ended was hit by a fault; none to run again"
	assert_equal "$(cat "$RUN_DIR/manifest.json" "$RUN_DIR/sacct.json" "$RUN_DIR/rerun.tsv" | sha256sum)" "$before"
}

@test "a rerun Slurm took before the driver died is found there, not submitted twice" {
	# The driver died after submitting b's rerun (job 50) and before
	# writing it down; the run is unfinished.
	SLURM=$BATS_TEST_TMPDIR/slurm.json
	jq '.finished = false' "$RUN_DIR/manifest.json" >"$RUN_DIR/m" && mv "$RUN_DIR/m" "$RUN_DIR/manifest.json"
	add_jobs '[[50, "F:b:rerun1", "COMPLETED", 1200, 1200, 1210]]'
	jq '{jobs}' "$RUN_DIR/sacct.json" >"$SLURM"
	jq 'del(.jobs[] | select(.job_id == 50))' "$RUN_DIR/sacct.json" >"$RUN_DIR/s" && mv "$RUN_DIR/s" "$RUN_DIR/sacct.json"
	run fake_replay --resume F --rerun-faulted 1
	assert_success
	assert_output --partial "replay F: 4 jobs hit by a fault run again"
	assert_equal "$(jq -r '[.submitted[][0]] | sort | join(" ")' "$SLURM")" "F:c:rerun1 F:d:rerun1 F:e:rerun1 F:g:rerun1"
	grep -qx 'b 1 50' "$RUN_DIR/rerun.tsv"
	assert_equal "$(jq -c '.reruns[0]' "$RUN_DIR/manifest.json")" \
		'{"log_id":"b","attempt":1,"replaces":2,"fault":null,"job_id":50}'
	assert_equal "$(jq -r .finished "$RUN_DIR/manifest.json")" true
	assert_equal "$(jq '.jobs | length' "$RUN_DIR/sacct.json")" 12
}

@test "bad RERUN_FAULTED and AUTO_RECOVER values are one-line errors" {
	# make replay checks them before it looks for a cluster, where they
	# are declared (workloads/params.tsv; the replay's --check).
	run make -s -C "$ROOT" replay RESUME=F RERUN_FAULTED=yes
	assert_failure
	assert_line --index 0 "error: RERUN_FAULTED=yes: expected 0 or 1"
	run make -s -C "$ROOT" replay LOG=theta RERUN_FAULTED=1
	assert_failure
	assert_line --index 0 "error: RERUN_FAULTED=1 needs RESUME=<run-id>: the run whose jobs a fault hit"
	run make -s -C "$ROOT" replay LOG=theta AUTO_RECOVER=yes
	assert_failure
	assert_line --index 0 "error: AUTO_RECOVER=yes: expected 0 or 1"
	assert_equal "$(grep -c '^error' <<<"$output")" 1
}
