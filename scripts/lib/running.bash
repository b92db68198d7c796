# The running cluster, as scripts/testbed sees it through Docker Compose:
# which cluster is up, its containers and controller, whether its nodes
# are ready, the memory it takes. The commands build on these.

current_cluster() { cat "$STATE_DIR/cluster" 2>/dev/null || true; }

compose() {
	local name
	name=$(current_cluster)
	[ -n "$name" ] || die "no cluster is up; run 'make up CLUSTER=<name>' (valid: $(cluster_names))"
	compose_for "$name" "$@"
}

compose_for() {
	local name=$1
	shift
	env CLUSTER_DIR="$(cluster_dir "$name")" STATE_DIR="$STATE_DIR" \
		VCLOCK_DIR="$STATE_DIR/vclock" \
		CLUSTER_NAME="$name" docker compose --ansi never -p "$PROJECT" -f "$ROOT/compose/base.yml" \
		-f "$(cluster_dir "$name")/emulators.yml" "$@"
}

# The clone a project's containers were started from (Compose labels each
# container with the files it was given: <clone>/compose/base.yml first),
# or nothing when none is running.
project_clone() {
	local id files
	id=$(docker ps -q --filter "label=com.docker.compose.project=$1" | head -n 1)
	[ -n "$id" ] || return 0
	files=$(docker inspect -f '{{index .Config.Labels "com.docker.compose.project.config_files"}}' "$id" 2>/dev/null) || return 0
	files=${files%%,*}
	echo "${files%/compose/base.yml}"
}

# Which testbed this is: the project, whose it is, and the clone.
whose_project() {
	local whose="this clone's own"
	[ "$PROJECT" = "$CLONE_PROJECT" ] || whose="TESTBED_PROJECT"
	echo "project $PROJECT ($whose), clone $ROOT, images testbed-*:$TAG"
}

# Every testbed's controller on this Docker but this one: project and
# clone, one a line.
other_testbeds() {
	docker ps --filter label=com.docker.compose.service=slurmctld \
		--format '{{.Label "com.docker.compose.project"}} {{.Label "com.docker.compose.project.config_files"}}' |
		awk -v p="$PROJECT" '$1 != p {f = $2; sub(/,.*/, "", f); sub(/\/compose\/base\.yml$/, "", f)
			print "  project " $1 ", clone " f}'
}

# This Docker's containers of the cluster (on a stack of several nodes,
# the manager's: the controller's, the database's and some emulators').
running_containers() {
	if swarm_on; then
		docker ps -q --filter "label=com.docker.stack.namespace=$PROJECT"
	else
		docker ps -q --filter "label=com.docker.compose.project=$PROJECT"
	fi
}

cluster_var() { sed -n "s/^$2=//p" "$(cluster_dir "$1")/cluster.env"; }

ctld_exec() {
	if swarm_on; then
		local id
		id=$(ctld_container)
		[ -n "$id" ] || return 1
		docker exec -i "$id" "$@"
	else
		compose exec -T slurmctld "$@"
	fi
}

# When the controller's container last started, or nothing.
ctld_started() {
	local id
	id=$(ctld_container)
	[ -z "$id" ] || docker inspect -f '{{.State.StartedAt}}' "$id" 2>/dev/null || true
}

ctld_container() {
	if swarm_on; then
		stack_container slurmctld
		return 0
	fi
	docker ps -q --filter "label=com.docker.compose.project=$PROJECT" \
		--filter label=com.docker.compose.service=slurmctld
}

# Nodes that are up and responding, busy or not (a cluster re-applied with
# running jobs is ready too), or nothing while the controller is silent.
up_nodes() {
	ctld_exec sinfo -h -o '%D %t' 2>/dev/null |
		awk '$2 ~ /^(idle|alloc|mix|comp|resv|plnd)$/ {n += $1} END {if (NR) print n + 0}'
}

