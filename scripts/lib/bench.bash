# scripts/testbed's benchmarks (make bench BENCH=...): each prints figures
# and keeps them in bench/out/; none is a test.

# A new file for a benchmark's figures: the path of <name>-<time>.txt in
# bench/out, or in the folder $2, which it makes. It runs in $(...), where
# set -e does not hold: a folder it cannot make is its failure, returned.
bench_file() {
	local out=${2:-$ROOT/bench/out}
	mkdir -p "$out" || return
	echo "$out/$1-$(date +%Y%m%d-%H%M%S).txt"
}

# The host in a benchmark's header: "<n> cores, <m> MiB; <UTC time>".
bench_host() {
	printf '%s cores, %s MiB; %s' "$(nproc)" \
		"$(awk '/MemTotal/ {printf "%d", $2 / 1024}' /proc/meminfo)" "$(date -u +%FT%TZ)"
}

# A benchmark's end against its committed reference: bench/$1 compares
# the runs (the arguments after the third) with the reference $2, appended
# to the file $3; then the cluster down. Returns bench/$1's status.
bench_compare() {
	local script=$1 ref=$2 file=$3 c=0
	shift 3
	in_tools python3 "$ROOT/bench/$script" "$ref" "$@" | tee -a "$file" || c=$?
	cmd_down >/dev/null
	info "written to ${file#"$ROOT"/}"
	return "$c"
}

# One replay of a benchmark with the parameters given (NAME=value ...), its
# output shown and kept in the file log, then its report: BENCH_RUN is its
# run directory. what names it in the error if it does not finish.
bench_replay_run() {
	local what=$1 log=$2 id kv
	shift 2
	(
		for kv in "$@"; do
			export "${kv?}"
		done
		cmd_replay
	) | tee "$log"
	id=$(sed -n 's|^results in \(.*\)/$|\1|p' "$log" | tail -n 1)
	[ -n "$id" ] || die "bench: $what did not finish"
	id=$(basename "$id")
	cmd_report "$id" >/dev/null
	BENCH_RUN="$RESULTS_DIR/$id"
}

# BENCH=clock (docs/vclock.md): what the virtual clock costs and how true
# it is. CPU: slurmctld's and the front ends' share of a core while
# hpc2010 idles 30 s at rates 1, 100 and 1000 (timeouts scaled for each).
# Fidelity: the README's SPEEDUP-study window (the first 15 theta jobs on
# hpc2010 under greedy), CLOCK_RUNS (3) runs at each of CLOCK_RATES
# (100 1000), against the committed SPEEDUP=10 reference's metrics.
bench_clock() {
	local file rate k log runs=()
	local ref=$ROOT/bench/reference/theta15-greedy-s10.json
	file=$(bench_file clock)
	log=$(mktemp)
	{
		printf '# make bench BENCH=clock: CPU of an idle hpc2010 by clock rate, then fidelity\n'
		printf '# host: %s\n' "$(bench_host)"
		printf '%-6s %16s %18s\n' rate slurmctld_cpu_pct frontends_cpu_pct
	} | tee "$file"
	cmd_down >/dev/null
	for rate in 1 100 1000; do
		CLOCK_RATE=$rate POLICY=greedy cmd_up hpc2010 >/dev/null
		ctld_exec tb-vclock set-rate /run/testbed-vclock/clock "$rate" >/dev/null
		local t0 t1
		t0=$(cpu_ticks)
		sleep 30
		t1=$(cpu_ticks)
		ctld_exec tb-vclock set-rate /run/testbed-vclock/clock 1 >/dev/null
		# ticks are 1/100 s: over 30 s, ticks / 30 is the per cent of a core
		awk -v r="$rate" -v a="$t0" -v b="$t1" 'BEGIN {split(a, x); split(b, y);
			printf "%-6s %16.1f %18.1f\n", r, (y[1] - x[1]) / 30, (y[2] - x[2]) / 30}' | tee -a "$file"
	done
	for rate in ${CLOCK_RATES:-100 1000}; do
		for ((k = 1; k <= ${CLOCK_RUNS:-3}; k++)); do
			info "bench: fidelity, rate $rate, run $k of ${CLOCK_RUNS:-3}"
			bench_replay_run "the replay at rate $rate" "$log" LOG=theta \
				POLICY=greedy JOBS=15 CLOCK=virtual SPEEDUP="$rate"
			runs+=("$BENCH_RUN")
		done
	done
	rm -f "$log"
	bench_compare clock.py "$ref" "$file" "${runs[@]}"
}

