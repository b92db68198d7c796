# Replays and their results (scripts/testbed): make replay's arguments
# checked before anything changes on the cluster, then replay.py; make
# report and make compare on the runs in RESULTS_DIR.

# Replays a log on the running cluster under POLICY (switched first).
cmd_replay() {
	# Before anything else: a bad value changes nothing.
	case ${AUTO_RECOVER:-} in
	'' | 0 | 1) ;;
	*) die "AUTO_RECOVER=$AUTO_RECOVER: expected 1 (restart a service that dies during the replay) or 0 (pause submissions until it is back)" ;;
	esac
	case ${RERUN_FAULTED:-} in
	'' | 0) ;;
	1) [ -n "${RESUME:-}" ] || die "RERUN_FAULTED=1 needs RESUME=<run-id>: the run whose jobs a fault hit" ;;
	*) die "RERUN_FAULTED=$RERUN_FAULTED: expected 1 (with RESUME=<run-id>: run the jobs a fault hit again) or 0" ;;
	esac
	require_docker
	local name policy args=() clock=${CLOCK:-virtual} rate=1
	name=$(current_cluster)
	if [ -z "$name" ] || [ -z "$(running_containers)" ]; then
		die "no cluster is up; run 'make up CLUSTER=<name>' first (valid: $(cluster_names))"
	fi
	if [ -n "${RESUME:-}" ]; then
		run_arg RESUME "$RESUME"
		[ -f "$RESULTS_DIR/$RUN_ID/manifest.json" ] ||
			die "RESUME=$RESUME: no such run; runs: $(list_runs)"
		policy=$(sed -n 's/^ *"policy": "\(.*\)",$/\1/p' "$RESULTS_DIR/$RUN_ID/manifest.json" 2>/dev/null)
		# Before switching the policy: another cluster is another experiment.
		local run_cluster
		run_cluster=$(sed -n 's/^ *"cluster": "\(.*\)",$/\1/p' "$RESULTS_DIR/$RUN_ID/manifest.json")
		[ "$run_cluster" = "$name" ] ||
			die "RESUME=$RESUME ran on cluster '$run_cluster', but '$name' is up; make down, then make up CLUSTER=$run_cluster"
		args+=(--resume "$RUN_ID")
		clock=$(sed -n 's/^ *"clock": "\(.*\)",$/\1/p' "$RESULTS_DIR/$RUN_ID/manifest.json")
		rate=$(sed -n 's/^ *"clock_rate": \([0-9.e+]*\),$/\1/p' "$RESULTS_DIR/$RUN_ID/manifest.json")
		clock=${clock:-scaled}
	else
		policy=${POLICY:-default}
		local log=${LOG:-}
		# A name without a slash is a named log (replay.py knows them);
		# anything else is a file on the host.
		if [[ $log == */* ]] || [ -e "$log" ]; then
			need_file LOG "$log"
			log=$USER_FILE
		fi
		args+=(--log "$log")
	fi
	# CLOCK=virtual: every Slurm process on the cluster's virtual clock at
	# rate SPEEDUP, Slurm's timeouts scaled to match (docs/vclock.md).
	case $clock in
	scaled) rate=1 ;;
	virtual)
		[ -n "${RESUME:-}" ] || rate=${SPEEDUP:-1000}
		if ! [[ $rate =~ ^[0-9]+([.][0-9]+)?$ ]] ||
			! awk -v r="$rate" 'BEGIN { exit !(r > 0 && r <= 1e6) }'; then
			die "SPEEDUP=$rate: expected the virtual clock's rate, a number above 0 and at most 1000000"
		fi
		;;
	*) die "CLOCK=$clock: expected scaled (divide the log's times by SPEEDUP) or virtual (run Slurm's clock SPEEDUP times faster)" ;;
	esac
	# The registry's names (plugins/lib/policy_registry.def).
	local names
	names=$(policy_registry | cut -f1)
	grep -qxF -- "$policy" <<<"$names" ||
		die "unknown POLICY '$policy'; valid: $(paste -sd' ' <<<"$names")"
	# Before switching the policy: a bad RESULTS_DIR must change nothing.
	mkdir -p "$RESULTS_DIR" 2>/dev/null || die "RESULTS_DIR=$RESULTS_DIR: cannot create the directory"
	# Another run's jobs would run inside this run's measurement (and a
	# policy switch restarts slurmctld, which ends them as TIMEOUT).
	local others
	others=$(ctld_exec squeue -h -o '%j' 2>/dev/null |
		awk -v r="${RUN_ID:-}" 'r == "" || index($0, r ":") != 1' | wc -l)
	if [ "$others" -gt 0 ] && [ "${ALLOW_BUSY:-0}" != 1 ]; then
		die "the cluster has $others jobs that are not this run's (make exec CMD=squeue); cancel them (make exec CMD='scancel -u root') or set ALLOW_BUSY=1"
	fi
	# The switch keeps what make up chose (front ends, containers).
	local out
	out=$(FRONTENDS=${FRONTENDS:-$(cluster_var "$name" FRONTENDS)} \
		EMULATORS=${EMULATORS:-$(cluster_var "$name" EMULATORS)} \
		POLICY=$policy CLOCK_RATE=$rate cmd_up "$name") || exit 1
	grep -F 'warning:' <<<"$out" || true
	args+=(--policy "$policy" --root "$ROOT" --workloads-dir "$WORKLOADS_DIR"
		--results "$RESULTS_DIR" --clock "$clock")
	# The virtual clock's default rate (1000) is not the scaled default (100).
	[ "$clock" = virtual ] && [ -z "${RESUME:-}" ] && args+=(--speedup "$rate")
	local var flag
	for var in SPEEDUP JOBS FIRST SEED COMM PATTERN RATIO SPARSITY GRANULARITY SCALE RUNTIME_FACTOR PREFILL INDIVIDUAL OCCUPY LEAD LIMIT_GRID AUTO_RECOVER RERUN_FAULTED TA_SPEEDUP IDLE_JUMPS LAUNCH_GUARD; do
		flag=--$(tr '[:upper:]_' '[:lower:]-' <<<"$var")
		[ -n "${!var:-}" ] && args+=("$flag" "${!var}")
	done
	[ "${STRICT:-0}" = 1 ] && args+=(--strict)
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
		cluster=$(sed -n 's/^ *"cluster": "\(.*\)",$/\1/p' "$dir/manifest.json")
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
