#!/usr/bin/env bats
# Two clones on one machine bring up two separate testbeds (issue 27,
# point 4): each clone's default Compose project is its own
# (scripts/lib/env.bash), so a job left running in one is not seen by the
# other, `make status` says which project and clone a cluster belongs to,
# and a project another clone runs is refused.
#
# The clones are copies of this clone's working tree without what it made
# (build, state, results, fetched logs; .git, which in a worktree points
# outside the mounted clone), with the same directory name in two places: only the hash of the
# path tells their projects apart. They share this clone's images
# (TESTBED_TAG) and policy build (build/c, copied), so nothing is built.

setup_file() {
	load helpers
	# Inside this clone's build/ (left out of the copies, mounted at the
	# same path in the tools image as on the host): not TESTBED_SCRATCH,
	# whose name has a space on purpose, where make cannot build a clone's
	# policy library (CI: "No rule to make target '.../build/c/lib/cost.o'").
	export CLONES="$ROOT/build/clones-test"
	rm -rf "$CLONES"
	local c
	for c in a b; do
		mkdir -p "$CLONES/$c/testbed"
		tar -C "$ROOT" --exclude=./.git --exclude=./build --exclude=./.state \
			--exclude=./results --exclude=./workloads/logs --exclude=./bench/out \
			-cf - . | tar -xf - -C "$CLONES/$c/testbed"
		mkdir -p "$CLONES/$c/testbed/build"
		cp -a "$TB_BUILD" "$CLONES/$c/testbed/build/c"
	done
}

teardown_file() {
	local c
	for c in a b; do
		[ -d "$CLONES/$c/testbed" ] || continue
		in_clone "$c" make -s -C "$CLONES/$c/testbed" clean >/dev/null 2>&1 || true
	done
	rm -rf "$CLONES"
}

setup() { load helpers; }

# in_clone <a|b> <command...>: as a user of that clone runs it: no
# TESTBED_PROJECT (the clone's default), this clone's images, the clone's
# own build and state.
in_clone() {
	local c=$1
	shift
	env -u TESTBED_PROJECT -u TESTBED_STATE_DIR -u TESTBED_CLONE_PROJECT -u RESULTS_DIR \
		TB_BUILD="$CLONES/$c/testbed/build/c" "$@"
}

running_in() {
	[ "$(in_clone "$1" make -s -C "$CLONES/$1/testbed" exec CMD="squeue -h -j $2 -o %T")" = RUNNING ]
}

project_of() {
	in_clone "$1" make -s -C "$CLONES/$1/testbed" status | sed -n 's/^testbed: project \([^ ]*\) .*/\1/p'
}

@test "two clones of the same name get two projects, named after the directory" {
	local a b
	a=$(project_of a)
	b=$(project_of b)
	[[ $a =~ ^testbed-[0-9a-f]{8}$ ]] || fail "clone a's project: '$a'"
	[[ $b =~ ^testbed-[0-9a-f]{8}$ ]] || fail "clone b's project: '$b'"
	[ "$a" != "$b" ] || fail "both clones got project $a"
	# Not this clone's either, nor the old shared default.
	[ "$a" != "$TESTBED_CLONE_PROJECT" ] && [ "$a" != testbed ]
	run in_clone a make -s -C "$CLONES/a/testbed" status
	assert_output --partial "project $a (this clone's own), clone $CLONES/a/testbed"
	run env TESTBED_PROJECT=mine make -s -C "$CLONES/a/testbed" status
	assert_output --partial "project mine (TESTBED_PROJECT), clone $CLONES/a/testbed"
}

@test "a job left running in one clone's tiny is not in the other clone's tiny" {
	local a b id
	a=$(project_of a)
	b=$(project_of b)
	in_clone a make -s -C "$CLONES/a/testbed" up CLUSTER=tiny >&3
	id=$(in_clone a make -s -C "$CLONES/a/testbed" exec \
		CMD="sbatch --parsable -N 1 -t 365-0 --wrap='sleep 100000'")
	[[ $id =~ ^[0-9]+$ ]] || fail "sbatch in clone a: '$id'"
	wait_for 60 running_in a "$id" ||
		fail "job $id never ran in clone a"
	in_clone b make -s -C "$CLONES/b/testbed" up CLUSTER=tiny >&3
	# Two controllers, one per project.
	[ "$(docker ps -q --filter "label=com.docker.compose.project=$a" --filter label=com.docker.compose.service=slurmctld | wc -l)" -eq 1 ]
	[ "$(docker ps -q --filter "label=com.docker.compose.project=$b" --filter label=com.docker.compose.service=slurmctld | wc -l)" -eq 1 ]
	run in_clone b make -s -C "$CLONES/b/testbed" exec CMD='squeue -h -o %i'
	assert_success
	assert_output ""
	run in_clone b make -s -C "$CLONES/b/testbed" exec CMD='sinfo -h -t idle -o %D'
	assert_output 32
	run in_clone a make -s -C "$CLONES/a/testbed" exec CMD="squeue -h -j $id -o %T"
	assert_output RUNNING
	# Each status names its project and clone, and the other testbed.
	run in_clone b make -s -C "$CLONES/b/testbed" status
	assert_success
	assert_output --partial "testbed: project $b (this clone's own), clone $CLONES/b/testbed"
	assert_output --partial "cluster: tiny"
	assert_output --partial "  project $a, clone $CLONES/a/testbed"
	refute_output --partial "jobs RUNNING"
}

@test "a project another clone runs is refused, naming that clone" {
	local a
	a=$(project_of a)
	[ -n "$(docker ps -q --filter "label=com.docker.compose.project=$a")" ] || skip "clone a's tiny is not up (the test before failed)"
	run env -u TESTBED_CLONE_PROJECT -u TESTBED_STATE_DIR TESTBED_PROJECT="$a" \
		TB_BUILD="$CLONES/b/testbed/build/c" make -s -C "$CLONES/b/testbed" up CLUSTER=tiny
	assert_failure
	assert_line --index 0 "error: project '$a' is up from another clone ($CLONES/a/testbed); use another TESTBED_PROJECT, or 'make down' there"
}