# BENCH=window (issue 30 point 3, docs/vclock.md#in-the-testbed): the
# saturated 1,000-job Theta window on hpc2010 under greedy at rate 1000,
# WINDOW_JUMPS (1 0: with event jumps, then without) WINDOW_RUNS (1) times
# each, against the committed reference
# (bench/reference/theta1000-greedy-r1000.json): wall time, clock jumps,
# late launches, makespan, utilization and mean wait. About 10 min with
# jumps and 31 without, on a quiet machine.
bench_window() {
	local file log runs=() ej k
	local ref=$ROOT/bench/reference/theta1000-greedy-r1000.json
	file=$(bench_file window)
	log=$(mktemp)
	{
		printf '# make bench BENCH=window: the 1,000-job Theta window, rate 1000, greedy\n'
		printf '# host: %s; load %s\n' "$(bench_host)" "$(cut -d' ' -f1-3 /proc/loadavg)"
	} | tee "$file"
	cmd_down >/dev/null
	POLICY=greedy cmd_up hpc2010 >/dev/null
	for ej in ${WINDOW_JUMPS:-1 0}; do
		for ((k = 1; k <= ${WINDOW_RUNS:-1}; k++)); do
			info "bench: window, EVENT_JUMPS=$ej, run $k of ${WINDOW_RUNS:-1}"
			bench_replay_run "the window with EVENT_JUMPS=$ej" "$log" LOG=theta \
				POLICY=greedy CLOCK=virtual SPEEDUP=1000 EVENT_JUMPS="$ej"
			runs+=("$BENCH_RUN")
		done
	done
	rm -f "$log"
	printf '# load at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$file"
	bench_compare window.py "$ref" "$file" "${runs[@]}"
}

