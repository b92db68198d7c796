#!/usr/bin/env bats
# make replay on tiny: a window of the Theta log, sizes divided by 16,
# compressed 5000 times (about 20 s of wall time per replay; the interrupt
# test runs at 300 so that it has something left to resume).
#
# The interrupt and restart tests replay the window's first 19 jobs
# (SHORT_JOBS): the 20th and 21st take all 32 nodes for 60 s each at
# SPEEDUP=300, one after the other once the machine drains, and made
# each of those tests last about 5 minutes of CI.
SHORT_JOBS=19

REPLAY_ARGS=(LOG=theta JOBS=30 SCALE=16 SPEEDUP=5000 CLOCK=scaled)

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

# The newest run directory of a policy.
last_run() { ls -d "$ROOT"/results/*-theta-"$1"* | tail -n 1; }

@test "a replay under the paper's baseline (default1905) completes with the log's runtimes and eligible times" {
	run make -s -C "$ROOT" replay "${REPLAY_ARGS[@]}" POLICY=default1905
	assert_success
	check_run "$(last_run default1905)"
	# The Eq. 7 denominator is default1905's cost: its jobs keep the log's
	# runtimes, scaled == base.
	jq -r '.jobs[].comment.administrator' "$(last_run default1905)/sacct.json" |
		sed 's/.*runtime_base=\([^;]*\);runtime_scaled=\(.*\)/\1 \2/' | awk '$1 != $2 {exit 1}'
}

@test "a greedy replay of the same window has the same jobs and profiles" {
	run make -s -C "$ROOT" replay "${REPLAY_ARGS[@]}" POLICY=greedy
	assert_success
	check_run "$(last_run greedy)"
	assert_equal "$(jq -r '.jobs[0].comment.administrator' "$(last_run greedy)/sacct.json" | cut -d';' -f1)" policy=greedy
	# Same SEED, same profiles under both policies.
	diff <(cut -f1,4- "$(last_run default1905)/plan.tsv") <(cut -f1,4- "$(last_run greedy)/plan.tsv")
}

@test "a replay of a replay's sacct.json has the original's log times and profiles" {
	local orig run
	orig=$(last_run default1905)
	# Another SPEEDUP and SEED: log times must not be compressed twice, nor
	# profiles drawn again. No SCALE: the sizes in sacct.json are scaled.
	run make -s -C "$ROOT" replay LOG="$orig/sacct.json" JOBS=30 SPEEDUP=4000 CLOCK=scaled SEED=7 POLICY=default1905
	assert_success
	run=$(ls -d "$ROOT"/results/*-log-default1905* | tail -n 1)
	check_run "$run"
	assert_equal "$(jq -r .log_format "$run/manifest.json")" sacct-json
	# log_id offset runtime nodes comm pattern comm_percent, numerically.
	assert_equal "$(wc -l <"$run/plan.tsv")" "$(wc -l <"$orig/plan.tsv")"
	paste <(tail -n +2 "$orig/plan.tsv" | cut -f1-7) <(tail -n +2 "$run/plan.tsv" | cut -f1-7) |
		awk -F'\t' 'function same(a, b) {return a ~ /^[0-9.]+$/ ? a + 0 == b + 0 : a == b}
		     {for (k = 1; k <= 7; k++) if (!same($k, $(k + 7))) {print "line " NR ": " $0; bad = 1; next}}
		     END {exit bad}'
	# The run's facts are in its sacct.json, for the next replay.
	assert_equal "$(jq '.testbed.speedup == 4000' "$run/sacct.json")" true
	assert_equal "$(jq '.testbed.plan | length' "$run/sacct.json")" "$(($(wc -l <"$run/plan.tsv") - 1))"
}

# A run directory of the policy that is not in the list given.
new_run() {
	local d
	for d in "$ROOT"/results/*-theta-"$1"*; do
		grep -qxF "$d" <<<"$2" || { echo "$d"; return 0; }
	done
	return 1
}

has_submissions() { local d; d=$(new_run "$1" "$2") && [ -s "$d/submitted.tsv" ]; }

# submitted_at_least <policy> <runs before> <n>: the new run has submitted
# n jobs or more.
submitted_at_least() {
	local d
	d=$(new_run "$1" "$2") && [ -f "$d/submitted.tsv" ] && [ "$(wc -l <"$d/submitted.tsv")" -ge "$3" ]
}

@test "make report turns a replay into jobs.csv, metrics.json, summary.md and plots" {
	local run
	run=$(last_run default1905)
	run make -s -C "$ROOT" report RUN="$(basename "$run")"
	assert_success
	assert_output --partial "report: 30 jobs"
	assert_equal "$(($(wc -l <"$run/jobs.csv") - 1))" 30
	assert_equal "$(jq .jobs "$run/metrics.json")" 30
	assert_equal "$(jq .incomplete "$run/metrics.json")" false
	# default1905: the recorded cost is the denominator's, so Table 4 shows 0.
	assert_equal "$(jq '.individual_runs_improvement_percent.all.default1905 == 0' "$run/metrics.json")" true
	local p
	for p in utilization wait_cdf runtime; do
		[ -s "$run/plots/$p.png" ] && [ -s "$run/plots/$p.svg" ] || fail "plot $p missing"
	done
	grep -q '^| makespan_s |' "$run/summary.md"
}

@test "make compare puts the default1905 and greedy runs in one table" {
	run make -s -C "$ROOT" compare RUNS="$(basename "$(last_run default1905)") $(basename "$(last_run greedy)")"
	assert_success
	local out
	out=$(ls -d "$ROOT"/results/compare-* | tail -n 1)
	grep -q '^| exec_hours |' "$out/compare.md"
	# metric, then value and change % per run
	[ "$(head -1 "$out/compare.csv" | tr ',' '\n' | wc -l)" -eq 5 ]
	[ -s "$out/policies.png" ] && [ -s "$out/per_job.png" ] && [ -s "$out/per_job.svg" ]
}

@test "SPARSITY gives communicating jobs a matrix whose hop-bytes reach sacct and the report" {
	run make -s -C "$ROOT" replay "${REPLAY_ARGS[@]}" POLICY=greedy SPARSITY=0.5
	assert_success
	local run
	run=$(last_run greedy)
	check_run "$run"
	assert_equal "$(jq .sparsity "$run/manifest.json")" 0.5
	# Each job's matrix again, from SEED and its log id: it must be the one
	# the plugin read (as many ranks as nodes), and the plugin's hop-bytes
	# over its volume an average path of tiny's tree: 2 hops within a leaf
	# switch, 4 within a pod, 6 across the core.
	run python3 - "$run" <<-'PY'
		import json, sys
		from workloads.replay.matrix import comm_matrix
		from workloads.replay.run_dir import read_plan
		run = sys.argv[1]
		plan = {p["log_id"]: p for p in read_plan(run + "/plan.tsv")}
		seed = json.load(open(run + "/manifest.json"))["seed"]
		with_matrix = 0
		for j in json.load(open(run + "/sacct.json"))["jobs"]:
		    p = plan[j["name"].split(":")[1]]
		    a = dict(kv.split("=", 1) for kv in j["comment"]["administrator"].split(";"))
		    if not p["comm"] or p["nodes"] == 1:
		        assert p["matrix_density"] == 0 and "hop_bytes" not in a, (p, a)
		        continue
		    assert p["matrix_density"] == 0.5, p
		    m = comm_matrix(seed, p["log_id"], p["nodes"], p["matrix_density"])
		    entries = [e.split() for e in m.split(";")[1:]]
		    assert len(entries) == round(0.5 * p["nodes"] * (p["nodes"] - 1)), m
		    assert int(a["matrix_ranks"]) == p["nodes"], a
		    hops = float(a["hop_bytes"]) / sum(int(e[2]) for e in entries)
		    assert 2 * (1 - 1e-5) <= hops <= 6 * (1 + 1e-5), (p, a, hops)  # %.6g in sacct
		    with_matrix += 1
		print(with_matrix)
	PY
	assert_success
	[ "$output" -gt 5 ] || fail "only $output jobs had a matrix"
	make -s -C "$ROOT" report RUN="$(basename "$run")" >/dev/null
	[ "$(jq .comm.hop_bytes_total "$run/metrics.json")" != null ]
	head -1 "$run/jobs.csv" | grep -q ',matrix_ranks,hop_bytes,hop_bytes_default,fallback,fault,rerun_of,prefill,runtime_fallback$'
}

@test "GRANULARITY=core under tm-i: every job runs on its ranks' cores in the partition cores, recorded at core level" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=tm-i >/dev/null
	run make -s -C "$ROOT" replay "${REPLAY_ARGS[@]}" JOBS=12 POLICY=tm-i GRANULARITY=core COMM=1 SPARSITY=0.5
	assert_success
	local run
	run=$(last_run tm-i)
	run python3 - "$run" <<-'PY'
		import json, sys
		run = sys.argv[1]
		with open(f"{run}/plan.tsv") as f:
		    head = f.readline().rstrip("\n").split("\t")
		    plan = {r["log_id"]: r for r in (dict(zip(head, l.rstrip("\n").split("\t"))) for l in f)}
		jobs = json.load(open(f"{run}/sacct.json"))["jobs"]
		assert len(jobs) == len(plan) > 0, (len(jobs), len(plan))
		for j in jobs:
		    p = plan[j["name"].split(":")[-1]]
		    cpus = next(x["count"] for x in j["tres"]["allocated"] if x["type"] == "cpu")
		    admin = j["comment"]["administrator"]
		    assert j["partition"] == "cores" and cpus == int(p["ranks"]) > 0, (j["job_id"], cpus, p)
		    assert "policy=tm-i;granularity=core;" in admin and "fallback=" not in admin, admin
		    assert f";matrix_ranks={p['ranks']};hop_bytes=" in admin, admin
		print(len(jobs))
	PY
	assert_success
	make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
}

@test "a log and RESULTS_DIR outside the clone, with spaces in their paths, replay as on the host" {
	[ -n "${TESTBED_SCRATCH:-}" ] || skip "needs TESTBED_SCRATCH (run through make test)"
	local dir="$TESTBED_SCRATCH/my logs" res="$TESTBED_SCRATCH/my results" run
	mkdir -p "$dir" "$res"
	head -n 6 "$WORKLOADS_DIR/seed000-theta-2018.jobs" >"$dir/theta window.jobs"
	run env -u TESTBED_IN_TOOLS make -s -C "$ROOT" replay LOG="$dir/theta window.jobs" \
		SCALE=16 SPEEDUP=5000 CLOCK=scaled POLICY=default RESULTS_DIR="$res"
	assert_success
	run=$(ls -d "$res"/*-default* | tail -n 1)
	assert_equal "$(jq '.jobs | length' "$run/sacct.json")" 5
	assert_equal "$(jq '[.jobs[] | select(.state.current[0] == "COMPLETED")] | length' "$run/sacct.json")" 5
	# The report finds the run by its path too.
	run env -u TESTBED_IN_TOOLS make -s -C "$ROOT" report RUN="$run"
	assert_success
	[ -f "$run/metrics.json" ]
	run env -u TESTBED_IN_TOOLS make -s -C "$ROOT" replay LOG="$dir/missing.jobs" POLICY=default
	assert_failure
	assert_line "error: LOG=$dir/missing.jobs: no such file ($dir/missing.jobs)"
}

@test "make replay refuses a cluster running other jobs, unless ALLOW_BUSY=1" {
	local id
	id=$(make -s -C "$ROOT" exec CMD="sbatch --parsable -N 1 --wrap='sleep 300'")
	run make -s -C "$ROOT" replay "${REPLAY_ARGS[@]}" POLICY=greedy
	assert_failure
	assert_line --partial "the cluster has 1 jobs that are not this run's"
	# ALLOW_BUSY=1: the replay runs beside it, and the policy switch says
	# what it does to the running job.
	run make -s -C "$ROOT" replay LOG=theta JOBS=3 SCALE=16 SPEEDUP=5000 CLOCK=scaled \
		POLICY=firstfit ALLOW_BUSY=1
	assert_success
	assert_line --partial "up: warning: 1 running jobs will end as TIMEOUT at their limit"
	make -s -C "$ROOT" exec CMD="scancel $id"
	wait_for 30 bash -c "[ -z \"\$(make -s -C '$ROOT' exec CMD='squeue -h')\" ]"
}

@test "an interrupted replay resumed with RESUME has exactly the window's jobs" {
	local before run pid
	before=$(ls -d "$ROOT"/results/*-theta-balanced* 2>/dev/null || true)
	# Slower, so that the window's submissions spread over many seconds.
	make -s -C "$ROOT" replay LOG=theta JOBS=$SHORT_JOBS SCALE=16 SPEEDUP=300 CLOCK=scaled POLICY=balanced LEAD=1 >/dev/null 2>&1 &
	pid=$!
	# Stopped once 5 jobs are submitted: the log paces the submissions
	# (the 10th is due about 21 s after the first at SPEEDUP=300), so the
	# stop comes mid-window however fast the machine is. Only this test's
	# own replay is stopped.
	wait_for 60 submitted_at_least balanced "$before" 5 || fail "the replay did not submit 5 jobs within 60 s"
	kill_tree "$pid"
	wait "$pid" || true
	run=$(new_run balanced "$before")
	[ "$(jq -r '.finished // false' "$run/manifest.json")" = false ] ||
		fail "the replay finished although it was stopped mid-window"
	[ "$(wc -l <"$run/submitted.tsv")" -lt "$SHORT_JOBS" ] ||
		fail "all $SHORT_JOBS jobs were submitted before the stop: nothing is left to resume"
	run make -s -C "$ROOT" replay RESUME="$(basename "$run")"
	assert_success
	check_run "$run" resumed
	# No log job was submitted twice.
	assert_equal "$(cut -d' ' -f1 "$run/submitted.tsv" | sort | uniq -d | wc -l)" 0
	# The pause is in the manifest (the stop recorded when it began) and the
	# report says so.
	assert_equal "$(jq .resumed "$run/manifest.json")" true
	assert_equal "$(jq '.pauses | length' "$run/manifest.json")" 1
	assert_equal "$(jq '.pauses[0].start_estimated' "$run/manifest.json")" false
	assert_equal "$(jq '.paused_s > 0 and .jobs_late == (.pauses[0].late_log_ids | length)' "$run/manifest.json")" true
	make -s -C "$ROOT" report RUN="$(basename "$run")" >/dev/null
	assert_equal "$(jq .resumed "$run/metrics.json")" true
	assert_equal "$(jq --slurpfile m "$run/manifest.json" '.paused_log_s == $m[0].paused_s * $m[0].speedup' "$run/metrics.json")" true
	grep -q '^\*\*Resumed:\*\*' "$run/summary.md"
}

@test "RESUME on another cluster than the run's is refused in one line" {
	local id=20000101T000000Z-theta-greedy-other
	mkdir -p "$ROOT/results/$id"
	printf '{\n  "run_id": "%s",\n  "cluster": "hpc2010",\n  "policy": "greedy",\n  "finished": false\n}\n' \
		"$id" >"$ROOT/results/$id/manifest.json"
	run make -s -C "$ROOT" replay RESUME="$id"
	rm -rf "${ROOT:?}/results/$id"
	assert_failure
	assert_output --partial "error: RESUME=$id ran on cluster 'hpc2010', but 'tiny' is up; make down, then make up CLUSTER=hpc2010"
	# The same cluster name with another tree.
	mkdir -p "$ROOT/results/$id"
	printf '{\n  "run_id": "%s",\n  "cluster": "tiny",\n  "policy": "greedy",\n  "finished": false,\n  "topology_sha256": "%064d"\n}\n' \
		"$id" 0 >"$ROOT/results/$id/manifest.json"
	run make -s -C "$ROOT" replay RESUME="$id"
	rm -rf "${ROOT:?}/results/$id"
	assert_failure
	assert_output --partial "error: RESUME=$id ran on another topology of 'tiny' (sha256 000000000000, now "
}

@test "a controller restart mid-replay loses and duplicates no job" {
	local before run pid ctld crossing planned
	before=$(ls -d "$ROOT"/results/*-theta-adaptive* 2>/dev/null || true)
	# SPEEDUP=1000: the jobs running across the restart run to their
	# limits (below), which are 1 minute here (4 at SPEEDUP=300).
	make -s -C "$ROOT" replay LOG=theta JOBS=$SHORT_JOBS SCALE=16 SPEEDUP=1000 CLOCK=scaled POLICY=adaptive LEAD=1 \
		>"$BATS_TEST_TMPDIR/replay.out" 2>&1 &
	pid=$!
	wait_for 60 has_submissions adaptive "$before" || fail "the replay never submitted"
	run=$(new_run adaptive "$before")
	ctld=$(docker ps -q --filter label=com.docker.compose.project="$TESTBED_PROJECT" \
		--filter label=com.docker.compose.service=slurmctld)
	# Jobs running across the restart: Slurm 24.11 in front-end mode drops
	# their batch step when it recovers its state ("Invalid step_node_list
	# (feNNN)") and then ignores their completion, so they end at their
	# time limit (TIMEOUT). Every other job must be exact.
	crossing=$(docker exec "$ctld" squeue -h -t R,CG -o %i | paste -sd' ')
	docker restart "$ctld" >/dev/null
	wait "$pid" || fail "the replay failed: $(tail -n 5 "$BATS_TEST_TMPDIR/replay.out")"
	planned=$(($(wc -l <"$run/plan.tsv") - 1))
	assert_equal "$(wc -l <"$run/submitted.tsv")" "$planned"
	assert_equal "$(cut -d' ' -f1 "$run/submitted.tsv" | sort | uniq -d | wc -l)" 0
	assert_equal "$(jq '.jobs | length' "$run/sacct.json")" "$planned"
	assert_equal "$(jq '[.jobs[].name] | unique | length' "$run/sacct.json")" "$planned"
	jq -r --arg crossing " $crossing " '.jobs[] | select(($crossing | contains(" \(.job_id) ")) | not)
		| [.job_id, .state.current[0]] | @tsv' "$run/sacct.json" |
		awk '$2 != "COMPLETED" {print "job " $1 " " $2; bad = 1} END {exit bad}'
}

# make replay in a tools container whose RESULTS_DIR is the tmpfs volume
# $FULL_VOL (64 pages): a disk that fills up on demand. The volume's tmpfs
# lives while a container has it mounted: $FULL_VOL holds it between steps.
replay_on_small_disk() {
	local sock=/var/run/docker.sock logs
	logs=$(cd "${WORKLOADS_DIR:-$ROOT/../shared/workloads}" && pwd)
	docker run --rm -u "$(id -u):$(id -g)" -e HOME=/tmp -e TESTBED_IN_TOOLS=1 \
		-e TESTBED_PROJECT="$TESTBED_PROJECT" -e WORKLOADS_DIR="$logs" \
		-v "$ROOT:$ROOT" -v "$logs:$logs:ro" -v "$FULL_VOL:/small" \
		-v "$sock:$sock" --group-add "$(stat -c %g "$sock")" -w "$ROOT" \
		"testbed-tools:$TESTBED_TAG" make -s replay RESULTS_DIR=/small "$@"
}

run_in_slurm() {
	make -s -C "$ROOT" exec CMD="sacct -X -n -P -a -S now-1hour -o JobName" | grep -q "^$1:"
}

# on_small_disk <command>: runs a shell command with the volume at /small.
on_small_disk() { docker exec -u "$(id -u):$(id -g)" "$FULL_VOL" sh -c "$1"; }

# fill_small_disk <pages>: leaves that many free pages on the volume.
fill_small_disk() {
	on_small_disk "rm -f /small/filler; free=\$(df -B4096 --output=avail /small | tail -n 1);
		dd if=/dev/zero of=/small/filler bs=4096 count=\$((free - $1)) status=none"
}

@test "a full disk mid-replay stops it in one line and loses no job record" {
	FULL_VOL=testbed-test-small-$$
	docker volume create --opt type=tmpfs --opt device=tmpfs \
		--opt o=size=256k,uid="$(id -u)" "$FULL_VOL" >/dev/null
	docker run -d --name "$FULL_VOL" -v "$FULL_VOL:/small" "testbed-tools:$TESTBED_TAG" sleep 900 >/dev/null
	# Four pages: plan.tsv, topology.json, manifest.json and replay.log
	# fit, the first line of submitted.tsv does not, after jobs went to Slurm.
	fill_small_disk 4
	run replay_on_small_disk "${REPLAY_ARGS[@]}" POLICY=default
	assert_failure
	assert_output --regexp "error: /small/[0-9TZ]+-theta-default: No space left on device; jobs already submitted keep running: make room, then make replay RESUME=[0-9TZ]+-theta-default"
	local id
	id=$(on_small_disk 'ls /small | grep -- -theta-default')
	wait_for 20 run_in_slurm "$id" || fail "no job reached Slurm before the disk was full"
	# A page for submitted.tsv and one that sacct.json outgrows: the resumed
	# replay submits the rest, then fails to write the results, leaving no
	# partial file behind.
	fill_small_disk 2
	run replay_on_small_disk RESUME="$id"
	assert_failure
	assert_output --partial "No space left on device; jobs already submitted keep running"
	run on_small_disk "ls /small/$id"
	refute_output --partial sacct.json
	assert_equal "$(on_small_disk "grep -c '\"finished\": true' /small/$id/manifest.json")" 0
	# With room, RESUME completes the run: every job once, COMPLETED.
	on_small_disk 'rm /small/filler'
	run replay_on_small_disk RESUME="$id"
	assert_success
	local copy=$BATS_TEST_TMPDIR/$id
	on_small_disk "tar -C /small -c $id" | tar -C "$BATS_TEST_TMPDIR" -x
	check_run "$copy" resumed
	assert_equal "$(cut -d' ' -f1 "$copy/submitted.tsv" | sort | uniq -d | wc -l)" 0
}

teardown() {
	[ -n "${FULL_VOL:-}" ] || return 0
	docker rm -f "$FULL_VOL" >/dev/null 2>&1 || true
	docker volume rm -f "$FULL_VOL" >/dev/null 2>&1 || true
}

@test "a malformed log names the file, the line and the reason" {
	local bad="$BATS_TEST_TMPDIR/bad.jobs"
	printf 'Job_name Submit Runtime Nodes Comment Perc\n1 0 100 4 1 50\n2 10 x 4 1 50\n' >"$bad"
	run make -s -C "$ROOT" replay LOG="$bad" JOBS=5
	assert_failure
	assert_output --partial "$bad:3: Runtime 'x' is not a number"
	run make -s -C "$ROOT" replay LOG="$BATS_TEST_DIRNAME/../README.md"
	assert_failure
	assert_output --partial "README.md:1: expected 18 SWF fields"
}

@test "a numeric setting that is not a number is refused in one line" {
	run make -s -C "$ROOT" replay LOG=theta LIMIT_GRID=0
	assert_failure
	assert_output --partial "LIMIT_GRID=0: expected log seconds > 0"
	run make -s -C "$ROOT" replay LOG=theta LIMIT_GRID=soon
	assert_failure
	assert_output --partial "LIMIT_GRID=soon: expected a number"
	run make -s -C "$ROOT" replay LOG=theta JOBS=many
	assert_failure
	assert_output --partial "JOBS=many: expected a whole number"
	run make -s -C "$ROOT" replay LOG=theta SPARSITY=1
	assert_failure
	assert_output --partial "SPARSITY=1: expected the share of node pairs that do not communicate, at least 0 and below 1"
}

@test "unknown LOG or POLICY lists the choices" {
	run make -s -C "$ROOT" replay LOG=atlantis
	assert_failure
	assert_output --partial "unknown LOG 'atlantis'; valid: curie intrepid lublin mira theta"
	run make -s -C "$ROOT" replay LOG=theta POLICY=atlantis
	assert_failure
	assert_output --partial "unknown POLICY 'atlantis'; valid: default greedy balanced adaptive"
	run make -s -C "$ROOT" replay RESUME=nope
	assert_failure
	assert_output --partial "RESUME=nope: no such run"
}

# After the tests that take the newest run of a policy (last_run): its runs
# are the newest under default1905 and greedy.
@test "INDIVIDUAL runs the drawn jobs one at a time on the nodes the occupying jobs leave, the same under two policies" {
	local args=(LOG=theta JOBS=30 SCALE=16 SPEEDUP=5000 CLOCK=scaled INDIVIDUAL=4 OCCUPY=0.5)
	local a g r
	run make -s -C "$ROOT" replay "${args[@]}" POLICY=default1905
	assert_success
	a=$(last_run default1905)
	run make -s -C "$ROOT" replay "${args[@]}" POLICY=greedy
	assert_success
	g=$(last_run greedy)
	for r in "$a" "$g"; do
		run python3 - "$r" <<-'PY'
			import csv, json, re, sys
			run = sys.argv[1]
			plan = list(csv.DictReader(open(f"{run}/plan.tsv"), delimiter="\t"))
			jobs = {j["name"].split(":", 1)[1]: j for j in json.load(open(f"{run}/sacct.json"))["jobs"]}
			def hosts(text):
			    out = []
			    for m in re.finditer(r"([a-z]+)(?:\[([^\]]+)\]|(\d+))(?:,|$)", text):
			        for part in (m.group(2) or m.group(3)).split(","):
			            lo, _, hi = part.partition("-")
			            out += [f"{m.group(1)}{k:0{len(lo)}d}" for k in range(int(lo), int(hi or lo) + 1)]
			    return out
			occ = [p for p in plan if p["prefill"] == "1"]
			drawn = sorted((p for p in plan if p["chain"] != "0"), key=lambda p: int(p["chain"]))
			assert sum(int(p["nodes"]) for p in occ) <= 16 and len(drawn) == 4, plan
			for p in occ:
			    j = jobs[p["log_id"]]
			    # On its node list, held until the driver cancelled it.
			    assert sorted(hosts(j["nodes"])) == sorted(p["nodelist"].split(",")), (j["nodes"], p)
			    assert j["state"]["current"][0] == "CANCELLED", j["state"]
			last_end = max(jobs[p["log_id"]]["time"]["start"] for p in occ)
			for p in drawn:
			    t = jobs[p["log_id"]]["time"]
			    assert jobs[p["log_id"]]["state"]["current"][0] == "COMPLETED"
			    # One at a time, after every occupying job had started.
			    assert t["start"] >= last_end, (p["log_id"], t, last_end)
			    last_end = t["end"]
			print("ok")
		PY
		assert_output ok
		run make -s -C "$ROOT" report RUN="$(basename "$r")"
		assert_success
		assert_equal "$(jq .jobs "$r/metrics.json")" 4
	done
	# The same occupying jobs on the same nodes, the same drawn jobs.
	assert_equal "$(cut -f1,11- "$a/plan.tsv")" "$(cut -f1,11- "$g/plan.tsv")"
	# Replayed as a log, the run is its 4 drawn jobs, not the occupying ones.
	assert_equal "$(python3 -c "from workloads import logs
print(len(logs.read('$a/sacct.json').jobs))")" 4
}

@test "a replay without a cluster says so" {
	make -s -C "$ROOT" down >/dev/null
	run make -s -C "$ROOT" replay LOG=theta
	assert_failure
	assert_output --partial "no cluster is up"
}
