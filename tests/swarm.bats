#!/usr/bin/env bats
# `tiny` as a Docker Swarm stack on a single-node swarm (make up SWARM=1,
# docs/swarm.md): every step of the multi-host path that one machine can
# check. The images go through the registry inside the stack
# (SWARM_REGISTRY=1), as they must on several hosts. A swarm this test
# initialises it leaves again; one that was there before it stays.

setup_file() {
	load helpers
	local state
	state=$(docker info -f '{{.Swarm.LocalNodeState}}' 2>/dev/null) ||
		skip "this Docker has no swarm support ('docker info' fails)"
	if [ "$state" = inactive ]; then
		docker swarm init --advertise-addr 127.0.0.1 >/dev/null 2>&1 ||
			skip "this Docker cannot be made a swarm ('docker swarm init' fails)"
		touch "$BATS_FILE_TMPDIR/swarm-initialised"
	fi
	[ "$(docker info -f '{{.Swarm.ControlAvailable}}')" = true ] ||
		skip "this Docker is in a swarm but not a manager: a stack is deployed from a manager"
	make -s -C "$ROOT" clean >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny SWARM=1 SWARM_REGISTRY=1 POLICY=greedy >&3
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" clean >/dev/null 2>&1 || true
	rm -rf "$ROOT/build/projects/$TESTBED_PROJECT-multi" "$ROOT/.state/$TESTBED_PROJECT-multi"
	if [ -f "$BATS_FILE_TMPDIR/swarm-initialised" ]; then
		docker swarm leave --force >/dev/null
	fi
}

setup() { load helpers; }

self() { docker info -f '{{.Swarm.NodeID}}'; }

constraints() {
	docker service inspect -f '{{json .Spec.TaskTemplate.Placement.Constraints}}' "${TESTBED_PROJECT}_$1"
}

@test "the cluster is a stack: one service per Compose service, on an overlay network" {
	run docker stack services "$TESTBED_PROJECT" --format '{{.Name}} {{.Replicas}}'
	assert_success
	local svc
	for svc in db slurmdbd slurmctld emu1 registry; do
		assert_line "${TESTBED_PROJECT}_$svc 1/1"
	done
	# Nothing of Compose: the same project has no Compose containers.
	[ -z "$(docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT")" ]
	run docker network inspect -f '{{.Driver}} {{.Attachable}}' "${TESTBED_PROJECT}_slurm"
	assert_output "overlay true"
}

@test "the controller, its database and the registry are pinned to the manager" {
	local svc
	for svc in db slurmdbd slurmctld registry; do
		run constraints "$svc"
		assert_output "[\"node.id == $(self)\"]"
	done
}

@test "every node of tiny is idle, and the emulator reads the cluster's files as Swarm configs" {
	run make -s -C "$ROOT" exec CMD='sinfo -h -t idle -o %D'
	assert_success
	assert_output 32
	run bash -c "docker service inspect -f '{{range .Spec.TaskTemplate.ContainerSpec.Configs}}{{.File.Name}} {{end}}' \
		'${TESTBED_PROJECT}_emu1' | tr ' ' '\n' | grep . | sort | paste -sd' '"
	assert_output "/etc/testbed/cluster/cgroup.conf /etc/testbed/cluster/slurm.conf /etc/testbed/cluster/topology.conf"
}

@test "the images come from the registry in the stack, and a node's Docker can pull them from it" {
	local reg=127.0.0.1:5000 img
	run docker service inspect -f '{{.Spec.TaskTemplate.ContainerSpec.Image}}' "${TESTBED_PROJECT}_slurmctld"
	assert_output "$reg/testbed-slurm:$TESTBED_TAG"
	# What another host's Docker does: pull by the registry's name
	# through the routing mesh (the local tag dropped first; the image
	# stays, as testbed-*:TAG).
	for img in slurm db; do
		docker image rm "$reg/testbed-$img:$TESTBED_TAG" >/dev/null
		run docker pull -q "$reg/testbed-$img:$TESTBED_TAG"
		assert_success
	done
}

@test "the munge key and the database password are Swarm secrets, in no image, stack file or service spec" {
	run docker secret ls --format '{{.Name}}'
	assert_line "${TESTBED_PROJECT}_munge_key"
	assert_line "${TESTBED_PROJECT}_db_password"
	local state=$ROOT/.state/$TESTBED_PROJECT password
	[ "$TESTBED_PROJECT" != "$TESTBED_CLONE_PROJECT" ] || state=$ROOT/.state
	password=$(cat "$state/db.password")
	[ "${#password}" -ge 16 ]
	run grep -rlF "$password" "$(cluster_dir tiny)"
	assert_failure
	run bash -c "docker service inspect '${TESTBED_PROJECT}_slurmdbd' '${TESTBED_PROJECT}_db' | grep -cF '$password'"
	assert_output 0
	# The image's own key (Debian's munge makes one at install) is not
	# this install's, which only the secret carries.
	run docker run --rm --entrypoint sh "testbed-slurm:$TESTBED_TAG" -c \
		'ls -A /run/secrets 2>/dev/null; sha256sum </etc/munge/munge.key 2>/dev/null'
	assert_success
	refute_output --partial "munge_key"
	refute_output --partial "$(sha256sum <"$state/munge.key")"
}

