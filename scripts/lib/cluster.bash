# The cluster's life cycle (scripts/testbed): make up (and the checks that
# the controller runs the configured policy on the generated topology),
# down, clean, status, logs, shell and exec.

cmd_up() {
	local name=${1:-} up
	require_cluster "$name"
	require_docker
	up=$(current_cluster)
	# A project (TESTBED_PROJECT) another clone runs is that clone's:
	# its jobs and controller state are not this one's to take over.
	local owner
	owner=$(project_clone "$PROJECT")
	if [ -n "$owner" ] && [ "$owner" != "$ROOT" ]; then
		die "project '$PROJECT' is up from another clone ($owner); use another TESTBED_PROJECT, or 'make down' there"
	fi
	stack_or_compose
	if [ -n "$(running_containers)" ] && [ -n "$up" ] && [ "$up" != "$name" ]; then
		die "cluster '$up' is up; run 'make down' first (or 'make up CLUSTER=$up')"
	fi
	ensure_images
	ensure_secrets
	ensure_vclock
	local conf before="" after
	conf=$(cluster_dir "$name")/slurm.conf
	# slurm.conf and topology.json: the plugin reads the JSON only when
	# slurmctld (re)configures.
	[ -f "$conf" ] && before=$(config_sum "$name")
	cmd_config "$name"
	echo "$name" >"$STATE_DIR/cluster"
	local t0=$SECONDS
	info "up: starting $name ($(cluster_var "$name" NODES) nodes," \
		"$(cluster_var "$name" FRONTENDS) front ends in $(cluster_var "$name" EMULATORS) containers)"
	# The controller's start before compose up, and the time from which a
	# load of topology.json proves this configuration (verify_policy).
	local out since started
	started=$(ctld_started)
	since=$(date +%s.%N)
	if [ "$STACK" = 1 ]; then
		stack_up "$name"
	else
		out=$(compose_for "$name" up -d --remove-orphans 2>&1) ||
			die "docker compose up failed: $(tail -n 3 <<<"$out")"
	fi
	# Where the start-up time goes (make bench BENCH=up): compose up
	# (containers created and started), the nodes registering until all
	# are idle, the check of the controller's policy and topology.
	local t_compose=$((SECONDS - t0))
	after=$(config_sum "$name")
	local reconf=0
	if needs_reconfigure "$before" "$after" "$started" "$(ctld_started)"; then
		reconf=1
		reconfigure_ctld
	fi
	wait_ready "$name"
	local t_nodes=$((SECONDS - t0))
	# An unchanged configuration on the same controller process proves
	# itself by its last load; a new or reconfigured one must log a new load.
	if [ "$before" = "$after" ] && [ -n "$started" ] && [ "$started" = "$(ctld_started)" ]; then
		verify_policy "$name"
	else
		verify_policy "$name" "$since"
	fi
	# After a reconfigure, the restarted controller's front ends: the
	# first wait may have seen the old process (the restart comes late).
	[ "$reconf" = 0 ] || wait_ready "$name"
	local took=$((SECONDS - t0)) memory
	memory=$(memory_in_use)
	summary "$name" "$memory"
	info "  ready in:     ${took} s after the containers were started"
	printf 'CLUSTER=%s\nNODES=%s\nFRONTENDS=%s\nEMULATORS=%s\nREADY_S=%s\nMEMORY_MIB=%s\nCOMPOSE_S=%s\nNODES_S=%s\n' \
		"$name" "$(cluster_var "$name" NODES)" "$(cluster_var "$name" FRONTENDS)" \
		"$(cluster_var "$name" EMULATORS)" "$took" "$memory" "$t_compose" \
		"$((t_nodes - t_compose))" >"$STATE_DIR/last-up.env"
}

# Whether make up must reconfigure the controller: only when the
# configuration changed ($1, $2: its sums before and after) and a
# controller that read the old one still runs. A controller this compose
# up created or started ($3, its start before, is empty or differs from
# $4, its start now) read the new files when it started; a reconfigure
# would only restart it (24.11), and every front end would register once
# more, each registration a pass over the whole node table
# (node_mgr.c:3878). On a stack, always on a change: the deploy has
# replaced the emulators' tasks (their configs changed), at new
# addresses, which the controller's restart resolves afresh (a task's
# address is not kept: no virtual IPs).
needs_reconfigure() {
	local before=$1 after=$2 started=$3 now=$4
	[ "$before" != "$after" ] || return 1
	[ "${STACK:-0}" = 1 ] && return 0
	[ -n "$started" ] && [ "$started" = "$now" ]
}

