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
		--options "penalty=100 mapper=scotch scotch_arch=build2"
	assert_success
	# Scotch 7's archBuild2 finds the chain's best map, the other way round.
	assert_output "tofa nodes=3-6 map=6,5,4,3 cost=3 hops=3 abort=0"
	# The default, archBuild0 (Scotch 6's, the paper's time), does not:
	# 6-3 is 3 hops on the ring, then 1 + 1.
	run "$ROOT/build/c/tb-alloc" "$ROOT/examples/tofa-ring.scenario" tofa \
		--options "penalty=100 mapper=scotch"
	assert_success
	assert_output "tofa nodes=3-6 map=6,3,4,5 cost=5 hops=5 abort=0"
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

@test "torus512: an 8x8x8 torus, node id = x + 8y + 64z, one leaf for Slurm, front ends" {
	generate torus512
	local d=$ROOT/build/test-config/torus512
	run jq -c '[.kind, .torus, (.nodes | length), .switches[0].name, (.switches | length)]' "$d/topology.json"
	assert_output '["torus",[8,8,8],512,"torus",1]'
	# Every node's coordinates give back its index, and names follow it.
	run jq '[.nodes | to_entries[] | select(.value.coord[0] + 8 * .value.coord[1]
		+ 64 * .value.coord[2] != .key or .value.name != ("t" + (.key | tostring
		| if length == 1 then "00" + . elif length == 2 then "0" + . else . end)))] | length' \
		"$d/topology.json"
	assert_output 0
	run cat "$d/topology.conf"
	assert_line "SwitchName=torus Nodes=t[000-511]"
	run grep -c '^FrontendName=' "$d/slurm.conf"
	assert_output 4
	# The library reads it as a torus (tb-alloc's state mode, as the
	# comparison with Slurm uses it): no matrix, the first clean window.
	run "$ROOT/build/c/tb-alloc" --topology "$d/topology.json" --busy t000,t001 \
		--job nodes=3 tofa
	assert_success
	assert_output "tofa t002,t003,t004"
}

@test "Table 1's shapes: four more 512-node tori, coordinates in the shape" {
	local s d
	for s in 4x8x16 8x4x16 4x4x32 4x32x4; do
		generate "torus512-$s"
		d=$ROOT/build/test-config/torus512-$s
		run jq -c '[.torus, (.nodes | length), .nodes[511].coord]' "$d/topology.json"
		IFS=x read -r x y z <<<"$s"
		assert_output "[[$x,$y,$z],512,[$((x - 1)),$((y - 1)),$((z - 1))]]"
	done
}

# generate.py reads definitions from emulated-clusters/ only: the test's
# definition goes there under a name no machine has, and is removed.
@test "a torus whose shape does not hold its nodes: one line naming it" {
	local dir=$BATS_TEST_TMPDIR/defs
	mkdir -p "$dir"
	sed 's/^torus .*/torus = 8 8 4/' "$ROOT/emulated-clusters/torus64.cluster" >"$dir/x.cluster"
	run bash -c "cp '$dir/x.cluster' '$ROOT/emulated-clusters/zz-torus-test.cluster' &&
		sed -i 's/^name .*/name = zz-torus-test/' '$ROOT/emulated-clusters/zz-torus-test.cluster' &&
		python3 '$ROOT/emulated-clusters/generate.py' zz-torus-test '$dir/out'; rc=\$?;
		rm -f '$ROOT/emulated-clusters/zz-torus-test.cluster'; exit \$rc"
	assert_failure
	assert_output "error: zz-torus-test: torus 8x8x4: 256 nodes, the definition has 64"
}

@test "make alloc: fallback=window (ours) takes the window with the fewest risky nodes" {
	local f=$BATS_TEST_TMPDIR/window.scenario
	printf 'torus 12 1 1\nrisky 0,3,6,9\nedge 0 1 1\nedge 1 2 1\nedge 2 3 1\njob nodes=4\noptions mapper=exact\n' >"$f"
	run "$ROOT/build/c/tb-alloc" "$f" tofa
	assert_success
	assert_output "tofa nodes=0-3 map=0,1,2,3 cost=203 hops=3 abort=0.0396 fallback"
	run "$ROOT/build/c/tb-alloc" --options fallback=window "$f" tofa
	assert_success
	assert_output "tofa nodes=1-4 map=1,2,3,4 cost=203 hops=3 abort=0.02 fallback=window"
	run "$ROOT/build/c/tb-alloc" --options fallback=nearest "$f" tofa
	assert_failure
	assert_output --partial "fallback: expected all or window, got 'nearest'"
}
