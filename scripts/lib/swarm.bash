# The cluster as a Docker Swarm stack (make up SWARM=1; docs/swarm.md):
# the stack file derived from the Compose project, the stack's registry,
# deploy and removal, and the lookup of its containers and tasks, which the
# other pieces call instead of `docker compose` while a stack is up.
#
# While a stack is up, STATE_DIR/swarm holds its settings (NODES: how many
# swarm nodes it spans; REGISTRY: 127.0.0.1:<port> or nothing).

swarm_on() { [ -f "$STATE_DIR/swarm" ]; }

swarm_var() { sed -n "s/^$1=//p" "$STATE_DIR/swarm" 2>/dev/null; }

# A stack spanning several nodes: its emulators have no clock page.
swarm_multihost() { swarm_on && [ "$(swarm_var NODES)" -gt 1 ]; }

require_swarm() {
	local state
	state=$(docker info -f '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}' 2>/dev/null) ||
		die "SWARM=1: 'docker info' fails, so this Docker has no swarm support"
	[ "$state" = "active true" ] ||
		die "SWARM=1: this Docker is not a swarm manager (swarm: ${state% *}); run 'docker swarm init' first (docs/swarm.md)"
}

# The ready, active nodes' ids, one a line: the manager's (this Docker's)
# first. TESTBED_SWARM_NODES (ids separated by spaces) stands for them when
# only the stack file is made (make config SWARM=1), so that what would run
# where on several hosts is checked on one.
swarm_nodes() {
	if [ -n "${TESTBED_SWARM_NODES:-}" ]; then
		tr ' ' '\n' <<<"$TESTBED_SWARM_NODES" | grep .
		return 0
	fi
	local self
	self=$(docker info -f '{{.Swarm.NodeID}}')
	echo "$self"
	docker node ls --format '{{.ID}} {{.Status}} {{.Availability}}' |
		awk -v self="$self" '$1 != self && $2 == "Ready" && $3 == "Active" {print $1}'
}

# build/.../<cluster>/stack.json from `docker compose config` of the same
# files Compose runs (compose/swarm.jq says what changes). $2: the
# registry (127.0.0.1:<port>) or nothing.
stack_file() {
	local name=$1 registry=${2:-} dir nodes manager multihost=false f sum configs=""
	dir=$(cluster_dir "$name")
	mapfile -t nodes < <(swarm_nodes)
	manager=${nodes[0]}
	[ "${#nodes[@]}" -gt 1 ] && multihost=true
	# What slurmd reads. Not topology.json: only slurmctld loads it
	# (plugins/slurm/topology_commtree.c), and a config holds at most
	# 1,024,000 bytes (Cori's is 1,016,696).
	for f in slurm.conf topology.conf cgroup.conf; do
		# Configs cannot change: a new content is a new name.
		sum=$(sha256sum "$dir/$f" | cut -c1-12)
		configs+=$(printf '%s"%s": {"name": "%s", "file": "%s"}' "${configs:+, }" \
			"$f" "${PROJECT}_${f//./_}_$sum" "$dir/$f")
	done
	compose_for "$name" config --format json |
		jq_in_tools -f "$ROOT/compose/swarm.jq" --arg project "$PROJECT" --arg manager "$manager" \
			--argjson nodes "[$(printf '"%s",' "${nodes[@]}" | sed 's/,$//')]" \
			--argjson configs "{$configs}" --arg registry "$registry" \
			--arg regimage "testbed-registry:$TAG" --arg port "${SWARM_REGISTRY_PORT:-5000}" \
			--argjson multihost "$multihost" >"$dir/stack.json.tmp" ||
		die "making the stack file from the Compose project failed"
	mv "$dir/stack.json.tmp" "$dir/stack.json"
	echo "${#nodes[@]}"
}

# jq of the tools image (the host needs only Docker), reading stdin.
jq_in_tools() { in_tools jq "$@"; }

# The registry inside the stack: deployed first, alone, then the images
# are pushed to it. Prints 127.0.0.1:<port>.
stack_registry() {
	local name=$1 port=${SWARM_REGISTRY_PORT:-5000} reg dir img err=""
	reg=127.0.0.1:$port
	dir=$(cluster_dir "$name")
	image_exists "testbed-registry:$TAG" || die "no image testbed-registry:$TAG; run 'make images'"
	stack_file "$name" "$reg" >/dev/null
	jq_in_tools '{version, networks, volumes: {registry: .volumes.registry},
		services: {registry: .services.registry}}' <"$dir/stack.json" >"$dir/stack-registry.json"
	docker stack deploy --detach=true --resolve-image never -c "$dir/stack-registry.json" "$PROJECT" >/dev/null ||
		die "deploying the stack's registry failed"
	# Until the published port answers, a push fails.
	for img in slurm db; do
		docker tag "testbed-$img:$TAG" "$reg/testbed-$img:$TAG"
		for _ in $(seq 60); do
			err=$(docker push -q "$reg/testbed-$img:$TAG" 2>&1) && { err=""; break; }
			sleep 1
		done
		[ -z "$err" ] || die "pushing testbed-$img to the stack's registry ($reg) failed: $(tail -n 1 <<<"$err")"
	done
	echo "$reg"
}