# A controller already running keeps its old configuration otherwise.
# Only on a change: 24.11 restarts slurmctld to reconfigure, and in
# front-end mode a restart drops running batch jobs' steps, so those
# jobs are not seen to end and run on to their time limit (TIMEOUT).
reconfigure_ctld() {
	local running
	running=$(ctld_exec squeue -h -t R,CG -o %i 2>/dev/null | wc -l) || running=0
	[ "$running" -eq 0 ] || info "up: warning: $running running jobs will end as TIMEOUT at their limit (slurmctld restarts to reconfigure; see README)"
	# 24.11 restarts slurmctld to reconfigure, so the request itself
	# often times out; verify_policy below checks what it did.
	ctld_exec scontrol reconfigure >/dev/null 2>&1 || true
}

config_sum() {
	cat "$(cluster_dir "$1")/slurm.conf" "$(cluster_dir "$1")/topology.json" 2>/dev/null | cksum
}

# The controller runs the configured policy and options on the generated
# topology: its TopologyParam names them, and its last load of
# topology.json succeeded with the cluster's node and leaf counts
# (otherwise every job would silently get tree's choice). With a second
# argument (a Unix time), only a load logged since then counts: after a
# reconfigure or a restart an older success line proves nothing.
verify_policy() {
	local name=$1 since=${2:-} want running topo_param="" loaded
	want=$(cluster_var "$name" POLICY)
	for _ in $(seq 30); do
		topo_param=$(ctld_exec scontrol show config 2>/dev/null |
			sed -n 's/^TopologyParam *= *//p')
		running=$(tr ',' '\n' <<<"$topo_param" | sed -n 's/^policy_//p')
		[ "$running" = "$want" ] && break
		sleep 1
	done
	[ "$running" = "$want" ] ||
		die "the controller runs policy '${running:-none}', not '$want'; see 'make logs SERVICE=slurmctld'"
	local have_opts want_opts
	have_opts=$(tr ',' '\n' <<<"$topo_param" | grep -vE '^(policy_|commtree_timing$)' | grep . | sort | paste -sd' ' || true)
	want_opts=$(cluster_var "$name" OPTIONS | tr ' ' '\n' | grep . | sort | paste -sd' ' || true)
	[ "$have_opts" = "$want_opts" ] ||
		die "the controller runs options '${have_opts:-none}', not '${want_opts:-none}'; see 'make logs SERVICE=slurmctld'"
	local logs_args=(--no-color --no-log-prefix --tail 20000)
	[ -z "$since" ] || logs_args+=(--since "$since")
	if swarm_on; then
		logs_args=(--tail 20000)
		[ -z "$since" ] || logs_args+=(--since "$since")
		loaded=$(stack_logs "${logs_args[@]}" "${PROJECT}_slurmctld" 2>&1 |
			grep -E 'topology/commtree: .*(nodes, [0-9]+ leaves|every job gets topology/tree)' | tail -n 1)
	else
		loaded=$(compose logs "${logs_args[@]}" slurmctld 2>/dev/null |
		grep -E 'topology/commtree: .*(nodes, [0-9]+ leaves|every job gets topology/tree)' | tail -n 1)
	fi
	case $loaded in
	*"every job gets topology/tree"*) die "slurmctld could not load the topology: ${loaded#*topology/commtree: }" ;;
	"") die "slurmctld has not loaded topology/commtree's topology.json${since:+ since this start}; see 'make logs SERVICE=slurmctld'" ;;
	esac
	local got want_counts
	got=$(sed -nE 's/.*: ([0-9]+) nodes, ([0-9]+) leaves.*/\1 nodes, \2 leaves/p' <<<"$loaded")
	want_counts="$(cluster_var "$name" NODES) nodes, $(cluster_var "$name" LEAVES) leaves"
	[ "$got" = "$want_counts" ] ||
		die "slurmctld loaded a topology of $got, not the cluster's $want_counts; see 'make logs SERVICE=slurmctld'"
	case $loaded in
	*"some nodes unknown to Slurm"*) die "slurmctld's topology.json names nodes its slurm.conf does not; see 'make logs SERVICE=slurmctld'" ;;
	esac
}