@test "a job under greedy runs to COMPLETED in sacct" {
	run make -s -C "$ROOT" status
	assert_success
	assert_output --partial "cluster: tiny    policy: greedy"
	assert_output --partial "a Swarm stack over 1 node(s), images from the registry in the stack (127.0.0.1:5000)"
	refute_output --partial "NOT RUNNING"
	local id
	id=$(make -s -C "$ROOT" exec CMD="sbatch --parsable -N 4 -J swarmjob --wrap='sleep 2'")
	[[ "$id" =~ ^[0-9]+$ ]]
	wait_for 120 job_completed "$id" || fail "job $id did not reach COMPLETED in accounting"
	run sacct_json "$id"
	assert_equal "$(jq -r '.jobs[0].allocation_nodes' <<<"$output")" 4
	assert_equal "$(jq -r '.jobs[0].name' <<<"$output")" swarmjob
}

@test "make logs names the stack's services" {
	run make -s -C "$ROOT" logs SERVICE=slurmctld TAIL=2000
	assert_success
	assert_output --partial "topology/commtree"
}

@test "a replay on the virtual clock runs on a single-node stack, and make report reads it" {
	run make -s -C "$ROOT" replay LOG=theta JOBS=6 SCALE=16 POLICY=default1905 CLOCK=virtual SPEEDUP=1000
	assert_success
	local run_id
	run_id=$(ls -t "$RESULTS_DIR" | head -n 1)
	[ "$(jq -r .clock "$RESULTS_DIR/$run_id/manifest.json")" = virtual ]
	run make -s -C "$ROOT" report RUN="$run_id"
	assert_success
	[ -f "$RESULTS_DIR/$run_id/summary.md" ]
	run jq '[.jobs[] | select(.state.current[0] == "COMPLETED")] | length' "$RESULTS_DIR/$run_id/sacct.json"
	assert_output 6
}

@test "on a stack of several nodes, a virtual-clock replay is refused in one line" {
	# The stack's record says how many nodes it spans; two stand for a
	# second host, which one machine does not have.
	local state=$ROOT/.state/$TESTBED_PROJECT
	[ "$TESTBED_PROJECT" != "$TESTBED_CLONE_PROJECT" ] || state=$ROOT/.state
	cp "$state/swarm" "$BATS_TEST_TMPDIR/swarm"
	sed -i 's/^NODES=.*/NODES=2/' "$state/swarm"
	run make -s -C "$ROOT" replay LOG=theta JOBS=6 SCALE=16 CLOCK=virtual SPEEDUP=1000
	cp "$BATS_TEST_TMPDIR/swarm" "$state/swarm"
	assert_failure
	assert_line --index 0 "error: CLOCK=virtual needs one host: this Swarm stack spans 2 nodes and the clock page is a file on the manager; use CLOCK=wall or a single-node stack"
}

@test "the stack file for three hosts spreads the emulators and pins the rest to the manager" {
	local p=$TESTBED_PROJECT-multi f
	TESTBED_PROJECT=$p TESTBED_SWARM_NODES="nodeA nodeB nodeC" \
		run make -s -C "$ROOT" config CLUSTER=tiny SWARM=1 FRONTENDS=4 EMULATORS=4
	assert_success
	f=$ROOT/build/projects/$p/clusters/tiny/stack.json
	run jq -r '.services | to_entries[] | "\(.key) \(.value.deploy.placement.constraints[0])"' "$f"
	assert_line "emu1 node.id == nodeA"
	assert_line "emu2 node.id == nodeB"
	assert_line "emu3 node.id == nodeC"
	assert_line "emu4 node.id == nodeA"
	assert_line "slurmctld node.id == nodeA"
	assert_line "db node.id == nodeA"
	assert_line "registry node.id == nodeA"
	# Images from the stack's registry; no clock page off the manager.
	run jq -r '.services.emu2.image, .services.emu2.environment.TB_VCLOCK_FILE,
		([.services.emu2.volumes[]?] | length), .services.slurmctld.environment.TB_VCLOCK_FILE' "$f"
	assert_output "$(printf '127.0.0.1:5000/testbed-slurm:%s\n\n0\n/run/testbed-vclock/clock' "$TESTBED_TAG")"
}

@test "make down removes the stack's services, network, secrets and configs; make clean its volumes" {
	run make -s -C "$ROOT" down
	assert_success
	local p=$TESTBED_PROJECT
	[ -z "$(docker service ls -q --filter "label=com.docker.stack.namespace=$p")" ]
	[ -z "$(docker ps -aq --filter "label=com.docker.stack.namespace=$p")" ]
	[ -z "$(docker network ls -q --filter "label=com.docker.stack.namespace=$p")" ]
	[ -z "$(docker secret ls -q --filter "label=com.docker.stack.namespace=$p")" ]
	[ -z "$(docker config ls -q --filter "label=com.docker.stack.namespace=$p")" ]
	run docker images --format '{{.Repository}}:{{.Tag}}' --filter "reference=127.0.0.1:5000/*:$TESTBED_TAG"
	assert_output ""
	run make -s -C "$ROOT" status
	assert_output --partial "no cluster is up"
	make -s -C "$ROOT" clean >/dev/null
	run docker volume ls -q --filter "label=com.docker.stack.namespace=$p"
	assert_output ""
	run docker volume ls -q --filter "name=^${p}_"
	assert_output ""
}