# BENCH=faults (README, Faults): how long the replay's health watch takes
# to name a dead service and, with AUTO_RECOVER=1, to have it running
# again. Each service is killed (docker kill) while a replay of 16 theta
# jobs on tiny has jobs running; times are from the kill to the replay's
# FAULT and recovered lines, polled every 0.2 s.
bench_faults() {
	local file svc log pid c t0 det rec
	file=$(bench_file faults)
	log=$(mktemp)
	{
		printf '# make bench BENCH=faults: detection and recovery of a killed service (tiny, AUTO_RECOVER=1)\n'
		printf '# host: %s cores; %s\n' "$(nproc)" "$(date -u +%FT%TZ)"
		printf '%-10s %12s %12s\n' service detect_s recover_s
	} | tee "$file"
	cmd_down >/dev/null
	cmd_up tiny >/dev/null
	for svc in ${BENCH_SERVICES:-emu1 slurmctld slurmdbd db}; do
		ctld_exec scancel -u root >/dev/null 2>&1 || true
		LOG=theta JOBS=16 SCALE=16 SPEEDUP=600 CLOCK=scaled POLICY=firstfit AUTO_RECOVER=1 \
			cmd_replay >"$log" 2>&1 &
		pid=$!
		t0=$SECONDS
		until [ "$(ctld_exec squeue -h -t R 2>/dev/null | wc -l)" -gt 0 ]; do
			[ $((SECONDS - t0)) -lt 120 ] || die "bench: no job started"
			sleep 1
		done
		c=$(docker ps -q --filter "label=com.docker.compose.project=$PROJECT" \
			--filter "label=com.docker.compose.service=$svc")
		[ -n "$c" ] || die "bench: no $svc container"
		docker kill "$c" >/dev/null
		t0=$(date +%s.%N)
		det="" rec=""
		while [ -z "$rec" ] && awk -v t="$t0" -v n="$(date +%s.%N)" 'BEGIN { exit !(n - t < 120) }'; do
			[ -n "$det" ] || ! grep -q "FAULT: $svc" "$log" || det=$(awk -v t="$t0" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')
			! grep -q "recovered: $svc" "$log" || rec=$(awk -v t="$t0" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')
			sleep 0.2
		done
		printf '%-10s %12s %12s\n' "$svc" "${det:-none}" "${rec:-none}" | tee -a "$file"
		wait "$pid" || info "bench: the replay with $svc killed failed: $(tail -n 2 "$log")"
	done
	rm -f "$log"
	cmd_down >/dev/null
	info "written to ${file#"$ROOT"/}"
}

# slurmctld's and every slurmd's CPU ticks so far, "ctld frontends".
# shellcheck disable=SC2016 # the script runs in the containers
readonly CPU_TICKS='for p in $(pgrep -x "$1"); do cat "/proc/$p/stat"; done |
	awk "{s += \$14 + \$15} END {print s + 0}"'
cpu_ticks() {
	local ctld fe=0 svc n
	ctld=$(ctld_exec bash -c "$CPU_TICKS" - slurmctld)
	for svc in $(compose ps --format '{{.Service}}' | grep '^emu'); do
		n=$(compose exec -T "$svc" bash -c "$CPU_TICKS" - slurmd)
		fe=$((fe + n))
	done
	echo "$ctld $fe"
}

# Benchmarks print figures and keep them in bench/out/; none is a test.
# BENCH=alloc (policy decision time), treematch (TreeMatch's decision time
# against job size), up (start-up time, memory), decision, submit, clock,
# window, faults, or all (not clock, window, faults).
cmd_bench() {
	require_docker
	case "${BENCH:-all}" in
	alloc) bench_alloc ;;
	treematch) bench_treematch ;;
	clock) bench_clock ;;
	window) bench_window ;;
	faults) bench_faults ;;
	up) bench_up ;;
	decision) bench_decision ;;
	submit) bench_submit ;;
	sim) bench_sim ;;
	all) bench_alloc && bench_treematch && bench_up && bench_decision && bench_submit ;;
	*) die "BENCH='${BENCH}': expected alloc, treematch, up, decision, submit, sim, clock, window, faults or all" ;;
	esac
}

# The twin's speed (workloads/sim_bench.py): the Theta window under each
# ICPP-W policy on hpc2010 and theta (target < 5 s each), a 100,000-job
# synthetic log on cori (< 1 min). No cluster; about a minute.
bench_sim() {
	local file
	file=$(bench_file sim)
	build_tools
	in_tools python3 -m workloads.sim_bench --root "$ROOT" --workloads-dir "$WORKLOADS_DIR" \
		--out "$ROOT/build/bench/sim" ${SIM_BENCH_JOBS:+--jobs "$SIM_BENCH_JOBS"} | tee "$file"
	info "written to ${file#"$ROOT"/}"
}