summary() {
	local name=$1 memory=$2
	info "cluster $name is up"
	info "  nodes:        $(cluster_var "$name" NODES) ($(cluster_var "$name" CORES) cores), all up, $(ctld_exec sinfo -h -t idle -o %D | awk '{n += $1} END {print n + 0}') idle"
	info "  leaf switches: $(cluster_var "$name" LEAVES) ($(cluster_var "$name" LEVELS) levels)"
	info "  front ends:   $(cluster_var "$name" FRONTENDS) in $(cluster_var "$name" EMULATORS) emulator containers"
	info "  containers:   $(running_containers | wc -l)"
	if [ "$memory" = unknown ]; then
		info "  memory:       unknown (a container went away while it was measured)"
	else
		info "  memory:       $memory MiB (sum over containers)"
	fi
	info "  policy:       $(cluster_var "$name" POLICY)"
	info "  testbed:      project $PROJECT, clone $ROOT"
}

cmd_down() {
	require_docker
	local name
	name=$(current_cluster)
	if [ -z "$name" ]; then
		info "no cluster is up"
		return 0
	fi
	if swarm_on; then
		stack_down
	else
		compose down --remove-orphans >/dev/null 2>&1
	fi
	rm -f "$STATE_DIR/cluster"
	info "down: $name stopped (job history and controller state kept; 'make clean' removes them)"
}

cmd_clean() {
	require_docker
	local name
	name=$(current_cluster)
	name=${name:-tiny}
	[ -f "$(cluster_dir "$name")/emulators.yml" ] || cmd_config "$name" >/dev/null
	if swarm_on; then stack_down; fi
	compose_for "$name" down -v --remove-orphans >/dev/null 2>&1 || true
	local volumes
	# A stack's volumes (make up SWARM=1) carry the stack's label.
	mapfile -t volumes < <(docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT"
		docker volume ls -q --filter "label=com.docker.stack.namespace=$PROJECT")
	[ "${#volumes[@]}" -eq 0 ] || docker volume rm "${volumes[@]}" >/dev/null
	clean_own_files
	info "clean: containers, volumes, generated configuration and secrets removed"
}

