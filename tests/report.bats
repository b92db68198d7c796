#!/usr/bin/env bats
# make report: metrics of a hand-made run with answers worked out by hand
# (tests/fixtures/report-run: 3 jobs on tiny's 8 first nodes, SPEEDUP 10).

setup() {
	load helpers
	RUN_DIR="$BATS_TEST_TMPDIR/run"
	cp -r "$BATS_TEST_DIRNAME/fixtures/report-run" "$RUN_DIR"
	generate tiny
	make -s -C "$ROOT/plugins" tools >/dev/null
}

report() {
	python3 -m metrics.report report "$RUN_DIR" \
		--aph-tool "$ROOT/build/c/tb-aph" --topology "$ROOT/build/test-config/tiny/topology.json"
}

metric() { jq -r "$1" "$RUN_DIR/metrics.json"; }

# near <got> <expected>: within 1e-6. A number first: awk reads null (a
# missing key) or an empty string as 0.
near() {
	[[ $1 =~ ^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] || fail "got '$1', expected $2"
	awk -v a="$1" -v b="$2" 'BEGIN {d = a - b; exit !(d < 1e-6 && d > -1e-6)}' ||
		fail "got $1, expected $2"
}

@test "metrics of the fixture match the hand-computed answers" {
	run report
	assert_success
	near "$(metric .jobs)" 3
	near "$(metric .makespan_s)" 150
	near "$(metric .utilization)" 0.7
	near "$(metric .wait_mean_s)" 10
	near "$(metric .wait_median_s)" 0
	near "$(metric .wait_p95_s)" 27
	near "$(metric .turnaround_mean_s)" 83.3333333
	near "$(metric .stretch_mean)" 1.1833333
	near "$(metric .exec_hours)" 0.0611111
	near "$(metric .node_hours)" 0.2333333
	near "$(metric .comm_cost_total)" 12
	near "$(metric .comm_cost_mean)" 4
	# APH: t[00-03] one leaf (2); t04,t05 | t16,t17 across pods (28/6); t08,t09 (2).
	near "$(metric .aph_mean)" 2.8888889
	# Only a and c carry a matrix: 3000 + 200.
	near "$(metric .hop_bytes_total)" 3200
	assert_equal "$(metric .compute.hop_bytes_total)" null
	near "$(metric .comm.jobs)" 2
	near "$(metric .compute.wait_mean_s)" 30
}

@test "at GRANULARITY=core utilization counts the jobs' CPUs over all cores" {
	# a, b, c hold 6, 3, 5 CPUs for 100, 100, 20 log s: 1,000 CPU-s over
	# tiny's 128 cores x 150 s.
	jq '.granularity = "core"' "$RUN_DIR/manifest.json" >"$RUN_DIR/m" && mv "$RUN_DIR/m" "$RUN_DIR/manifest.json"
	jq '.jobs |= [.[] | .tres.allocated = [{"type": "cpu", "count": ({"1": 6, "2": 3, "3": 5}[(.job_id | tostring)])}]]' \
		"$RUN_DIR/sacct.json" >"$RUN_DIR/s" && mv "$RUN_DIR/s" "$RUN_DIR/sacct.json"
	run report
	assert_success
	near "$(metric .utilization)" 0.0520833333
	run grep -c '^2,b,4,3,' "$RUN_DIR/jobs.csv"
	assert_output 1
}

@test "individual runs (Table 4) from the recorded costs" {
	report
	near "$(metric '.individual_runs_improvement_percent.all.default')" 0
	near "$(metric '.individual_runs_improvement_percent.all.greedy')" -10
	near "$(metric '.individual_runs_improvement_percent.all.balanced')" 4.5
	near "$(metric '.individual_runs_improvement_percent.all.adaptive')" 4.5
}

@test "jobs.csv, summary.md and non-empty plots are written" {
	report
	assert_equal "$(head -1 "$RUN_DIR/jobs.csv")" \
		"job_id,log_job_id,nodes,cpus,submit,eligible,start,end,wait_s,run_s,turnaround_s,node_hours,comm,pattern,comm_percent,policy,cost,cost_default,runtime_base_s,runtime_scaled_s,leaves,aph,matrix_ranks,hop_bytes,hop_bytes_default,fallback,fault,rerun_of,prefill,runtime_fallback"
	assert_equal "$(($(wc -l <"$RUN_DIR/jobs.csv") - 1))" 3
	# Job b: eligible at log time 20, waited 30, ran on 2 leaves.
	run grep '^2,b,4,0,20,20,50,150,30,100,130,0.1111111111,0,rd,10,greedy,2,2,100,100,2,4.666666667,,,,,,,0,$' "$RUN_DIR/jobs.csv"
	assert_success
	grep -q '| utilization | 0.700 |' "$RUN_DIR/summary.md"
	local p
	for p in utilization wait_cdf runtime; do
		[ -s "$RUN_DIR/plots/$p.png" ] && [ -s "$RUN_DIR/plots/$p.svg" ] || fail "plot $p missing"
	done
}

@test "reserved jobs that a later job's start delayed are counted from reservations.tsv" {
	run report
	assert_success
	assert_equal "$(metric .reservations)" null
	# b is the reserved job (log time 25 on), planned for log time 30, then
	# 20 (the earliest counts); it starts at 50. Two samples' tolerance at
	# SPEEDUP 10 on wall time: 20 log s. c, later in the log, starts at 100:
	# no later job started before b, so b was not delayed by one.
	printf '1002.5\tb\t1003\n1003\tb\t1002\n' >"$RUN_DIR/reservations.tsv"
	run report
	assert_success
	assert_equal "$(metric .reservations)" 1
	assert_equal "$(metric .reservation_delays)" 0
	near "$(metric .reservation_tolerance_s)" 20
	# c backfilled at log time 40, before b (50): b counts, delayed 30 s.
	jq '.jobs[2].time.eligible = 1003 | .jobs[2].time.start = 1004 | .jobs[2].time.end = 1006' \
		"$RUN_DIR/sacct.json" >"$RUN_DIR/s" && mv "$RUN_DIR/s" "$RUN_DIR/sacct.json"
	run report
	assert_success
	assert_equal "$(metric .reservation_delays)" 1
	near "$(metric .reservation_delay_mean_s)" 30
	grep -q '^\*\*Reservations:\*\* 1 jobs' "$RUN_DIR/summary.md"
	printf '1004\tb\n' >>"$RUN_DIR/reservations.tsv"
	run report
	assert_failure
	assert_output --partial "reservations.tsv:3: expected <time> <log id> <planned start>"
}

@test "jobs Slurm requeued though no service died are flagged, and the summary says why that happens" {
	jq '.jobs[2].restart_cnt = 1' "$RUN_DIR/sacct.json" >"$RUN_DIR/s" && mv "$RUN_DIR/s" "$RUN_DIR/sacct.json"
	run report
	assert_success
	assert_equal "$(metric .requeued_jobs)" 1
	assert_equal "$(metric .fault_events)" 0
	near "$(metric .jobs)" 2
	grep -q '^\*\*Requeued without a fault:\*\* Slurm requeued 1 jobs' "$RUN_DIR/summary.md"
}

@test "a run with jobs missing from sacct.json names them, reports, is marked incomplete" {
	jq 'del(.jobs[2])' "$RUN_DIR/sacct.json" >"$RUN_DIR/s" && mv "$RUN_DIR/s" "$RUN_DIR/sacct.json"
	run report
	assert_failure
	assert_output --partial "incomplete: 1 jobs missing from sacct.json (first: c)"
	assert_equal "$(metric .incomplete)" true
	assert_equal "$(metric '.missing_jobs[0]')" c
	near "$(metric .jobs)" 2
	grep -q 'Incomplete' "$RUN_DIR/summary.md"
}

@test "a resumed run's pauses reach metrics.json and summary.md" {
	report
	assert_equal "$(metric .resumed)" false
	if grep -q 'Resumed' "$RUN_DIR/summary.md"; then fail "summary.md says resumed"; fi
	jq '.resumed = true | .paused_s = 12.5 | .jobs_late = 2
		| .pauses = [{"seconds": 12.5, "jobs_late": 2, "late_log_ids": ["b", "c"]}]' \
		"$RUN_DIR/manifest.json" >"$RUN_DIR/m" && mv "$RUN_DIR/m" "$RUN_DIR/manifest.json"
	run report
	assert_success
	assert_output --partial "report: resumed run: paused 125.0 s of log time, 2 jobs made late"
	assert_equal "$(metric .resumed)" true
	near "$(metric .paused_log_s)" 125
	near "$(metric .jobs_late)" 2
	grep -q '^\*\*Resumed:\*\* the replay was stopped 1 time(s) for 125.0 s of log time' "$RUN_DIR/summary.md"
}

@test "a run resumed before pauses were recorded is still marked resumed" {
	printf '10:00:00 plan: 3 jobs\n10:05:00 resumed\n10:06:00 finished\n' >"$RUN_DIR/replay.log"
	report
	assert_equal "$(metric .resumed)" true
	assert_equal "$(metric .paused_log_s)" null
	grep -q 'length and the jobs they made late are unknown' "$RUN_DIR/summary.md"
}

@test "APH is measured on the run's own topology.json when it has one" {
	cp "$ROOT/build/test-config/tiny/topology.json" "$RUN_DIR/topology.json"
	run python3 -m metrics.report report "$RUN_DIR" \
		--aph-tool "$ROOT/build/c/tb-aph" --topology "$RUN_DIR/topology.json"
	assert_success
	near "$(metric .aph_mean)" 2.8888889
	assert_equal "$(metric .aph_topology)" run
	if grep -q 'generated at report time' "$RUN_DIR/summary.md"; then fail "summary.md says regenerated"; fi
	# Given another tree (here: generated again), the summary says so.
	report
	assert_equal "$(metric .aph_topology)" regenerated
	grep -q 'as generated at report time' "$RUN_DIR/summary.md"
}

@test "a failing tb-aph stops the report in one line, writing nothing" {
	# Nodes the topology does not have: another cluster's run.
	sed -i 's/"t\[00-03\]"/"x[00-03]"/' "$RUN_DIR/sacct.json"
	run report
	assert_failure
	assert_equal "${#lines[@]}" 1
	assert_output --partial "error: tb-aph failed on $ROOT/build/test-config/tiny/topology.json: tb-aph: stdin:1: unknown node 'x00'"
	[ ! -e "$RUN_DIR/metrics.json" ] && [ ! -e "$RUN_DIR/summary.md" ] || fail "a failed report wrote files"
}

@test "make report uses the run's topology.json, or says it regenerates one" {
	run env RESULTS_DIR="$BATS_TEST_TMPDIR" make -s -C "$ROOT" report RUN=run
	assert_success
	assert_output --partial "report: run has no topology.json (made before runs kept theirs): APH on tiny's topology as generated now"
	assert_equal "$(metric .aph_topology)" regenerated
	cp "$ROOT/build/test-config/tiny/topology.json" "$RUN_DIR/topology.json"
	run env RESULTS_DIR="$BATS_TEST_TMPDIR" make -s -C "$ROOT" report RUN=run
	assert_success
	refute_output --partial "no topology.json"
	assert_equal "$(metric .aph_topology)" run
	near "$(metric .aph_mean)" 2.8888889
}

# two_runs <jq filter for B's manifest>: runs A (default) and B (greedy) of
# the fixture in $RESULTS, reported; B's manifest changed by the filter.
two_runs() {
	RESULTS=$BATS_TEST_TMPDIR/results
	local r
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS"
	for r in A B; do
		cp -r "$BATS_TEST_DIRNAME/fixtures/report-run" "$RESULTS/$r"
		cp "$ROOT/build/test-config/tiny/topology.json" "$RESULTS/$r/"
		sed -i "s/\"R:/\"$r:/" "$RESULTS/$r/sacct.json"
	done
	jq '.run_id = "A" | .policy = "default"' "$BATS_TEST_DIRNAME/fixtures/report-run/manifest.json" >"$RESULTS/A/manifest.json"
	jq ".run_id = \"B\" | $1" "$BATS_TEST_DIRNAME/fixtures/report-run/manifest.json" >"$RESULTS/B/manifest.json"
	for r in A B; do
		# The jobs placed by the run's policy, as a real run's.
		sed -i "s/policy=greedy/policy=$(jq -r .policy "$RESULTS/$r/manifest.json")/" "$RESULTS/$r/sacct.json"
		python3 -m metrics.report report "$RESULTS/$r" >/dev/null
	done
}

compare_runs() { python3 -m metrics.report compare "$RESULTS/A" "$RESULTS/B" --out "$RESULTS/cmp" "$@"; }

@test "make compare refuses runs that are not one experiment, naming the difference" {
	two_runs '.seed = 1'
	run compare_runs
	assert_failure
	assert_output "error: RUNS differ in SEED: 0 (A) vs 1 (B); compare runs of one experiment, or FORCE=1 to compare anyway"
	[ ! -e "$RESULTS/cmp" ] || fail "a refused comparison wrote $RESULTS/cmp"
	local names=(COMM PATTERN RATIO SPARSITY SCALE LIMIT_GRID CLUSTER FIRST LOG SPEEDUP)
	local changes=('.comm = 0.5' '.pattern = "ring"' '.ratio = 0.3' '.sparsity = 0.9'
		'.size_divisor = 4' '.limit_grid_s = 60000' '.cluster = "hpc2010"' '.first = 10'
		'.log_file = "other.swf"' '.speedup = 100') k
	for k in "${!names[@]}"; do
		two_runs "${changes[$k]}"
		run compare_runs
		assert_failure
		assert_output --partial "error: RUNS differ in ${names[$k]}: "
	done
	# SPEEDUP differs between policies: not a SPEEDUP study.
	assert_output "error: RUNS differ in SPEEDUP: 10 (A) vs 100 (B); compare runs of one experiment, or FORCE=1 to compare anyway"
	# Another tree under the same cluster name: the runs' topology.json.
	two_runs '.'
	sed -i '0,/"t00"/s//"t99"/' "$RESULTS/B/topology.json"
	run compare_runs
	assert_failure
	assert_output --partial "error: RUNS differ in topology: "
}

@test "make compare refuses an invalid run unless FORCE=1, and names resumed runs" {
	two_runs '.'
	# B's second job placed by another policy than B's (greedy).
	sed -i '0,/policy=greedy/! {0,/policy=greedy/s//policy=balanced/}' "$RESULTS/B/sacct.json"
	python3 -m metrics.report report "$RESULTS/B" 2>/dev/null
	run compare_runs
	assert_failure
	assert_output "error: RUNS: B invalid (jobs not placed by the run's policy; see its summary.md); FORCE=1 to compare anyway"
	[ ! -e "$RESULTS/cmp" ] || fail "a refused comparison wrote $RESULTS/cmp"
	run compare_runs --force
	assert_success
	assert_output --partial "compare: warning: FORCE=1: invalid runs B"
	grep -q 'invalid runs, jobs not placed by the run.s policy: `B`' "$RESULTS/cmp/compare.md"
	# A resumed run compares, named in the table.
	two_runs '.resumed = true | .pauses = [] | .paused_s = 0 | .jobs_late = 0'
	run compare_runs
	assert_success
	grep -q '^\*\*Resumed runs\*\* .*: `B`' "$RESULTS/cmp/compare.md"
}

@test "runs of one policy at different SPEEDUP compare (a SPEEDUP study)" {
	two_runs '.policy = "default" | .speedup = 100'
	run compare_runs
	assert_success
	grep -q 'default S=100 (B)' "$RESULTS/cmp/compare.md"
	if grep -q 'Warning' "$RESULTS/cmp/compare.md"; then fail "a warning for a SPEEDUP study"; fi
}

@test "make compare FORCE=1 compares anyway, with a warning in the table" {
	two_runs '.seed = 1 | .comm = 0.5'
	run env RESULTS_DIR="$RESULTS" make -s -C "$ROOT" compare RUNS="A B" FORCE=1
	assert_success
	assert_output --partial "compare: warning: FORCE=1: the runs differ in SEED, COMM"
	local out
	out=$(ls -d "$RESULTS"/compare-* | tail -n 1)
	grep -q '^\*\*Warning (FORCE=1): these runs are not one experiment; they differ in SEED: 0 (A) vs 1 (B); COMM: unset (A) vs 0.5 (B)' "$out/compare.md"
	run env RESULTS_DIR="$RESULTS" make -s -C "$ROOT" compare RUNS="A B" FORCE=yes
	assert_failure
	assert_output --partial "FORCE=yes: expected 1"
}

@test "make report with an unknown run lists the runs" {
	run make -s -C "$ROOT" report RUN=nope
	assert_failure
	assert_output --partial "RUN=nope: no such run"
}

@test "a job without the plugin's record makes the run invalid; fallbacks are counted" {
	run report
	assert_success
	assert_equal "$(metric .unrecorded_jobs)" 0
	assert_equal "$(metric .valid)" true
	# The first job's record lost, the second's placed by tree.
	jq '.jobs[0].comment.administrator = "" |
	    .jobs[1].comment.administrator += ";fallback=refused"' \
		"$RUN_DIR/sacct.json" >"$RUN_DIR/sacct.json.new"
	mv "$RUN_DIR/sacct.json.new" "$RUN_DIR/sacct.json"
	run report
	assert_success
	assert_equal "$(metric .unrecorded_jobs)" 1
	assert_equal "$(metric .fallback_jobs)" 1
	assert_equal "$(metric .valid)" false
	grep -q '^\*\*Invalid:\*\* 1 jobs have no record' "$RUN_DIR/summary.md"
	assert_equal "$(grep -c ',refused,,,0,$' "$RUN_DIR/jobs.csv")" 1
	# A record of another policy without a fallback: the controller ran
	# another policy than the run's greedy.
	cp "$BATS_TEST_DIRNAME/fixtures/report-run/sacct.json" "$RUN_DIR/sacct.json"
	sed -i '0,/policy=greedy/s//policy=default/' "$RUN_DIR/sacct.json"
	run report
	assert_success
	assert_output --partial "report: invalid: 0 jobs without the plugin's record, 1 placed by another policy"
	assert_equal "$(metric .unrecorded_jobs)" 0
	assert_equal "$(metric '.foreign_policy_jobs.default')" 1
	assert_equal "$(metric .valid)" false
	grep -q '^\*\*Invalid:\*\* jobs placed by another policy than the run.s `greedy`: 1 by `default`' "$RUN_DIR/summary.md"
}

@test "an isolated run's jobs are checked against the SC18 invariants, pair by pair" {
	jq '.policy = "isolated"' "$RUN_DIR/manifest.json" >"$RUN_DIR/m.json"
	mv "$RUN_DIR/m.json" "$RUN_DIR/manifest.json"
	isolated_report() {
		python3 -m metrics.report report "$RUN_DIR" \
			--aph-tool "$ROOT/build/c/tb-aph" --topology "$ROOT/build/test-config/tiny/topology.json" \
			--isolation-tool "$ROOT/build/c/tb-isolation"
	}
	# The fixture's job 2 (4 nodes, a T1 job on tiny's leaves of 4) spans
	# two leaves in two pods: isolation would never place it so.
	cp "$RUN_DIR/sacct.json" "$RUN_DIR/sacct.orig"
	jq '(.jobs[] | select(.job_id == 2) | .nodes) = "t[04-07]"' "$RUN_DIR/sacct.orig" >"$RUN_DIR/sacct.json"
	run isolated_report
	assert_success
	assert_equal "$(metric .isolation_violations)" 0
	grep -q '^\*\*Isolation:\*\* every pair' "$RUN_DIR/summary.md"
	cp "$RUN_DIR/sacct.orig" "$RUN_DIR/sacct.json"
	run isolated_report
	assert_success
	assert_equal "$(metric .isolation_violations)" 1
	assert_equal "$(cat "$RUN_DIR/isolation.txt")" "t1-leaves 2 leaves=2"
	grep -q '^\*\*Isolation broken:\*\* 1 violations' "$RUN_DIR/summary.md"
}