# make up SWARM=1: the stack deployed (again: a changed configuration
# replaces the emulators' tasks, whose configs changed).
stack_up() {
	local name=$1 registry="" n out want=${SWARM_REGISTRY:-}
	require_swarm
	n=$(swarm_nodes | wc -l)
	# A stack up with its registry keeps it (a replay's policy switch
	# deploys again, and other image names would replace every task).
	[ -n "$want" ] || [ -z "$(swarm_var REGISTRY)" ] || want=1
	# Recorded first: a failed start is taken down by make down or clean.
	printf 'NODES=%s\nREGISTRY=%s\n' "$n" "$(swarm_var REGISTRY)" >"$STATE_DIR/swarm.tmp"
	mv "$STATE_DIR/swarm.tmp" "$STATE_DIR/swarm"
	case $want in
	1) registry=$(stack_registry "$name") ;;
	0) [ "$n" -eq 1 ] || die "SWARM_REGISTRY=0: the swarm has $n nodes, which cannot all see this host's images; leave SWARM_REGISTRY unset" ;;
	"") [ "$n" -eq 1 ] || registry=$(stack_registry "$name") ;;
	*) die "SWARM_REGISTRY=$want: expected 0 or 1" ;;
	esac
	stack_file "$name" "$registry" >/dev/null
	printf 'NODES=%s\nREGISTRY=%s\n' "$n" "$registry" >"$STATE_DIR/swarm"
	# Waited until every service has converged: a task that the deploy
	# replaces (an emulator whose configs changed) must not still answer
	# for its nodes while make up checks them, then go away under the
	# jobs of the replay that follows.
	out=$(timeout "$READY_TIMEOUT" docker stack deploy --detach=false --resolve-image never \
		-c "$(cluster_dir "$name")/stack.json" "$PROJECT" 2>&1) ||
		die "docker stack deploy failed or did not converge in $READY_TIMEOUT s: $(grep -v '^ *$' <<<"$out" | tail -n 3)"
}

# make down on a stack: services, network, secrets and configs removed
# (the volumes stay, as with Compose; make clean removes them), waited for.
stack_down() {
	local reg
	reg=$(swarm_var REGISTRY)
	docker stack rm "$PROJECT" >/dev/null 2>&1 || true
	for _ in $(seq 120); do
		[ -z "$(docker ps -aq --filter "label=com.docker.stack.namespace=$PROJECT")" ] &&
			[ -z "$(docker network ls -q --filter "label=com.docker.stack.namespace=$PROJECT")" ] && break
		sleep 1
	done
	[ -z "$(docker ps -aq --filter "label=com.docker.stack.namespace=$PROJECT")" ] ||
		die "the stack's containers are still there 120 s after 'docker stack rm $PROJECT'"
	# The tags pushed to the stack's registry (the images stay, as
	# testbed-*:TAG).
	local img
	for img in slurm db; do
		docker image rm "${reg:-127.0.0.1:${SWARM_REGISTRY_PORT:-5000}}/testbed-$img:$TAG" >/dev/null 2>&1 || true
	done
	rm -f "$STATE_DIR/swarm"
}

# The running (local) container of one of the stack's services.
stack_container() {
	docker ps -q --filter "label=com.docker.stack.namespace=$PROJECT" \
		--filter "label=com.docker.swarm.service.name=${PROJECT}_$1" | head -n 1
}

# "<service> <state>" of every service's current task, on any node: the
# state in Compose's words (running, or what the task is doing instead).
stack_states() {
	# No task yet is an error of docker stack ps.
	{ docker stack ps "$PROJECT" --filter desired-state=running \
		--format '{{.Name}} {{.CurrentState}}' 2>/dev/null || true; } |
		awk -v p="${PROJECT}_" '{s = $1; sub("^" p, "", s); sub(/\.[0-9]+$/, "", s)
			print s, tolower($2)}'
}

# Services whose tasks failed three times: Swarm restarts them, which
# would otherwise look like a start-up that takes long.
stack_failing() {
	{ docker stack ps "$PROJECT" --filter desired-state=shutdown --format '{{.Name}}' 2>/dev/null || true; } |
		awk -v p="${PROJECT}_" '{s = $1; sub("^" p, "", s); sub(/\.[0-9]+$/, "", s); n[s]++}
			END {for (s in n) if (n[s] >= 3) print s}'
}

# What runs where: service, node, state.
stack_table() {
	docker stack ps "$PROJECT" --filter desired-state=running \
		--format 'table {{.Name}}\t{{.Node}}\t{{.CurrentState}}'
}

stack_logs() {
	docker service logs --raw "$@"
}

# How make up runs, in STACK: SWARM=1 a stack, SWARM=0 Compose, unset as
# what is up (a replay's policy switch keeps a stack a stack). The other
# way's cluster must be down first: the two share the project's names.
stack_or_compose() {
	if swarm_on && ! docker stack ls --format '{{.Name}}' 2>/dev/null | grep -qxF "$PROJECT"; then
		rm -f "$STATE_DIR/swarm"
	fi
	STACK=0
	swarm_on && STACK=1
	case ${SWARM:-} in
	'') ;;
	0) [ "$STACK" = 0 ] || die "SWARM=0: this testbed's cluster is up as a Swarm stack; run 'make down' first" ;;
	1)
		[ -z "$(docker ps -q --filter "label=com.docker.compose.project=$PROJECT")" ] ||
			die "SWARM=1: this testbed's cluster is up with Compose; run 'make down' first"
		STACK=1
		;;
	*) die "SWARM=$SWARM: expected 0 (Compose) or 1 (a Docker Swarm stack)" ;;
	esac
}