# A cluster is <name> or <name>:<leaf level> (a dragonfly's tree from another
# level: cori:router is issue 17's case, 3,054 router leaves).
bench_alloc() {
	local file c name dir leaf
	file=$(bench_file alloc)
	build_tools
	for c in ${BENCH_CLUSTERS:-curie theta cori cori:router}; do
		name=${c%%:*} leaf=
		[ "$name" = "$c" ] || leaf=${c#*:}
		dir="$ROOT/build/bench/$name${leaf:+-$leaf}"
		in_tools python3 "$ROOT/emulated-clusters/generate.py" "$name" "$dir" \
			--topologies-dir "$TOPOLOGIES_DIR" ${leaf:+--leaf-level "$leaf"} >/dev/null
		in_tools "$TB_BUILD/bench-alloc" "$dir/topology.json" \
			"${BENCH_REQUESTS:-2000}" | sed "s|$ROOT/||" | tee -a "$file"
	done
	info "written to ${file#"$ROOT"/}"
}

# TreeMatch's decision time against job size on Curie, tm-i and tm-sub, up
# to the whole machine (80,640 cores), beside the paper's Figure 3
# (IJHPCA 2018, Sec. 3.2); the library alone, at core level. A few seconds.
bench_treematch() {
	local file
	file=$(bench_file treematch)
	build_tools
	in_tools python3 "$ROOT/emulated-clusters/generate.py" curie \
		"$ROOT/build/bench/curie" --topologies-dir "$TOPOLOGIES_DIR" >/dev/null
	{
		printf '# make bench BENCH=treematch; host: %s\n' "$(bench_host)"
		in_tools "$TB_BUILD/bench-treematch" -r "${BENCH_REPEATS:-5}" \
			"$ROOT/build/bench/curie/topology.json"
	} | sed "s|$ROOT/||" | tee "$file"
	info "written to ${file#"$ROOT"/}"
}

bench_up() {
	local c file
	file=$(bench_file up)
	{
		printf '# make up: seconds from containers started to all nodes idle, memory of the stack\n'
		printf '# host: %s\n' "$(bench_host)"
		printf '# ready_s = compose_s (containers created and started) + nodes_s (front ends\n'
		printf '# registering until every node is idle) + the policy check; load: 1-min average\n'
		printf '%-8s %7s %10s %10s %8s %9s %7s %11s %6s\n' cluster nodes frontends emulators \
			ready_s compose_s nodes_s memory_mib load
	} | tee "$file"
	for c in ${BENCH_CLUSTERS:-curie theta cori}; do
		cmd_down >/dev/null
		FRONTENDS=${FRONTENDS:-} cmd_up "$c" >/dev/null
		(
			# shellcheck source=/dev/null
			. "$STATE_DIR/last-up.env"
			# shellcheck disable=SC2153 # set by last-up.env
			printf '%-8s %7s %10s %10s %8s %9s %7s %11s %6s\n' "$CLUSTER" "$NODES" \
				"$FRONTENDS" "$EMULATORS" "$READY_S" "${COMPOSE_S:-?}" "${NODES_S:-?}" \
				"$MEMORY_MIB" "$(cut -d' ' -f1 /proc/loadavg)"
		) | tee -a "$file"
	done
	cmd_down >/dev/null
	info "written to ${file#"$ROOT"/}"
}

# Decision time inside slurmctld, each policy next to Slurm's own tree on the
# same requests: a machine about half busy (filled to 3/4 with long jobs,
# then a random part cancelled, so the free nodes are scattered), then
# sbatch --test-only probes, which run the selection without changing the
# state. Once under policy default, then once under each other policy.
bench_decision() {
	local file ctl cluster=${BENCH_CLUSTER:-cori} nodes p
	local probes=${BENCH_PROBES:-200}
	file=$(bench_file decision)
	cmd_down >/dev/null
	info "bench decision: $cluster up with commtree_timing"
	COMMTREE_TIMING=1 POLICY=default cmd_up "$cluster" >/dev/null
	ctl=$(ctld_container)
	nodes=$(cluster_var "$cluster" NODES)
	docker exec -i "$ctl" bash -c 'cat > /tmp/bench-fill.sh && chmod 755 /tmp/bench-fill.sh' \
		<<<$'#!/bin/bash\nexec sleep 360000'
	in_tools python3 "$ROOT/bench/decision.py" fill "$nodes" 1 |
		docker exec -i "$ctl" tb-submit /tmp/bench-fill.sh >/dev/null
	wait_jobs_started "$ctl"
	docker exec "$ctl" squeue -h -o '%i %D' |
		in_tools python3 "$ROOT/bench/decision.py" cancel 1 |
		docker exec -i "$ctl" xargs -r scancel
	in_tools python3 "$ROOT/bench/decision.py" probes "$nodes" "$probes" 2 \
		>"$STATE_DIR/bench-probes"
	# Under default, then under each of the ICPP-W paper's own policies:
	# the registry's icpp family with readings (not its baseline).
	local others
	others=$(policy_registry | awk -F'\t' '$2 == "icpp" && $3 ~ /(^|,)options(,|$)/ {print $1}')
	for p in default $others; do
		info "bench decision: $probes probes under $p"
		[ "$p" = default ] || COMMTREE_TIMING=1 POLICY=$p cmd_up "$cluster" >/dev/null
		docker exec -i "$(ctld_container)" bash -c \
			'while read -r n; do sbatch --test-only -N "$n" --comment=1:2 --wrap=true >/dev/null 2>&1; done' \
			<"$STATE_DIR/bench-probes"
	done
	{
		printf '# make bench BENCH=decision: %s (%s nodes), about half busy; host %s cores; %s\n' \
			"$cluster" "$nodes" "$(nproc)" "$(date -u +%FT%TZ)"
		docker logs "$(ctld_container)" 2>&1 | in_tools python3 "$ROOT/bench/decision.py" summary
	} | tee "$file"
	docker exec "$(ctld_container)" scancel -u root >/dev/null 2>&1 || true
	info "written to ${file#"$ROOT"/}"
}

# BENCH=submit (issue 30 point 1; docs/benchmarks.md#submissions-benchsubmit):
# submissions per second through the replay's own submitters
# (workloads/replay/slurm_io.py's SubmitterPool: SUBMITTERS long-lived
# tb-submit processes in the controller container, one job per round trip
# each), BENCH_JOBS (1000) one-node jobs per pass, under one policy of
# each family of the registry (its first; BENCH_POLICIES=<names>, or
# POLICY=<name> as before, to choose), each policy in two passes:
#   later    the jobs begin BENCH_AHEAD (600) s later, as a replay submits
#            them; the pass stops submitting at 80 % of that
#   at once  the jobs are eligible at once: no begin time, no hold, no
#            dependency. BENCH_AT_ONCE=busy (the default): one job holding
#            every node runs first (BENCH_FILLER_MIN, 0: no time limit), so
#            that they pend as on a full machine: each is tested at its
#            submission, the main scheduler tries the first in every pass
#            (and leaves the partition there, nodes busy), backfill looks
#            at each (with a filler limit inside its window, it plans each
#            behind the filler: a will-run test per job per cycle), and
#            none launches. BENCH_AT_ONCE=start: they start and run at
#            once on the idle machine, the issue's first form (1,000
#            launches took a 2-core host to load 757).
# Once per machine, a client pass: the submitters against an echo loop in
# the controller container in place of tb-submit (no Slurm): the client
# side's own ceiling. Policies with the registry's torus trait (TOFA's,
# which refuse a tree) run on BENCH_TORUS_CLUSTER (torus64, the smallest
# torus), the others on BENCH_CLUSTER (curie); a machine starts once and
# the policy is switched on it as make replay switches it (make up of the
# running cluster: configuration generated again, slurmctld reconfigured).
# BENCH_SUBMITTERS (the replay's SUBMITTERS, 4) submitters; the files go
# to BENCH_OUT (bench/out). Each pass's
# ctld_ms: slurmctld's mean time in a submission RPC (sdiag, reset before
# the pass; each pass's whole sdiag is kept beside the table); lock_ms:
# its mean time inside the job write lock (the usec= of its log line for
# each of the pass's jobs, from docker logs).
bench_submit() {
	local file rows plan=() line policy family place machine up=""
	local jobs=${BENCH_JOBS:-1000} ahead=${BENCH_AHEAD:-600} at_once=${BENCH_AT_ONCE:-busy}
	local subs=() ctl
	case $at_once in
	busy | start) ;;
	*) die "BENCH_AT_ONCE=$at_once: expected busy (the default) or start" ;;
	esac
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "BENCH_JOBS=$jobs: expected a positive whole number"
	[[ $ahead =~ ^[1-9][0-9]*$ ]] || die "BENCH_AHEAD=$ahead: expected a positive whole number of seconds"
	[[ ${BENCH_FILLER_MIN:-0} =~ ^[0-9]+$ ]] || die "BENCH_FILLER_MIN=$BENCH_FILLER_MIN: expected a whole number of minutes (0: no limit)"
	if [ -n "${BENCH_SUBMITTERS:-}" ]; then
		[[ $BENCH_SUBMITTERS =~ ^[1-9][0-9]*$ ]] || die "BENCH_SUBMITTERS=$BENCH_SUBMITTERS: expected a positive whole number"
		subs=(--submitters "$BENCH_SUBMITTERS")
	fi
	# The policies from the registry (no list here: tests/config.bats).
	line=$(policy_registry |
		in_tools python3 "$ROOT/bench/submit.py" plan --only "${BENCH_POLICIES:-${POLICY:-}}") || exit 1
	[ -n "$line" ] || die "bench submit: no policy to measure"
	mapfile -t plan <<<"$line"
	file=$(bench_file submit "${BENCH_OUT:-$ROOT/bench/out}")
	# Each pass's sdiag beside the table: <policy>-<later|at-once>.txt.
	local sdiag=${file%.txt}.sdiag
	mkdir -p "$sdiag"
	rows=$(mktemp)
	local how="started, each sleeping 60 s"
	[ "$at_once" = start ] || how="pending behind one job on every node (its limit: ${BENCH_FILLER_MIN:-0} min, 0 none)"
	{
		printf '# make bench BENCH=submit: %s jobs a pass, %s submitters; at once: %s\n' \
			"$jobs" "${BENCH_SUBMITTERS:-$(in_tools python3 -c 'from workloads.replay import slurm_io; print(slurm_io.SUBMITTERS)' </dev/null)}" "$how"
		printf '# host: %s; load %s\n' "$(bench_host)" "$(cut -d' ' -f1-3 /proc/loadavg)"
	} | tee "$file"
	cmd_down >/dev/null
	for line in "${plan[@]}"; do
		IFS=$'\t' read -r policy family place <<<"$line"
		machine=${BENCH_CLUSTER:-curie}
		[ "$place" = tree ] || machine=${BENCH_TORUS_CLUSTER:-torus64}
		if [ "$machine" != "$up" ]; then
			[ -z "$up" ] || cmd_down >/dev/null
			info "bench submit: $machine up under $policy"
			POLICY=$policy cmd_up "$machine" >/dev/null
			up=$machine
			ctl=$(ctld_container)
			docker exec -i "$ctl" bash -c 'cat > /tmp/bench-job.sh && chmod 755 /tmp/bench-job.sh' \
				<<<$'#!/bin/bash\nexec sleep "$1"'
			info "bench submit: $machine, the client side alone"
			in_tools python3 "$ROOT/bench/submit.py" client "$ctl" "$jobs" --machine "$machine" \
				"${subs[@]}" </dev/null | tee -a "$rows"
		else
			# As make replay switches the policy (scripts/lib/replay.bash).
			info "bench submit: $machine switched to $policy"
			FRONTENDS=$(cluster_var "$machine" FRONTENDS) EMULATORS=$(cluster_var "$machine" EMULATORS) \
				POLICY=$policy cmd_up "$machine" >/dev/null
		fi
		ctl=$(ctld_container)
		bench_submit_pass "$ctl" "$jobs" "$ahead" "$policy" "$family" "$machine" "$sdiag" "${subs[@]}" |
			tee -a "$rows"
		bench_submit_clear "$ctl" "$jobs"
		[ "$at_once" = start ] || bench_fill "$ctl" "$machine"
		bench_submit_pass "$ctl" "$jobs" 0 "$policy" "$family" "$machine" "$sdiag" "${subs[@]}" |
			tee -a "$rows"
		bench_submit_clear "$ctl" "$jobs"
	done
	{
		printf '# load at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
		in_tools python3 "$ROOT/bench/submit.py" table <"$rows"
	} | tee -a "$file"
	rm -f "$rows"
	info "written to ${file#"$ROOT"/} (sdiag of each pass in ${sdiag#"$ROOT"/}/); $up is still up under the last policy"
}

