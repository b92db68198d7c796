# What a cluster is made from before it starts (scripts/testbed): its
# name checked against emulated-clusters/, its generated configuration
# (make config), its clock page and its secrets.

cluster_names() {
	local f names=()
	for f in "$ROOT"/emulated-clusters/*.cluster; do
		f=${f##*/}
		names+=("${f%.cluster}")
	done
	echo "${names[*]}"
}

require_cluster() {
	local name=${1:-}
	[ -n "$name" ] || die "CLUSTER is not set; valid: $(cluster_names)"
	[ -f "$ROOT/emulated-clusters/$name.cluster" ] ||
		die "unknown CLUSTER '$name'; valid: $(cluster_names)"
}

# Builds the policy library's targets (default: tools) into TB_BUILD.
build_tools() {
	in_tools make -s -C "$ROOT/plugins" BUILD="$TB_BUILD" "${@:-tools}"
}

# The policy registry (plugins/lib/policy_registry.def) as the build wrote
# it, with the tools: one line per policy, tab-separated: name, family,
# traits, paper.
policy_registry() {
	build_tools >&2 || die "building the policy library's tools and registry failed (make -C plugins tools)"
	cat "$TB_BUILD/policies.tsv"
}

# make policies: the registry, in columns.
cmd_policies() {
	policy_registry | awk -F'\t' '{printf "%-12s %-10s %-13s %s\n", $1, $2, $3, $4}'
}

# Another project (TESTBED_PROJECT) than the clone's own keeps its own
# generated configuration, so that testbeds of one cluster under different
# policies (make experiment) do not share one slurm.conf.
# workloads/replay/cluster.py follows the same rule.
cluster_dir() {
	if [ "$PROJECT" = "$CLONE_PROJECT" ]; then
		echo "$ROOT/build/clusters/$1"
	else
		echo "$ROOT/build/projects/$PROJECT/clusters/$1"
	fi
}

cmd_config() {
	local name=${1:-} policy=${POLICY:-default}
	require_cluster "$name"
	local args=("$name" "$(cluster_dir "$name")" --policy "$policy"
		--topologies-dir "$TOPOLOGIES_DIR")
	[ -n "${FRONTENDS:-}" ] && args+=(--frontends "$FRONTENDS")
	[ -n "${EMULATORS:-}" ] && args+=(--emulators "$EMULATORS")
	[ -n "${COMMTREE_TIMING:-}" ] && args+=(--timing)
	[ -n "${OPTIONS:-}" ] && args+=(--options "$OPTIONS")
	# Slurm's timeouts are scaled for the clock's rate (docs/vclock.md);
	# CLOCK_RATE is set by a replay with CLOCK=virtual, 1 otherwise.
	args+=(--clock-rate "${CLOCK_RATE:-1}")
	# JOBCOMP_LOC is set by a replay whose end guard is on
	# (workloads/endguard.py): slurmctld's record of each job's end.
	[ -z "${JOBCOMP_LOC:-}" ] || args+=(--jobcomp-loc "$JOBCOMP_LOC")
	# BF_WINDOW (params.tsv): backfill's bf_window in minutes; unset, none
	# is written (Slurm's default, 1440). make replay sets it from the run
	# (a RESUME's from its manifest); a change of it changes slurm.conf,
	# so make up reconfigures a running controller (needs_reconfigure).
	[ -z "${BF_WINDOW:-}" ] || args+=(--bf-window "$BF_WINDOW")
	# SCHED_EXTRA (params.tsv): SchedulerParameters words appended, for a
	# measurement (workloads/sched_extra.py); unset, the line is unchanged.
	[ -z "${SCHED_EXTRA:-}" ] || args+=(--sched-extra "$SCHED_EXTRA")
	# CTLD_EXTRA (params.tsv): a SlurmctldParameters line, the same way.
	[ -z "${CTLD_EXTRA:-}" ] || args+=(--ctld-extra "$CTLD_EXTRA")
	# generate.py checks POLICY against the registry.
	build_tools registry
	in_tools python3 "$ROOT/emulated-clusters/generate.py" "${args[@]}"
	# SWARM=1: the stack file too (make up SWARM=1 makes it again as it
	# deploys), for this swarm or the nodes TESTBED_SWARM_NODES names.
	if [ "${SWARM:-}" = 1 ]; then
		[ -n "${TESTBED_SWARM_NODES:-}" ] || require_swarm
		local n reg=""
		n=$(swarm_nodes | wc -l)
		[ "${SWARM_REGISTRY:-$([ "$n" -gt 1 ] && echo 1)}" != 1 ] || reg=127.0.0.1:${SWARM_REGISTRY_PORT:-5000}
		stack_file "$name" "$reg" >/dev/null
		info "config: the Swarm stack file for $n node(s): $(cluster_dir "$name")/stack.json"
	fi
}

# The cluster's clock page (docs/vclock.md), VCLOCK_DIR/clock, mounted into
# every Slurm container: made once per project, before any Slurm process
# starts (one started without it keeps wall time for its whole life), and
# never re-anchored, so the cluster's time never goes backwards (after a
# virtual replay it stays ahead of wall time, as its database does). A
# cluster that is not running starts at rate 1: a replay killed at rate R
# leaves the page at R.
vclock_tool() {
	docker run --rm --entrypoint tb-vclock -v "$STATE_DIR/vclock:/run/testbed-vclock" \
		"testbed-slurm:$TAG" "$@"
}

ensure_vclock() {
	mkdir -p "$STATE_DIR/vclock"
	local page=/run/testbed-vclock/clock out
	if ! vclock_tool now "$page" >/dev/null 2>&1; then
		out=$(vclock_tool init "$page" --rate 1 --force 2>&1) ||
			die "cannot make the cluster's clock in $STATE_DIR/vclock: $out"
	elif [ -z "$(running_containers)" ]; then
		out=$(vclock_tool set-rate "$page" 1 2>&1) ||
			die "cannot set the cluster's clock to rate 1: $out"
	fi
}

# Secrets live in .state/ (git-ignored), made once, never in an image.
ensure_secrets() {
	mkdir -p "$STATE_DIR"
	chmod 700 "$STATE_DIR"
	if [ ! -s "$STATE_DIR/munge.key" ]; then
		(umask 077 && head -c 1024 /dev/urandom >"$STATE_DIR/munge.key.tmp" &&
			mv "$STATE_DIR/munge.key.tmp" "$STATE_DIR/munge.key")
	fi
	if [ ! -s "$STATE_DIR/db.password" ]; then
		(umask 077 && od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"$STATE_DIR/db.password.tmp" &&
			mv "$STATE_DIR/db.password.tmp" "$STATE_DIR/db.password")
	fi
	# The containers read the secrets as root; on a laptop the files are the
	# user's, so they must be readable through the bind mount.
	chmod 644 "$STATE_DIR/munge.key" "$STATE_DIR/db.password"
}
