#!/usr/bin/env bats
# The NeDD family without a cluster: `make alloc` on router scenarios gives
# issue 24's hand-worked decisions and ours (examples/nedd-*.scenario),
# random is seeded, too few free nodes is a wait, a bad line is one error,
# cori's topology.json gives the library its router map, and --pressure
# is for router scenarios only.

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools
	generate cori >/dev/null
}

setup() { load helpers; }

nedd_lines() {
	make -s -C "$ROOT" alloc SCENARIO="$1" | grep -E '^(ltr|htr|nedd|random|low-stall|fewer-router) '
}

@test "make alloc: issue 24's worked case, exactly" {
	run nedd_lines examples/nedd-worked.scenario
	assert_success
	assert_line "ltr R1:4 R2:2 nodes=4-9"
	assert_line "nedd R1:4 R2:2 nodes=4-9"
	assert_line "htr R0:1 R4:3 R3:1 R6:1 nodes=1,12,17-19,24"
	assert_line "fewer-router R1:4 R4:2 nodes=4-7,17-18"
	assert_line "low-stall R3:1 R5:1 R0:1 R6:1 R4:2 nodes=1,12,17-18,23-24"
	assert_line --regexp '^random (R[0-9]:[0-9] ?)+ nodes=[0-9,-]+$'
}

@test "make alloc: our hand-worked case (window, ended jobs, profile, stall model)" {
	run nedd_lines examples/nedd-window.scenario
	assert_success
	assert_output "ltr R3:4 R5:1 nodes=12-15,20
htr R4:2 R0:2 R1:1 nodes=2-4,18-19
nedd R4:2 R0:2 R1:1 nodes=2-4,18-19
random R0:1 R2:3 R3:1 nodes=3,9-12
low-stall R3:4 R2:1 nodes=9,12-15
fewer-router R1:4 R3:1 nodes=4-7,12"
}

@test "random: the same seed gives the same nodes, another seed others" {
	local dir=$BATS_TEST_TMPDIR a b c
	sed 's/seed=7/seed=8/' "$ROOT/examples/nedd-window.scenario" >"$dir/s8.scenario"
	a=$(make -s -C "$ROOT" alloc SCENARIO=examples/nedd-window.scenario POLICY=random)
	b=$(make -s -C "$ROOT" alloc SCENARIO=examples/nedd-window.scenario POLICY=random)
	c=$("$ROOT/build/c/tb-alloc" "$dir/s8.scenario" random)
	assert_equal "$a" "$b"
	[ "$a" != "$c" ]
}

@test "fewer free nodes than the job asks: every strategy waits" {
	local s=$BATS_TEST_TMPDIR/full.scenario
	sed 's/job nodes=5/job nodes=20/' "$ROOT/examples/nedd-window.scenario" >"$s"
	run "$ROOT/build/c/tb-alloc" "$s" nedd
	assert_success
	assert_output "nedd wait 19 free nodes, the job asks for 20"
}

@test "a bad router line is one error naming the file and line" {
	local s=$BATS_TEST_TMPDIR/bad.scenario
	printf 'router R0 4\nrunning nodes=0 start=10 end=20\nnow 15\njob nodes=1\n' >"$s"
	run "$ROOT/build/c/tb-alloc" "$s"
	assert_failure 1
	assert_output "tb-alloc: $s:2: running: end=20 is after now (15): leave end out for a job still running"
}

@test "cori's topology.json: 3,054 routers of up to 4 nodes for the router strategies" {
	local topo=$ROOT/build/test-config/cori/topology.json
	# Every node has its router; fewer-router fills whole routers.
	run "$ROOT/build/c/tb-alloc" --topology "$topo" --job nodes=8 fewer-router
	assert_success
	assert_output "fewer-router nid00000,nid00001,nid00002,nid00003,nid00004,nid00005,nid00006,nid00007"
	assert_equal "$(jq '[.nodes[].router] | unique | length' "$topo")" 3054
	run "$ROOT/build/c/tb-alloc" --topology "$topo" --busy nid00001 --job nodes=4 fewer-router
	assert_output "fewer-router nid00004,nid00005,nid00006,nid00007"
}

@test "--pressure: a router scenario's U, G and factor; with --topology, one error naming both" {
	# The traffic T is the scenario's (router and running lines): a
	# topology and busy lists have none, so state mode refuses the flag
	# rather than print the placement without it.
	run "$ROOT/build/c/tb-alloc" "$ROOT/examples/nedd-window.scenario" ltr --pressure
	assert_success
	assert_output "ltr R3:4 R5:1 nodes=12-15,20 pressure_u=0 pressure_g=7.945375 runtime_factor=2.2537325"
	run "$ROOT/build/c/tb-alloc" --topology "$ROOT/build/test-config/cori/topology.json" \
		--job nodes=4,app=miniMD --pressure ltr
	assert_equal "$status" 2
	assert_output "tb-alloc: --pressure needs a router scenario's traffic: give a scenario file, not --topology"
}