# One pass of bench_submit: its row (bench/submit.py run), its sdiag in
# the directory $7.
bench_submit_pass() {
	local ctl=$1 jobs=$2 ahead=$3 policy=$4 family=$5 machine=$6 sdiag=$7
	shift 7
	local when="eligible at once"
	[ "$ahead" -eq 0 ] || when="beginning $ahead s later"
	local tag=at-once
	[ "$ahead" -eq 0 ] || tag=later
	info "bench submit: $policy, $jobs jobs $when" >&2
	in_tools python3 "$ROOT/bench/submit.py" run "$ctl" "$jobs" /tmp/bench-job.sh "$ahead" \
		--policy "$policy" --family "$family" --machine "$machine" \
		--sdiag-out "$sdiag/$policy-$tag.txt" "$@" </dev/null
}

# The job that keeps the at-once pass's jobs pending (BENCH_AT_ONCE=busy):
# every node of the machine, its limit BENCH_FILLER_MIN minutes (0: none,
# the partition's INFINITE); it sleeps. Waits up to 300 s until it runs
# (its start records every policy's decision for the whole machine).
bench_fill() {
	local ctl=$1 nodes id state t0=$SECONDS limit=()
	nodes=$(cluster_var "$2" NODES)
	[ "${BENCH_FILLER_MIN:-0}" = 0 ] || limit=(--time="$BENCH_FILLER_MIN")
	info "bench submit: one job on all $nodes nodes" >&2
	id=$(docker exec "$ctl" sbatch --parsable -N "$nodes" -J bench-submit-filler -o /dev/null \
		"${limit[@]}" --wrap 'exec sleep 3600000') || die "bench submit: the job on every node was refused"
	id=${id%%;*}
	until state=$(docker exec "$ctl" squeue -h -j "$id" -o %T 2>/dev/null) && [ "$state" = RUNNING ]; do
		[ $((SECONDS - t0)) -lt 300 ] ||
			die "bench submit: the job on every node ($id) is ${state:-not in the queue} after 300 s"
		sleep 1
	done
}