# This testbed's state and generated files only. Another testbed (another
# TESTBED_PROJECT, as each of an experiment's runs) keeps its state in
# .state/<project> and its configuration in build/projects/<project>, and
# may be running beside this one: the clone's own testbed's clean spares them,
# and the policy library's build (build/c: the tools and the registry,
# policies.tsv, that every testbed's scripts read), which is no testbed's.
clean_own_files() {
	if [ "$PROJECT" != "$CLONE_PROJECT" ]; then
		rm -rf "$STATE_DIR" "$ROOT/build/projects/$PROJECT"
		return 0
	fi
	local f
	for f in "$STATE_DIR"/* "$STATE_DIR"/.[!.]*; do
		[ -e "$f" ] || continue
		case ${f##*/} in
		vclock) rm -rf "$f" ;;
		*) [ -d "$f" ] || rm -f "$f" ;;
		esac
	done
	for f in "$ROOT"/build/*; do
		case $f in "$ROOT/build/projects" | "$ROOT/build/c") ;; *) rm -rf "$f" ;; esac
	done
}

cmd_status() {
	require_docker
	local name others
	name=$(current_cluster)
	info "testbed: $(whose_project)"
	local owner
	owner=$(project_clone "$PROJECT")
	[ -z "$owner" ] || [ "$owner" = "$ROOT" ] || info "  its containers were started from another clone: $owner"
	others=$(other_testbeds)
	[ -z "$others" ] || info "other testbeds up on this Docker:"$'\n'"$others"
	if [ -z "$name" ] || [ -z "$(running_containers)" ]; then
		info "no cluster is up in this testbed (valid: $(cluster_names))"
		return 0
	fi
	local running
	running=$(ctld_exec scontrol show config 2>/dev/null | sed -n 's/^TopologyParam *= *//p' |
		tr ',' '\n' | sed -n 's/^policy_//p') || true
	info "cluster: $name    policy: ${running:-unknown} (configured: $(cluster_var "$name" POLICY))"
	local states svc k bad=()
	if swarm_on; then
		local reg
		reg=$(swarm_var REGISTRY)
		[ -z "$reg" ] || reg=", images from the registry in the stack ($reg)"
		info "a Swarm stack over $(swarm_var NODES) node(s)$reg:"
		stack_table
		states=$(stack_states)
	else
		compose ps -a --format 'table {{.Service}}\t{{.State}}\t{{.Status}}'
		states=$(compose ps -a --format '{{.Service}} {{.State}}' 2>/dev/null || true)
	fi
	# Every service the cluster should have: a dead emulator is named, and
	# so is one that is gone altogether.
	local expected=(db slurmdbd slurmctld)
	for ((k = 1; k <= $(cluster_var "$name" EMULATORS); k++)); do expected+=("emu$k"); done
	for svc in "${expected[@]}"; do
		case $(awk -v s="$svc" '$1 == s {print $2}' <<<"$states") in
		running) ;;
		"") bad+=("$svc (missing)") ;;
		*) bad+=("$svc ($(awk -v s="$svc" '$1 == s {print $2}' <<<"$states"))") ;;
		esac
	done
	[ "${#bad[@]}" -eq 0 ] || info "NOT RUNNING: ${bad[*]}; 'make logs SERVICE=<name>' shows why, 'make up CLUSTER=$name' restarts them"
	ctld_exec sinfo -o '%P %a %D %T' || true
	{ ctld_exec squeue -h -o '%T' 2>/dev/null || true; } | sort | uniq -c |
		awk '{printf "jobs %s: %s\n", $2, $1}'
}

cmd_logs() {
	if swarm_on; then
		local svc
		for svc in ${SERVICE:-$(docker stack services "$PROJECT" --format '{{.Name}}' | sed "s/^${PROJECT}_//")}; do
			docker service logs --no-task-ids --tail "${TAIL:-100}" "${PROJECT}_$svc"
		done 2>&1
		return 0
	fi
	compose logs --no-color --tail "${TAIL:-100}" ${SERVICE:+"$SERVICE"} |
		sed 's/\x1b\[[0-9;]*[A-Za-z]//g'

}

cmd_shell() {
	if swarm_on; then
		docker exec -it "$(ctld_container)" bash
		return
	fi
	compose exec slurmctld bash
}

cmd_exec() {
	local cmd=${1:-${TESTBED_CMD:-}}
	[ -n "$cmd" ] || die "CMD is empty; example: make exec CMD='sinfo'"
	copy_matrices "$cmd"
	if swarm_on; then
		local id
		id=$(ctld_container)
		[ -n "$id" ] || die "no controller container is running; 'make status' says why"
		docker exec -i "$id" bash -c "$cmd"
		return
	fi
	compose exec -T slurmctld bash -c "$cmd"
}

# sbatch reads --comm-matrix=<file> inside the controller container: a host
# file of that absolute path is copied there, to the same path, first.
copy_matrices() {
	local word prev="" path ctl=""
	while IFS= read -r word; do
		path=""
		case $word in
		--comm-matrix=*) path=${word#--comm-matrix=} ;;
		*) [ "$prev" = --comm-matrix ] && path=$word ;;
		esac
		prev=$word
		if [[ $path != /* ]] || [ ! -f "$path" ]; then continue; fi
		[ -n "$ctl" ] || ctl=$(ctld_container)
		[ -n "$ctl" ] || die "no controller container is running"
		# Through docker exec, not docker cp -q: the Docker of Debian
		# bookworm (20.10, make setup's) has no cp -q. The file read is
		# the host's, the one written the container's.
		# shellcheck disable=SC2094
		docker exec -i "$ctl" sh -c 'mkdir -p "$(dirname "$1")" && cat >"$1"' _ "$path" <"$path" ||
			die "--comm-matrix=$path: cannot copy it into the controller"
	done < <(xargs -n1 printf '%s\n' <<<"$1" 2>/dev/null || true)
}
