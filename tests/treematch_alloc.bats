#!/usr/bin/env bats
# TreeMatch without a cluster (issue 27, point 3): make alloc on scenarios
# with cores, partly busy nodes and a rank matrix. The paper's Figure 2
# (IJHPCA 2018: hop-bytes 360, and 660 with only the even cores free)
# first; the hand-worked cases of tests/fixtures/alloc apart. The library's
# own checks are in tests/c/test_place_cores.c.

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools
}

setup() { load helpers; }

@test "make alloc: Figure 2, no constraint: TreeMatch's map has hop-bytes 360" {
	run make -s -C "$ROOT" alloc SCENARIO=examples/treematch-figure2.scenario POLICY=tm-i
	assert_success
	assert_output "tm-i nodes=0-1 ranks=0,1,1,0 hopbytes=360 nodehopbytes=60"
	# Default: s0's 4 cores, ranks in blocks.
	run make -s -C "$ROOT" alloc SCENARIO=examples/treematch-figure2.scenario POLICY=default
	assert_output "default nodes=0-1 ranks=0,0,1,1 hopbytes=570 nodehopbytes=270"
}

@test "make alloc: Figure 2, only the even cores free: hop-bytes 660" {
	run make -s -C "$ROOT" alloc SCENARIO=examples/treematch-figure2-even.scenario POLICY=tm-i
	assert_success
	assert_output "tm-i nodes=0-3 ranks=0,2,3,1 hopbytes=660 nodehopbytes=360"
	run make -s -C "$ROOT" alloc SCENARIO=examples/treematch-figure2-even.scenario POLICY=default
	assert_output "default nodes=0-3 ranks=0,1,2,3 hopbytes=870 nodehopbytes=570"
}

@test "make alloc: every policy prints nodes, ranks and both hop-bytes; every TreeMatch strategy reaches 360" {
	run make -s -C "$ROOT" alloc SCENARIO=examples/treematch-figure2.scenario
	assert_success
	local policies line
	policies=$(awk -F'\t' '$3 !~ /torus/ {print $1}' "$TB_BUILD/policies.tsv")
	[ "$(wc -l <<<"$output")" -eq "$(wc -l <<<"$policies")" ]
	for p in $policies; do
		line=$(grep "^$p " <<<"$output") || fail "no line for $p"
		[[ $line =~ ^$p\ nodes=[0-9,-]+\ ranks=[0-9]+(,[0-9]+){3}\ hopbytes=[0-9.]+\ nodehopbytes=[0-9.]+$ ]] ||
			fail "$line"
	done
	for p in tm-a tm-i tm-sub tm-sub3; do
		assert_line "$p nodes=0-1 ranks=0,1,1,0 hopbytes=360 nodehopbytes=60"
	done
}

@test "make alloc: hand-worked, core by core: TreeMatch 404 against default's 802" {
	run make -s -C "$ROOT" alloc SCENARIO=tests/fixtures/alloc/cross.scenario
	assert_success
	assert_line "default nodes=2-3 ranks=2,2,3,3 hopbytes=802 nodehopbytes=400"
	for p in tm-a tm-i tm-sub tm-sub3; do
		assert_line --regexp "^$p nodes=2-3 ranks=(2,3,2,3|3,2,3,2) hopbytes=404 nodehopbytes=2$"
	done
	# firstfit takes whole nodes 1 and 2, across the root: 100x6x2 + 1x2.
	assert_line "firstfit nodes=1-2 ranks=1,1,2,2 hopbytes=1202 nodehopbytes=800"
	# The partly busy node 0 is no one's.
	refute_output --regexp "nodes=0"
}

@test "make alloc: hand-worked, -n 4 -N 2: ranks in blocks under every policy, TreeMatch's too" {
	run make -s -C "$ROOT" alloc SCENARIO=tests/fixtures/alloc/cross-nodes.scenario
	assert_success
	for p in default tm-a tm-i tm-sub tm-sub3; do
		assert_line "$p nodes=2-3 ranks=2,2,3,3 hopbytes=802 nodehopbytes=400"
	done
}

@test "make alloc: a scenario of node jobs is printed as before" {
	run make -s -C "$ROOT" alloc SCENARIO=examples/figure5.scenario
	assert_success
	assert_output "eval s0:2 s1:2 cost=15.5"
	run make -s -C "$ROOT" alloc SCENARIO=examples/table2.scenario POLICY=default
	assert_success
	assert_output --regexp "^default [^ ]+:[0-9]+.* cost=[0-9.]+ nodes=[0-9,-]+$"
}

@test "make alloc: a pair given twice, or more ranks on a node than its cores, is one line" {
	local bad=$BATS_TEST_TMPDIR/bad.scenario
	printf 'cores 2\nleaf a 2 0 0\npair 0 1 5\npair 1 0 5\njob ranks=4\n' >"$bad"
	run make -s -C "$ROOT" alloc SCENARIO="$bad"
	assert_failure
	assert_line --index 0 "tb-alloc: $bad:4: pair 1 0 given twice (line 3): each pair once"
	printf 'cores 2\nleaf a 4 0 0\npair 0 1 5\njob ranks=5 nodes=2\n' >"$bad"
	run make -s -C "$ROOT" alloc SCENARIO="$bad" POLICY=default
	assert_failure
	assert_line "default -"
	assert_line "tb-alloc: default: ranks=5 in blocks over nodes=2 put more ranks on a-0 than its 2 cores"
}
