# make simulate (scripts/testbed): a replay's plan on the emulation's twin,
# tb-sim (plugins/sim), in the tools image. No cluster is started: the
# machine's topology is generated as make up would (build/sim/<cluster>/).
# The run directory is a replay's, so make report and make compare work on
# it; its manifest says engine "sim".
cmd_simulate() {
	local args=() var flag
	[ -z "${RUN:-}" ] || {
		simulate_run "$RUN"
		return
	}
	[ -n "${CLUSTER:-}" ] || die "CLUSTER is not set; valid: $(cluster_names)"
	require_cluster "$CLUSTER"
	# The replay's parameters (params.tsv), as make replay passes them.
	while IFS=$'\t' read -r var flag; do
		case $var in
		LOG | RESUME) ;;
		*) [ -z "${!var:-}" ] || args+=("$flag" "${!var}") ;;
		esac
	done < <(awk -F'\t' '!/^#/ && NF == 8 && $6 != "-" {print $1 "\t" $6}' "$ROOT/workloads/params.tsv")
	[ -z "${RESUME:-}" ] || die "RESUME=$RESUME: a simulation is not resumed; run it again (seconds)"
	if [ -n "${LOG:-}" ]; then
		local log=$LOG
		if [[ $log == */* ]] || [ -e "$log" ]; then
			need_file LOG "$log"
			log=$USER_FILE
		fi
		args+=(--log "$log")
	fi
	args+=(--cluster "$CLUSTER" --backfill "${BACKFILL:-slurm}" --root "$ROOT"
		--workloads-dir "$WORKLOADS_DIR" --results "$RESULTS_DIR"
		--topologies-dir "$TOPOLOGIES_DIR")
	[ -z "${OPTIONS:-}" ] || args+=(--options "$OPTIONS")
	[ -z "${SIM_LAG:-}" ] || args+=(--lag "$SIM_LAG")
	[ -z "${SIM_BF_COST:-}" ] || args+=(--bf-cost "$SIM_BF_COST")
	[ -z "${SIM_COSTS:-}" ] || args+=(--costs "$SIM_COSTS")
	mkdir -p "$RESULTS_DIR" 2>/dev/null || die "RESULTS_DIR=$RESULTS_DIR: cannot create the directory"
	build_tools
	in_tools python3 -m workloads.simulate "${args[@]}"
}

# make simulate RUN=<emulation run id or directory>: that run's own plan on
# the twin and the comparison (workloads/sim_validate.py), without running
# the emulation again. Its settings are the run's (its manifest's policy,
# OPTIONS, clock and BF_WINDOW), whatever the environment says: under
# make experiment ENGINE=both the caller's BF_WINDOW is the runs' anyway. The run is read only (its files mounted read-only);
# the twin's run directory goes to RESULTS_DIR.
simulate_run() {
	local given=$1 dir f
	case $given in
	*/*) dir=$(abs_path "${given%/}") ;;
	*) dir=$RESULTS_DIR/$given ;;
	esac
	[ -d "$dir" ] || die "RUN=$given: no such run directory ($dir)"
	for f in manifest.json plan.tsv topology.json metrics.json jobs.csv; do
		[ -f "$dir/$f" ] || die "RUN=$given: no $f in $dir; expected a finished, reported emulation run"
		need_file RUN "$dir/$f"
	done
	# Its backfill's own time is measured from it, when it is there.
	[ ! -f "$dir/sacct.json" ] || need_file RUN "$dir/sacct.json"
	mkdir -p "$RESULTS_DIR" 2>/dev/null || die "RESULTS_DIR=$RESULTS_DIR: cannot create the directory"
	build_tools
	in_tools python3 -m workloads.sim_validate --run-dir "$dir" --root "$ROOT" \
		--results "$RESULTS_DIR" --backfill "${BACKFILL:-slurm}" ${SIM_LAG:+--lag "$SIM_LAG"} \
		${SIM_BF_COST:+--bf-cost "$SIM_BF_COST"}
}
