#!/usr/bin/env bats
# TOFA without a cluster: make alloc on torus scenarios (issue 25's worked
# cases, exact mode), the generated torus machines. The library's own
# checks are in tests/c/test_tofa.c.

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools
}

setup() { load helpers; }

@test "make alloc: worked case 1, a ring of 8 with node 2 risky" {
	run make -s -C "$ROOT" alloc SCENARIO=examples/tofa-ring.scenario
	assert_success
	assert_output "default nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.02
tofa nodes=3-6 map=3,4,5,6 cost=3 hops=3 abort=0
scotch0 nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.02
tofa-greedy nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.02"
}

@test "make alloc: worked case 2, a 4x4 torus, busy 4,5,11, node 1 risky" {
	run make -s -C "$ROOT" alloc SCENARIO=examples/tofa-4x4.scenario
	assert_success
	assert_output "default nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.02
tofa nodes=6-9 map=6,7,8,9 cost=4 hops=4 abort=0
scotch0 nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.02
tofa-greedy nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.02"
}

@test "make alloc: the prose's penalty (100) and Scotch, on worked case 1" {
	run "$ROOT/build/c/tb-alloc" "$ROOT/examples/tofa-ring.scenario" tofa \
		--options "penalty=100 mapper=scotch"
	assert_success
	# Scotch finds the chain's best map too, the other way round.
	assert_output "tofa nodes=3-6 map=6,5,4,3 cost=3 hops=3 abort=0"
	run "$ROOT/build/c/tb-alloc" "$ROOT/examples/tofa-ring.scenario" default \
		--options penalty=100
	assert_output "default nodes=0-3 map=0,1,2,3 cost=201 hops=3 abort=0.02"
}

@test "make alloc: no clean window, tofa falls back to every free node and says so" {
	local f=$BATS_TEST_TMPDIR/fallback.scenario
	printf 'torus 6 1 1\nrisky 0,3\nedge 0 1 1\nedge 1 2 1\njob nodes=3\noptions mapper=exact\n' >"$f"
	run "$ROOT/build/c/tb-alloc" "$f" tofa
	assert_success
	assert_output "tofa nodes=0-2 map=0,1,2 cost=102 hops=2 abort=0.02 fallback"
}

@test "a torus scenario's bad line: one line naming it, nothing printed" {
	local f=$BATS_TEST_TMPDIR/bad.scenario
	printf 'torus 4 4 1\nedge 0 9 1\njob nodes=4\n' >"$f"
	run "$ROOT/build/c/tb-alloc" "$f"
	assert_failure
	assert_output "tb-alloc: $f:2: edge: process 9, the job has 4 (0-3)"
}
