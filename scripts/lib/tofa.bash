# TOFA's faults (scripts/testbed tofa-faults): batches of one application
# on the running torus under POLICY, its nodes failing as the paper's
# evaluation has them (workloads/tofa_faults.py, docs/policies.md). An
# experiment of kind tofa-resilience runs it in place of the replay
# (RUNNER=tofa-faults in its runs). Without TOFA_F or a line for the
# graph in experiments/graphs/tofa-f.tsv every instance runs TOFA_T0.

cmd_tofa_faults() {
	require_docker
	local name graph procs rate out f
	name=$(current_cluster)
	if [ -z "$name" ] || [ -z "$(running_containers)" ]; then
		die "no cluster is up; run 'make up CLUSTER=torus512' first"
	fi
	[ -n "${TOFA_APP:-}" ] || die "TOFA_APP is not set: the application, e.g. npb-dt-c-85 (experiments/graphs/<app>.matrix)"
	[[ ${TOFA_NF:-} =~ ^[0-9]+$ ]] || die "TOFA_NF=${TOFA_NF:-}: expected the number of risky nodes, e.g. 16"
	need_file TOFA_GRAPH "${TOFA_GRAPH:-$ROOT/experiments/graphs/$TOFA_APP.matrix}"
	graph=$USER_FILE
	procs=$(awk '$1 == "ranks" {print $2; exit}' "$graph")
	[[ $procs =~ ^[1-9][0-9]*$ ]] || die "$graph: no 'ranks <n>' line"
	# The runtime model's share f: TOFA_F, else the graph's fitted one.
	f=${TOFA_F:-$(awk -F'\t' -v g="$TOFA_APP" '!/^#/ && $1 == g {print $2}' \
		"$ROOT/experiments/graphs/tofa-f.tsv" 2>/dev/null)}
	rate=${SPEEDUP:-100}
	# The policy and the clock's rate, Slurm's timeouts scaled to it
	# (as the replay switches them); the front ends as make up chose.
	out=$(FRONTENDS=${FRONTENDS:-$(cluster_var "$name" FRONTENDS)} \
		EMULATORS=${EMULATORS:-$(cluster_var "$name" EMULATORS)} \
		POLICY=${POLICY:-default} CLOCK_RATE=$rate cmd_up "$name") || exit 1
	grep -F 'warning:' <<<"$out" || true
	mkdir -p "$RESULTS_DIR" 2>/dev/null || die "RESULTS_DIR=$RESULTS_DIR: cannot create the directory"
	in_tools python3 -m workloads.tofa_faults run --root "$ROOT" --results "$RESULTS_DIR" \
		--graph "$graph" --app "$TOFA_APP" --procs "$procs" --policy "${POLICY:-default}" \
		--nf "$TOFA_NF" --pf "${TOFA_PF:-0.02}" --batches "${TOFA_BATCHES:-10}" \
		--instances "${TOFA_INSTANCES:-100}" --seed "${SEED:-0}" --t0 "${TOFA_T0:-30}" \
		${f:+--f "$f"} --rate "$rate" --progress \
		${RUN_ID_FILE:+--run-id-file "$RUN_ID_FILE"}
}