# Cancels every job and waits for the queue to empty: the pending ones
# first, so that none starts on the nodes the filler leaves.
bench_submit_clear() {
	local ctl=$1 jobs=$2
	docker exec "$ctl" scancel -u root -t PENDING >/dev/null 2>&1 || true
	wait_queue_empty "$ctl" "$jobs" PENDING
	docker exec "$ctl" scancel -u root >/dev/null 2>&1 || true
	wait_queue_empty "$ctl" "$jobs"
}

# Waits until the controller's queue is empty (of jobs in state $3 if
# given), saying every 10 s how many jobs are left: 120 s, and half a
# second more for each of the $2 jobs (1,000 jobs: 620 s; running ones end
# through their front ends). A controller that does not answer is not an
# empty queue.
wait_queue_empty() {
	local ctl=$1 jobs=${2:-0} limit t0=$SECONDS said=$SECONDS left ids
	local states=(${3:+-t "$3"})
	limit=$((120 + jobs / 2))
	while :; do
		if ids=$(docker exec "$ctl" squeue -h "${states[@]}" -o %i 2>/dev/null); then
			left=$(grep -c . <<<"$ids" || true)
			[ "$left" -eq 0 ] && return 0
		else
			left="?"
		fi
		[ $((SECONDS - t0)) -lt "$limit" ] ||
			die "bench: $left ${3:+$3 }jobs still in the queue after $limit s"
		if [ $((SECONDS - said)) -ge 10 ]; then
			info "bench: $left jobs left in the queue ($((SECONDS - t0)) of $limit s)" >&2
			said=$SECONDS
		fi
		sleep 1
	done
}

# Waits until no job is pending (the fill jobs of bench_decision).
wait_jobs_started() {
	local ctl=$1 pending
	for _ in $(seq 120); do
		pending=$(docker exec "$ctl" squeue -h -t PD -o %i | wc -l)
		[ "$pending" -eq 0 ] && return 0
		sleep 1
	done
	die "bench: $pending fill jobs still pending after 120 s"
}