# Front ends registered with the running controller process (their State
# neither UNKNOWN nor DOWN, without the not-responding '*', and a
# SlurmdStartTime: a restarted slurmctld restores the states but not that
# time, which each front end's registration with it sets), or nothing
# while the controller is silent. In front-end mode the first front end to register
# brings every node up (Slurm's validate_nodes_via_front_end), so nodes
# alone do not say the cluster is ready; a front end that registers later
# completes, with exit code 0, every batch job it was given whose launch
# had not begun ("Killing orphan batch"): the first repetitions of
# nedd-cori-onejob on a fresh cori (docs/results/2026-11-26-nedd.md).
up_frontends() {
	ctld_exec scontrol -o show frontend 2>/dev/null | registered_frontends
}

# scontrol -o show frontend's lines in, the count of registered ones out
# (nothing for no input).
registered_frontends() {
	awk '{
		s = t = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^State=/) s = substr($i, 7)
			if ($i ~ /^SlurmdStartTime=/) t = substr($i, 17)
		}
		if (s != "" && s !~ /^(UNKNOWN|DOWN)/ && s !~ /\*/ && t != "" && t != "Unknown") n++
	} END { if (NR) print n + 0 }'
}

# Names every stopped container with the end of its log, then fails.
check_alive() {
	local dead
	if swarm_on; then
		dead=$(stack_failing)
		[ -z "$dead" ] && return 0
		progress_done
		local svc
		for svc in $dead; do
			printf 'error: %s failed three times during start-up; last lines of its log:\n' "$svc" >&2
			stack_logs --tail 15 "${PROJECT}_$svc" >&2 || true
		done
		exit 1
	fi
	dead=$(compose ps -a --format '{{.Service}} {{.State}}' | awk '$2 != "running" {print $1}')
	[ -z "$dead" ] && return 0
	progress_done
	local svc
	for svc in $dead; do
		printf 'error: %s died during start-up; last lines of its log:\n' "$svc" >&2
		compose logs --no-color --no-log-prefix --tail 15 "$svc" |
			sed 's/\x1b\[[0-9;]*[A-Za-z]//g' >&2 || true
	done
	exit 1
}

wait_ready() {
	local name=$1 nodes up start=$SECONDS fes fe_up
	nodes=$(cluster_var "$name" NODES)
	fes=$(cluster_var "$name" FRONTENDS)
	while :; do
		up=$(up_nodes || true)
		# Every front end too: nodes are all up once one has registered.
		fe_up=$fes
		[ "${up:-0}" -lt "$nodes" ] || [ -z "$fes" ] || fe_up=$(up_frontends || true)
		[ "${up:-0}" -ge "$nodes" ] && [ "${fe_up:-0}" -ge "${fes:-0}" ] && break
		check_alive
		[ $((SECONDS - start)) -lt "$READY_TIMEOUT" ] ||
			die "$((SECONDS - start)) s and only ${up:-0}/$nodes nodes are up and ${fe_up:-0}/$fes front ends registered; see 'make logs'"
		if [ "${up:-0}" -ge "$nodes" ]; then
			progress "  waiting for front ends: ${fe_up:-0}/$fes registered ($((SECONDS - start)) s)"
		else
			progress "  waiting for nodes: ${up:-0}/$nodes up ($((SECONDS - start)) s)"
		fi
		sleep 1
	done
	progress_done
}

memory_in_use() {
	# Sum of the containers' memory, in MiB, or "unknown": a container that
	# goes away between `docker ps` and `docker stats` must not fail a start
	# that succeeded.
	local ids usage
	mapfile -t ids < <(running_containers || true)
	if [ "${#ids[@]}" -eq 0 ] ||
		! usage=$(docker stats --no-stream --format '{{.MemUsage}}' "${ids[@]}" 2>/dev/null) ||
		[ -z "$usage" ]; then
		echo unknown
		return 0
	fi
	awk '{v = $1; u = v; gsub(/[0-9.]/, "", u); sub(/[A-Za-z]+$/, "", v)
	      f = (u == "GiB") ? 1024 : (u == "KiB") ? 1 / 1024 : (u == "B") ? 1 / 1048576 : 1
	      s += v * f} END {printf "%.0f", s}' <<<"$usage"
}
