# Replays and their results (scripts/testbed): make replay's arguments
# checked before anything changes on the cluster, then replay.py; make
# report and make compare on the runs in RESULTS_DIR.

# Replays a log on the running cluster under POLICY (switched first).
# Every setting is declared, defaulted and checked once, by the replay
# itself (workloads/params.tsv, workloads/replay/cli.py): its --check runs
# first, so that a bad value changes nothing on the cluster.
cmd_replay() {
	require_docker
	local name args=() var flag
	# The make variables the replay takes, as its options (params.tsv).
	while IFS=$'\t' read -r var flag; do
		case $var in
		LOG | RESUME) ;;
		*) [ -z "${!var:-}" ] || args+=("$flag" "${!var}") ;;
		esac
	done < <(awk -F'\t' '!/^#/ && NF == 8 && $6 != "-" {print $1 "\t" $6}' "$ROOT/workloads/params.tsv")
	if [ -n "${RESUME:-}" ]; then
		run_arg RESUME "$RESUME"
		args+=(--resume "$RUN_ID")
	elif [ -n "${LOG:-}" ]; then
		local log=$LOG
		# A name without a slash is a named log (the replay knows them);
		# anything else is a file on the host.
		if [[ $log == */* ]] || [ -e "$log" ]; then
			need_file LOG "$log"
			log=$USER_FILE
		fi
		args+=(--log "$log")
	fi
	args+=(--root "$ROOT" --workloads-dir "$WORKLOADS_DIR" --results "$RESULTS_DIR")
	# Before switching the policy: a bad RESULTS_DIR must change nothing.
	mkdir -p "$RESULTS_DIR" 2>/dev/null || die "RESULTS_DIR=$RESULTS_DIR: cannot create the directory"
	# The policy, clock and rate the run will take (a RESUME's from its
	# manifest), every setting checked.
	local resolved policy clock rate jobcomp bf_window
	build_tools registry
	resolved=$(in_tools python3 -m workloads.replay --check "${args[@]}") || exit 1
	name=$(current_cluster)
	if [ -z "$name" ] || [ -z "$(running_containers)" ]; then
		die "no cluster is up; run 'make up CLUSTER=<name>' first (valid: $(cluster_names))"
	fi
	policy=$(sed -n 's/^policy=//p' <<<"$resolved")
	clock=$(sed -n 's/^clock=//p' <<<"$resolved")
	rate=$(sed -n 's/^rate=//p' <<<"$resolved")
	# The end guard's record of each job's end (empty: the guard is off).
	jobcomp=$(sed -n 's/^jobcomp=//p' <<<"$resolved")
	# Backfill's window (BF_WINDOW; empty: Slurm's default), a RESUME's
	# as it began.
	bf_window=$(sed -n 's/^bf_window=//p' <<<"$resolved")
	# The clock page is a file the manager's processes map: emulators on
	# other hosts run on their own wall time (docs/swarm.md).
	if [ "$clock" = virtual ] && swarm_multihost; then
		die "CLOCK=virtual needs one host: this Swarm stack spans $(swarm_var NODES) nodes and the clock page is a file on the manager; use CLOCK=wall or a single-node stack"
	fi
	# Another run's jobs would run inside this run's measurement (and a
	# policy switch restarts slurmctld, which ends them as TIMEOUT).
	local others
	others=$(ctld_exec squeue -h -o '%j' 2>/dev/null |
		awk -v r="${RUN_ID:-}" 'r == "" || index($0, r ":") != 1' | wc -l)
	if [ "$others" -gt 0 ] && [ "${ALLOW_BUSY:-0}" != 1 ]; then
		die "the cluster has $others jobs that are not this run's (make exec CMD=squeue); cancel them (make exec CMD='scancel -u root') or set ALLOW_BUSY=1"
	fi
	# The switch keeps what make up chose (front ends, containers); CLOCK=
	# virtual runs every Slurm process on the clock at the run's rate,
	# Slurm's timeouts scaled to match (docs/vclock.md).
	local out
	out=$(FRONTENDS=${FRONTENDS:-$(cluster_var "$name" FRONTENDS)} \
		EMULATORS=${EMULATORS:-$(cluster_var "$name" EMULATORS)} \
		POLICY=$policy CLOCK_RATE=$rate JOBCOMP_LOC=$jobcomp BF_WINDOW=$bf_window \
		cmd_up "$name") || exit 1
	grep -F 'warning:' <<<"$out" || true
	args+=(--policy "$policy" --clock "$clock")
	# INDIVIDUAL places its occupying jobs with the library's tb-alloc.
	[ -n "${INDIVIDUAL:-}" ] && build_tools
	in_tools python3 -m workloads.replay "${args[@]}"
}

# Metrics, tables and plots of one replay. APH is measured on the run's
# own topology.json (replay.py keeps a copy); runs made before that get
# their cluster's topology generated again, and the report says so.
cmd_report() {
	local id=${1:-} dir cluster topo
	[ -n "$id" ] || die "RUN is not set; runs: $(list_runs)"
	run_arg RUN "$id"
	id=$RUN_ID
	dir=$RESULTS_DIR/$id
	[ -f "$dir/manifest.json" ] || die "RUN=$id: no such run; runs: $(list_runs)"
	topo=$dir/topology.json
	# The tools, and the registry generate.py and report.py read.
	build_tools
	if [ ! -f "$topo" ]; then
		cluster=$(in_tools jq -r '.cluster // empty' "$dir/manifest.json")
		[ -n "$cluster" ] || die "RUN=$id: manifest.json names no cluster"
		info "report: $id has no topology.json (made before runs kept theirs): APH on $cluster's topology as generated now"
		# The report's own copy: regenerating the running cluster's
		# directory would change its live configuration.
		in_tools python3 "$ROOT/emulated-clusters/generate.py" "$cluster" "$ROOT/build/report/$cluster" \
			--topologies-dir "$TOPOLOGIES_DIR" >/dev/null
		topo=$ROOT/build/report/$cluster/topology.json
	fi
	in_tools python3 -m metrics.report report "$dir" \
		--aph-tool "$TB_BUILD/tb-aph" --topology "$topo" \
		--isolation-tool "$TB_BUILD/tb-isolation"
}

# One table of several replays of one experiment, against the default run:
# runs differing in anything but the policy (or, under one policy, SPEEDUP)
# are refused unless FORCE=1.
cmd_compare() {
	local run_ids=${1:-} id dirs=() out force=()
	[ -n "$run_ids" ] || die "RUNS is not set; example: make compare RUNS=\"<id> <id>\"; runs: $(list_runs)"
	case "${FORCE:-}" in
	'' | 0) ;;
	1) force=(--force) ;;
	*) die "FORCE=$FORCE: expected 1 (compare runs that differ, with a warning) or nothing" ;;
	esac
	for id in $run_ids; do
		[ -f "$RESULTS_DIR/$id/manifest.json" ] || die "RUNS: no run '$id'; runs: $(list_runs)"
		[ -f "$RESULTS_DIR/$id/metrics.json" ] || cmd_report "$id" >/dev/null
		dirs+=("$RESULTS_DIR/$id")
	done
	out=$RESULTS_DIR/compare-$(date -u +%Y%m%dT%H%M%SZ)
	build_tools registry
	in_tools python3 -m metrics.report compare "${dirs[@]}" --out "$out" "${force[@]}"
}

list_runs() {
	local d runs=()
	for d in "$RESULTS_DIR"/*/manifest.json; do
		[ -f "$d" ] && runs+=("$(basename "$(dirname "$d")")")
	done
	[ "${#runs[@]}" -gt 0 ] || { echo "none yet"; return; }
	echo "${runs[@]: -10}"
}
