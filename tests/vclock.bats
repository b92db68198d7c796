#!/usr/bin/env bats
# The virtual clock in the cluster (docs/vclock.md): every Slurm process on
# one clock page, Slurm's timeouts scaled with its rate, and replays with
# CLOCK=virtual. The preload library's own checks (no Docker) are
# tests/vclock/run.sh, in `make test` too.

PAGE=/run/testbed-vclock/clock

setup_file() {
	load helpers
	make -s -C "$ROOT" down >/dev/null
	# Timeouts for rate 100, as a CLOCK=virtual SPEEDUP=100 replay sets them.
	CLOCK_RATE=100 make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" exec CMD="tb-vclock set-rate $PAGE 1 >/dev/null; scancel -u root" >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

# The newest run of a policy, and whether it is a new balanced run that
# has submitted n jobs or more (submitted_since <runs before> <n>).
newest() { ls -d "$ROOT"/results/*-theta-"$1"* 2>/dev/null | tail -n 1; }
submitted_since() {
	local d
	d=$(newest balanced)
	[ -n "$d" ] && ! grep -qxF "$d" <<<"$1" && [ -f "$d/submitted.tsv" ] &&
		[ "$(wc -l <"$d/submitted.tsv")" -ge "$2" ]
}

container() {
	docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT" \
		--filter "label=com.docker.compose.service=$1"
}

@test "the generated configuration scales Slurm's timeouts with the clock's rate" {
	local conf
	conf=$(cluster_dir tiny)/slurm.conf
	grep -qx 'MessageTimeout=3000' "$conf"
	grep -qx 'SlurmdTimeout=0' "$conf"
	grep -qx 'AuthInfo=cred_expire=12000' "$conf"
	grep -q '^SchedulerParameters=.*,bf_max_time=100$' "$conf"
	assert_equal "$(make -s -C "$ROOT" exec CMD='scontrol show config' | awk '$1 == "MessageTimeout" {print $3}')" 3000
	generate tiny --clock-rate 1
	grep -qx 'MessageTimeout=30' "$ROOT/build/test-config/tiny/slurm.conf"
	grep -qx 'SlurmdTimeout=300' "$ROOT/build/test-config/tiny/slurm.conf"
	run generate tiny --clock-rate 0
	assert_failure
	assert_output "error: tiny: clock rate 0: expected a number above 0, at most 1e6"
}

@test "every Slurm daemon of every container reads the cluster's virtual clock, within 0.5 s at rate 100" {
	make -s -C "$ROOT" exec CMD="tb-vclock set-rate $PAGE 100 >/dev/null && tb-vclock jump $PAGE --by 1000 >/dev/null"
	local svc c daemon out
	for svc in slurmctld slurmdbd emu1; do
		c=$(container "$svc")
		[ -n "$c" ] || fail "no $svc container"
		case $svc in
		slurmctld) daemon=slurmctld ;; slurmdbd) daemon=slurmdbd ;; *) daemon=slurmd ;;
		esac
		# The daemon itself has the preload mapped (not only docker exec's shell).
		docker exec "$c" bash -c "grep -q libtbvclock /proc/\$(pgrep -xo $daemon)/maps" ||
			fail "$daemon in $svc does not have libtbvclock.so loaded"
		# The preloaded date, before and after the page's own reading (by
		# system calls): the page's time must fall between them, give or
		# take 0.5 virtual s. Unpreloaded, date would be 1000 s behind.
		# The two dates are at most 100 times the wall time between them
		# apart (three process starts: 50 ms of wall time is 5 virtual s,
		# more on a loaded machine), measured by /proc/uptime, which the
		# preload leaves alone (bash reads it, no process; 10 ms steps);
		# a date ahead of the page's rate would spread them further.
		out=$(docker exec "$c" bash -c "read -r u0 _ </proc/uptime; a=\$(date +%s.%N); b=\$(tb-vclock now $PAGE | awk '{print \$3}'); c=\$(date +%s.%N); read -r u1 _ </proc/uptime; echo \$a \$b \$c \$u0 \$u1")
		awk '{ if (!($2 >= $1 - 0.5 && $2 <= $3 + 0.5 && $3 - $1 <= 100 * ($5 - $4 + 0.01) + 0.5)) { print "'"$svc"': " $0; exit 1 } }' <<<"$out" ||
			fail "$svc's time is off the page's (date, page, date, uptime, uptime): $out"
	done
}

@test "a cluster idles 2 minutes of wall time at rate 100: every node up, no timeout or credential error" {
	make -s -C "$ROOT" exec CMD="tb-vclock set-rate $PAGE 100 >/dev/null"
	local since v0 v1 c nodes lines
	since=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	# The front ends' own log files: only what they write from now on.
	lines=$(docker exec "$(container emu1)" bash -c 'cat /var/log/slurm/slurmd-*.log' | wc -l)
	c=$(container slurmctld)
	# The controller's date, between two readings of /proc/uptime (wall
	# time: the preload leaves it alone; bash reads it, no process; 10 ms
	# steps), before and after the idle 2 minutes.
	# shellcheck disable=SC2016 # the command runs in the controller
	local clk='read -r u0 _ </proc/uptime; v=$(date +%s.%N); read -r u1 _ </proc/uptime; echo $u0 $v $u1'
	v0=$(docker exec "$c" bash -c "$clk")
	sleep 120
	v1=$(docker exec "$c" bash -c "$clk")
	# At rate 100 the clock advanced 100 times the wall time between the two
	# dates, which lies between the inner and the outer uptime readings
	# (+-10 ms each), give or take 0.5 virtual s: about 12,000 virtual s,
	# within a few virtual s of what was measured however long docker exec
	# and sleep took (rate 101 would be 120 s off).
	awk -v a="$v0" -v b="$v1" 'BEGIN { split(a, x, " "); split(b, y, " "); d = y[2] - x[2]
		lo = 100 * (y[1] - x[3] - 0.01) - 0.5; hi = 100 * (y[3] - x[1] + 0.01) + 0.5
		printf "the clock advanced %.2f virtual s, expected %.2f to %.2f\n", d, lo, hi
		exit !(d >= lo && d <= hi && d > 11500) }' ||
		fail "the virtual clock did not run at rate 100 while the cluster idled: $v0 / $v1"
	nodes=$(make -s -C "$ROOT" exec CMD="sinfo -h -t idle -o %D")
	assert_equal "$nodes" 32
	local bad
	bad=$(for c in $(docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT"); do
		docker logs --since "$since" "$c" 2>&1
	done | grep -iE 'error|timed? ?out|expired|credential|not responding|EAGAIN|EBUSY|Resource temporarily' || true)
	bad+=$(docker exec "$(container emu1)" bash -c 'cat /var/log/slurm/slurmd-*.log' |
		tail -n +$((lines + 1)) | grep -iE 'error|timed? ?out|expired|credential|not responding' || true)
	[ -z "$bad" ] || fail "errors while idling: $bad"
	make -s -C "$ROOT" exec CMD="tb-vclock set-rate $PAGE 1 >/dev/null"
}

@test "CLOCK=virtual replays in log seconds: runtimes, begin times and limits exact, idle time jumped, rate 1 after" {
	local before run t0 t1 span
	before=$(ls -d "$ROOT"/results/*-theta-default1905* 2>/dev/null || true)
	t0=$SECONDS
	# EVENT_JUMPS=1: the event jumps are checked here. A bare clone's run
	# of this window once ended a job 1,774 log s late with them: its
	# script slept a length read off the clock before a jump, which was
	# added to it (issue 30); it now sleeps until its end (tb-vclock
	# sleep-until; tests/python/test_event_jumps.py).
	run make -s -C "$ROOT" replay LOG=theta JOBS=12 SCALE=16 POLICY=default1905 CLOCK=virtual SPEEDUP=1000 \
		EVENT_JUMPS=1 END_GUARD=100
	t1=$SECONDS
	assert_success
	assert_output --partial "on the virtual clock at rate 1000"
	for run in "$ROOT"/results/*-theta-default1905*; do
		grep -qxF "$run" <<<"$before" || break
	done
	jq -e '.clock == "virtual" and .clock_rate == 1000 and .speedup == 1' "$run/manifest.json" >/dev/null ||
		fail "manifest: $(jq -c '{clock, clock_rate, speedup}' "$run/manifest.json")"
	# Every job COMPLETED once, eligible at t0 + its log offset, limits in
	# log minutes (helpers.bash), with SPEEDUP 1: Slurm's time is log time.
	# A job ends at its start + its runtime, so launch latency is not added
	# to it; Slurm's own completion path (job exit, slurmstepd, slurmd,
	# slurmctld: a few ms of wall time) is, times the rate: 6-47 s at rate
	# 1000 on an idle machine, 355 s seen under a load average of 10. That
	# path crosses the same daemons as a launch, whose lag the run measured
	# (launch.tsv, log s): allowed is 50 s plus twice the worst launch lag.
	# A job not on the virtual clock would be off by its runtime x 999.
	local slack
	slack=$(awk -F'\t' 'NR > 1 && $3 + 0 > m {m = $3 + 0} END {printf "%d", 50 + 2 * m}' "$run/launch.tsv")
	check_run "$run" "" "$slack"
	# The window's idle stretches were jumped over, and not its jobs.
	[ "$(jq '.clock_jumps // 0' "$run/manifest.json")" -ge 1 ]
	# Event jumps (EVENT_JUMPS=1): the clock also jumped while
	# jobs ran, to just before the next end or arrival, and still every job
	# ran its runtime exactly (check_run above) and none launched late.
	jq -e '.event_jumps.busy_jumps >= 1 and .launch.late_jobs == 0' "$run/manifest.json" >/dev/null ||
		fail "event jumps: $(jq -c '{event_jumps, late: .launch.late_jobs}' "$run/manifest.json")"
	# Every job's script told the launch guard when it began.
	[ "$(jq '.launch.jobs' "$run/manifest.json")" = 12 ] ||
		fail "launch: $(jq -c .launch "$run/manifest.json")"
	[ "$(tail -n +2 "$run/launch.tsv" | wc -l)" = 12 ]
	# The end guard (END_GUARD=100, given above: off by default) slowed the clock around
	# the ends and saw slurmctld record every one of them (jobcomp/filetxt
	# beside the clock page); none given up.
	jq -e '.end_guard.enabled and .end_guard.windows >= 1 and .end_guard.ends == 12
		and .end_guard.given_up == 0' "$run/manifest.json" >/dev/null ||
		fail "end guard: $(jq -c .end_guard "$run/manifest.json")"
	# Faster than the log: its span (last end - first submit) in log
	# seconds, over the replay's wall time, beats the rate / 4.
	span=$(jq '([.jobs[].time.end] | max) - ([.jobs[].time.eligible] | min)' "$run/sacct.json")
	awk -v s="$span" -v w=$((t1 - t0)) 'BEGIN { exit !(s / w > 250) }' ||
		fail "$span log s in $((t1 - t0)) wall s"
	# The clock is back at rate 1.
	make -s -C "$ROOT" exec CMD="tb-vclock now $PAGE" | grep -q ' rate 1 '
	run make -s -C "$ROOT" report RUN="$(basename "$run")"
	assert_success
	grep -q 'virtual clock x1000' "$run/summary.md"
}

@test "an interrupted CLOCK=virtual replay leaves the clock at rate 1 and resumes on it" {
	local before run pid
	before=$(ls -d "$ROOT"/results/*-theta-balanced* 2>/dev/null || true)
	make -s -C "$ROOT" replay LOG=theta JOBS=12 SCALE=16 POLICY=balanced SPEEDUP=200 LEAD=1 >/dev/null 2>&1 &
	pid=$!
	# Stopped once 3 jobs are submitted: the first job runs 60 wall s at
	# rate 200 (no idle jump while it runs) and the 12th is due 31 wall s
	# after the first, so the stop comes mid-window however fast the
	# machine is. Only this test's own replay is stopped.
	wait_for 60 submitted_since "$before" 3 || fail "the replay did not submit 3 jobs within 60 s"
	kill_tree "$pid"
	wait "$pid" || true
	run=$(newest balanced)
	[ "$(jq -r '.finished // false' "$run/manifest.json")" = false ] ||
		fail "the replay finished although it was stopped mid-window"
	[ "$(wc -l <"$run/submitted.tsv")" -lt 12 ] ||
		fail "all 12 jobs were submitted before the stop: nothing is left to resume"
	# Stopped: the cluster is back at wall speed, the stop in Slurm's time.
	make -s -C "$ROOT" exec CMD="tb-vclock now $PAGE" | grep -q ' rate 1 '
	jq -e '.stopped_at > .t0' "$run/manifest.json" >/dev/null
	run make -s -C "$ROOT" replay RESUME="$(basename "$run")"
	assert_success
	check_run "$run" resumed 50
	jq -e '.resumed and .paused_s > 0 and .clock == "virtual"' "$run/manifest.json" >/dev/null
	make -s -C "$ROOT" exec CMD="tb-vclock now $PAGE" | grep -q ' rate 1 '
}

# The clock page is never re-anchored, so after a virtual replay Slurm's
# clock stays ahead of wall time; CLOCK=scaled must then plan in Slurm's
# time too (it once planned in wall time: every begin time was in Slurm's
# past and the whole window was eligible at once).
@test "CLOCK=scaled on a clock ahead of wall time plans in Slurm's time: eligible times follow the log" {
	local before run virt ahead
	virt=$(make -s -C "$ROOT" exec CMD='date +%s')
	make -s -C "$ROOT" exec CMD="tb-vclock jump $PAGE --to $((virt + 86400)) >/dev/null"
	ahead=$(($(make -s -C "$ROOT" exec CMD='date +%s') - $(date +%s)))
	[ "$ahead" -gt 80000 ] || fail "Slurm's clock is only $ahead s ahead of wall time"
	before=$(ls -d "$ROOT"/results/*-theta-default1905* 2>/dev/null || true)
	run make -s -C "$ROOT" replay LOG=theta JOBS=6 SCALE=16 POLICY=default1905 CLOCK=scaled SPEEDUP=600
	assert_success
	for run in "$ROOT"/results/*-theta-default1905*; do
		grep -qxF "$run" <<<"$before" || break
	done
	jq -e '.clock == "scaled" and .speedup == 600' "$run/manifest.json" >/dev/null
	# t0 is Slurm's time, not wall time.
	awk -v t0="$(jq .t0 "$run/manifest.json")" -v wall="$(date +%s)" 'BEGIN { exit !(t0 - wall > 80000) }' ||
		fail "t0 $(jq .t0 "$run/manifest.json") is not a day ahead of wall time"
	check_run "$run"
}

@test "CLOCK and a virtual SPEEDUP are checked before anything changes" {
	run make -s -C "$ROOT" replay LOG=theta CLOCK=sundial
	assert_failure
	assert_output --partial "CLOCK=sundial: expected scaled or virtual"
	run make -s -C "$ROOT" replay LOG=theta CLOCK=virtual SPEEDUP=fast
	assert_failure
	assert_output --partial "SPEEDUP=fast: expected a number"
	run make -s -C "$ROOT" replay LOG=theta CLOCK=virtual SPEEDUP=2000000
	assert_failure
	assert_output --partial "SPEEDUP=2e+06: expected the virtual clock's rate, a number above 0 and at most 1000000"
}
