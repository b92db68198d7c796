#!/usr/bin/env bats
# Fault drills on tiny: a service dies during a replay. Each drill states
# what the fault costs and checks exactly that: what the testbed says, what
# it loses, and that nothing hit by the fault is counted as a result.

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

# A drill that fails leaves no replay or job behind for the next one (CI
# once saw one stuck replay fail the two drills after it as "busy").
teardown() {
	[ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null || return 0
	kill_tree "$PID"
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
}

container_of() {
	docker ps -aq --filter "label=com.docker.compose.project=$TESTBED_PROJECT" \
		--filter "label=com.docker.compose.service=$1"
}

running_jobs() { [ -n "$(make -s -C "$ROOT" exec CMD="squeue -h -t R -o %i")" ]; }

newest_run() { ls -d "$ROOT"/results/*-theta-"$1"* 2>/dev/null | tail -n 1; }

# The drills below replay 16 Theta jobs (sizes / 16: 1 to 16 of tiny's 32
# nodes, 4 to 22 s each) at SPEEDUP=600 under firstfit: all 16 are due
# within 11 s, so all are submitted at once (LEAD), and the replay takes
# 1 to 3 minutes (a job that times out runs to its limit, 1 or 2 minutes).
runs_now() { ls -d "$ROOT"/results/*-theta-firstfit* 2>/dev/null || true; }

# new_run <runs_now output>: the run directory made since.
new_run() {
	local d
	for d in "$ROOT"/results/*-theta-firstfit*; do
		[ -d "$d" ] && ! grep -qxF "$d" <<<"$1" && { echo "$d"; return 0; }
	done
	return 1
}

all_submitted() {
	[ -f "$RUN/submitted.tsv" ] &&
		[ "$(wc -l <"$RUN/submitted.tsv")" -ge $(($(wc -l <"$RUN/plan.tsv") - 1)) ]
}

# start_replay <AUTO_RECOVER>: the replay in the background; returns once
# every job is submitted and one runs, with PID, OUT (its output) and RUN
# (its directory) set.
start_replay() {
	local before
	OUT=$BATS_TEST_TMPDIR/replay.out
	before=$(runs_now)
	make -s -C "$ROOT" replay LOG=theta JOBS=16 SCALE=16 SPEEDUP=600 CLOCK=scaled POLICY=firstfit \
		AUTO_RECOVER="$1" >"$OUT" 2>&1 &
	PID=$!
	wait_for 120 new_run "$before" >/dev/null || fail "no run directory: $(cat "$OUT")"
	RUN=$(new_run "$before")
	wait_for 60 all_submitted || fail "not every job was submitted: $(tail -n 3 "$OUT")"
	wait_for 60 running_jobs || fail "no job started"
}

# finish_replay: the replay ends (bounded), successfully.
finish_replay() {
	wait_for 600 bash -c "! kill -0 $PID 2>/dev/null" || fail "the replay did not end: $(tail -n 3 "$OUT")"
	wait "$PID" || fail "the replay failed: $(tail -n 5 "$OUT")"
}

# The ids of the jobs running or completing now, space-separated, with a
# space at each end.
running_now() { echo " $(make -s -C "$ROOT" exec CMD='squeue -h -t R,CG -o %i' | paste -sd' ') "; }

# slurmctld has saved its job state since the newest of its jobs (ended
# ones too: -t all) was submitted and since a job that still runs started:
# the state file was written in a later second than both (Slurm's times,
# virtual or not). Its recovery then knows every job, and that one as
# running (a job started after the last save is started again instead).
# shellcheck disable=SC2016 # the command runs in the controller
state_saved() {
	make -s -C "$ROOT" exec CMD='last=$(squeue -h -t all -o %V | sort | tail -n 1)
		first=$(squeue -h -t R -o %S | sort | head -n 1)
		saved=$(stat -c %Y /var/spool/slurmctld/job_state)
		[ -n "$last" ] && [ -n "$first" ] && [ "$saved" -gt "$(date -d "$last" +%s)" ] &&
			[ "$saved" -gt "$(date -d "$first" +%s)" ]'
}

job_ended() { ! make -s -C "$ROOT" exec CMD='squeue -h -o %i' | grep -qx "$1"; }

db_healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$(container_of db)")" = healthy ]; }

# jobs_csv <column>: that column of the run's jobs.csv, one line per job.
jobs_csv() {
	awk -F, -v col="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == col) c = i; next} {print $c}' "$RUN/jobs.csv"
}

@test "an emulator killed mid-replay is named within 10 s, its jobs requeued at once, it is restarted and its jobs are flagged" {
	local out="$BATS_TEST_TMPDIR/replay.out" pid t0 took run
	make -s -C "$ROOT" replay LOG=theta JOBS=16 SCALE=16 SPEEDUP=600 CLOCK=scaled POLICY=firstfit \
		AUTO_RECOVER=1 >"$out" 2>&1 &
	pid=$!
	PID=$pid    # for teardown
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

# The controller dies (SIGKILL) while jobs run; AUTO_RECOVER=1 starts it
# again. Lost: the jobs running across the restart and only they. Slurm
# 24.11 in front-end mode drops their batch step when it recovers its
# state, so they end TIMEOUT at their limit; the report flags them
# (timeout_after_slurmctld_died) and leaves them out. A job started in the
# last moment before the kill, after the controller last saved its state,
# is started again on recovery; its front end refuses the second copy and
# Slurm requeues it (nohold_on_prolog_fail): it runs again, COMPLETED, and
# is flagged "requeued" (CI once saw such a job held forever instead).
# Every other job runs once, COMPLETED, for its runtime, and the replay
# completes. Killed once every job is submitted and Slurm has saved them:
# slurmctld writes its job state at most every 5 s (SAVE_MAX_WAIT in
# state_save.c), so a crash loses the jobs it accepted in the 5 s before
# (CI once killed it 4 s after the submissions: 15 of 16 jobs vanished;
# the replay then ends in an error naming them, README "Faults"), and a
# job started after its last save is started again on recovery (requeued,
# not lost): the drill waits for a save after the last submission and
# after the start of a job that still runs (a fixed 'sleep 6' failed when a
# loaded machine had no job running by then).
@test "slurmctld killed mid-replay: named within 10 s, restarted; only the jobs running across it are lost, TIMEOUT and flagged" {
	local crossing planned s hit requeued expected died
	start_replay 1
	wait_for 30 state_saved ||
		fail "slurmctld did not save its job state with a job running within 30 s of the submissions"
	crossing=$(running_now)
	docker kill "$(container_of slurmctld)" >/dev/null
	wait_for 10 grep -q 'FAULT: slurmctld is exited' "$OUT" ||
		fail "the controller's death was not named within 10 s: $(cat "$OUT")"
	wait_for 60 grep -q 'recovered: slurmctld runs again' "$OUT" || fail "slurmctld was not recovered"
	finish_replay
	assert_equal "$(jq -r .finished "$RUN/manifest.json")" true
	run jq -r '[.kind, .service] | @tsv' "$RUN/faults.jsonl"
	assert_output "$(printf 'died\tslurmctld\nrecovered\tslurmctld')"
	# Every job of the window once in sacct.json.
	planned=$(($(wc -l <"$RUN/plan.tsv") - 1))
	assert_equal "$(jq '.jobs | length' "$RUN/sacct.json")" "$planned"
	assert_equal "$(jq '[.jobs[].name] | unique | length' "$RUN/sacct.json")" "$planned"
	# Lost: only jobs that ran across the restart, each TIMEOUT: started
	# before the death was seen (Slurm's time, as sacct's). Every job seen
	# running before the kill is lost (TIMEOUT, or requeued). (A job may
	# start between that look and the kill, so the look is not the list.)
	died=$(jq -r 'select(.kind == "died") | .time' "$RUN/faults.jsonl")
	jq -r '.jobs[] | [.job_id, .state.current[0], .time.start, (.restart_cnt // 0)] | @tsv' \
		"$RUN/sacct.json" | awk -v crossing="$crossing" -v died="$died" '
		$2 != "COMPLETED" && $2 != "TIMEOUT" {print "job " $1 " ended " $2; bad = 1}
		$2 == "TIMEOUT" && $3 > died {print "job " $1 " started at " $3 ", after the death at " died; bad = 1}
		index(crossing, " " $1 " ") && $2 != "TIMEOUT" && $4 == 0 {print "job " $1 " ran across the restart and ended " $2; bad = 1}
		END {exit bad}'
	# The others ran for their runtime (launch overhead aside, as check_run).
	s=$(jq .speedup "$RUN/manifest.json")
	jq -r '.jobs[] | select(.state.current[0] == "COMPLETED") | [.time.elapsed,
		(.comment.administrator | capture("runtime_scaled=(?<s>[0-9.e+]+)").s)] | @tsv' "$RUN/sacct.json" |
		awk -v s="$s" '{d = $1 - $2 / s; if (d < -1 || d > 3) {print "elapsed " $1 " for " $2 / s; bad = 1}} END {exit bad}'
	# The report flags exactly the TIMEOUT and the requeued jobs, and
	# counts the others.
	make -s -C "$ROOT" report RUN="$(basename "$RUN")" >/dev/null
	hit=$(jq '[.jobs[] | select(.state.current[0] == "TIMEOUT")] | length' "$RUN/sacct.json")
	requeued=$(jq '[.jobs[] | select((.restart_cnt // 0) > 0)] | length' "$RUN/sacct.json")
	[ "$hit" -ge 1 ] || fail "no job ran across the restart (running then: $crossing)"
	expected="$((planned - hit - requeued))"
	[ "$requeued" -eq 0 ] || expected+=" $requeued requeued"
	expected+=" $hit timeout_after_slurmctld_died"
	assert_equal "$(jobs_csv fault | sort | uniq -c | awk '{$1 = $1} 1' | paste -sd' ')" "$expected"
	hit=$((hit + requeued))
	assert_equal "$(jq .fault_jobs "$RUN/metrics.json")" "$hit"
	assert_equal "$(jq .jobs "$RUN/metrics.json")" "$((planned - hit))"
	assert_equal "$(jq .damaged "$RUN/metrics.json")" true
	echo "$RUN" >"$BATS_FILE_TMPDIR/ctld-run"
}

# RERUN_FAULTED on the controller drill's run. Lost: nothing more. The
# jobs the restart cost run again as new jobs, eligible at once (their log
# times have passed), and the report counts them in place of the faulted
# ones: one row per log job, none flagged; the run stays damaged (a
# service died during it) and says how many jobs were run again.
@test "RESUME=<the controller drill's run> RERUN_FAULTED=1 runs its flagged jobs again; the report counts every log job" {
	[ -s "$BATS_FILE_TMPDIR/ctld-run" ] || skip "needs the controller drill's run"
	local planned hit
	RUN=$(cat "$BATS_FILE_TMPDIR/ctld-run")
	planned=$(($(wc -l <"$RUN/plan.tsv") - 1))
	hit=$(jq .fault_jobs "$RUN/metrics.json")
	run make -s -C "$ROOT" replay RESUME="$(basename "$RUN")" RERUN_FAULTED=1
	assert_success
	assert_output --partial "$hit jobs hit by a fault run again (RERUN_FAULTED=1)"
	assert_equal "$(jq -r .finished "$RUN/manifest.json")" true
	assert_equal "$(jq '.reruns | length' "$RUN/manifest.json")" "$hit"
	assert_equal "$(jq -c '[.reruns[].fault] | unique - ["requeued"]' "$RUN/manifest.json")" '["timeout_after_slurmctld_died"]'
	assert_equal "$(jq '.pauses[-1].jobs_rerun' "$RUN/manifest.json")" "$hit"
	assert_equal "$(wc -l <"$RUN/rerun.tsv")" "$hit"
	# sacct.json: the faulted jobs stay; each rerun once, COMPLETED, not
	# eligible before its log time.
	assert_equal "$(jq '.jobs | length' "$RUN/sacct.json")" "$((planned + hit))"
	assert_equal "$(jq -c '[.jobs[] | select(.name | endswith(":rerun1")) | .state.current[0]] | unique' "$RUN/sacct.json")" '["COMPLETED"]'
	join <(tail -n +2 "$RUN/plan.tsv" | awk '{print $1, $2}' | sort) \
		<(jq -r '.jobs[] | select(.name | endswith(":rerun1")) | [(.name | split(":")[1]), .time.eligible] | @tsv' "$RUN/sacct.json" | sort) |
		awk -v t0="$(jq .t0 "$RUN/manifest.json")" -v s="$(jq .speedup "$RUN/manifest.json")" \
			'{if ($3 < t0 + $2 / s - 1) {print "rerun of " $1 " eligible early"; bad = 1}} END {exit bad}'
	make -s -C "$ROOT" report RUN="$(basename "$RUN")" >/dev/null
	assert_equal "$(($(wc -l <"$RUN/jobs.csv") - 1))" "$planned"
	assert_equal "$(jobs_csv fault | grep -c .)" 0
	assert_equal "$(jobs_csv rerun_of | grep -c .)" "$hit"
	assert_equal "$(jq .jobs "$RUN/metrics.json")" "$planned"
	assert_equal "$(jq .fault_jobs "$RUN/metrics.json")" 0
	assert_equal "$(jq .rerun_jobs "$RUN/metrics.json")" "$hit"
	grep -q "^\*\*Rerun:\*\* $hit jobs hit by a fault were run again" "$RUN/summary.md"
}

# accounting_drill <service>: that service killed mid-replay with
# AUTO_RECOVER=0 (submissions pause; every job is submitted by then, so
# the pause delays none) and started again by the drill once a job has
# ended while it was down (for the database, slurmdbd too once the
# database is healthy, in case it died as well). Lost: nothing. slurmctld
# keeps the accounting records of what happens meanwhile and sends them
# once slurmdbd and the database are back: sacct.json has every job,
# COMPLETED, with the times the log gives (check_run), the job that ended
# during the outage among them, and the report counts every job.
accounting_drill() {
	local service=$1 victim
	start_replay 0
	victim=$(make -s -C "$ROOT" exec CMD='squeue -h -t R -o %i' | head -n 1)
	[ -n "$victim" ] || fail "no job runs"
	docker kill "$(container_of "$service")" >/dev/null
	wait_for 10 grep -q "FAULT: $service is exited" "$OUT" ||
		fail "$service's death was not named within 10 s: $(cat "$OUT")"
	grep -q "submissions paused until $service is back" "$OUT" || fail "no pause: $(cat "$OUT")"
	wait_for 120 job_ended "$victim" || fail "job $victim did not end while $service was down"
	docker start "$(container_of "$service")" >/dev/null
	if [ "$service" = db ]; then
		wait_for 120 db_healthy || fail "the database did not come back"
		docker start "$(container_of slurmdbd)" >/dev/null # a no-op if it runs
	fi
	wait_for 30 grep -q "recovered: $service runs again" "$OUT" || fail "$service was not recovered"
	finish_replay
	check_run "$RUN"
	assert_equal "$(jq -r --argjson v "$victim" '.jobs[] | select(.job_id == $v) | .state.current[0]' "$RUN/sacct.json")" COMPLETED
	# The service died (for the database, slurmdbd may have too), and
	# every service that died came back.
	run jq -r 'select(.kind == "died") | .service' "$RUN/faults.jsonl"
	assert_line "$service"
	assert_equal "$(jq -r 'select(.kind == "recovered") | .service' "$RUN/faults.jsonl" | sort)" \
		"$(jq -r 'select(.kind == "died") | .service' "$RUN/faults.jsonl" | sort)"
	make -s -C "$ROOT" report RUN="$(basename "$RUN")" >/dev/null
	assert_equal "$(jq .fault_jobs "$RUN/metrics.json")" 0
	assert_equal "$(jq .jobs "$RUN/metrics.json")" "$(($(wc -l <"$RUN/plan.tsv") - 1))"
}

@test "slurmdbd killed mid-replay and restarted: named within 10 s, accounting catches up, nothing lost" {
	accounting_drill slurmdbd
}

@test "the database killed mid-replay and restarted: named within 10 s, accounting catches up, nothing lost" {
	accounting_drill db
}

@test "make status names a dead emulator" {
	docker kill "$(container_of emu1)" >/dev/null
	run make -s -C "$ROOT" status
	assert_output --partial "NOT RUNNING: emu1 (exited)"
	make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
	run make -s -C "$ROOT" status
	refute_output --partial "NOT RUNNING"
}
