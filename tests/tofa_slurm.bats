#!/usr/bin/env bats
# TOFA inside Slurm, on torus64 (a 4x4x4 torus, node id = x + 4y + 16z):
# a job under POLICY=tofa gets the library's nodes and rank -> node map
# (TESTBED_RANK_NODES, as TreeMatch's), the controller reads the outage
# probabilities from outage.txt and re-reads it when it changes, and a
# risky node is avoided whenever a clean window exists.

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools >/dev/null
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=torus64 POLICY=tofa >/dev/null
	make -s -C "$ROOT" exec CMD='printf "ranks 4\n0 1 1\n1 2 1\n2 3 1\n" > /tmp/chain4.txt'
}

teardown_file() {
	load helpers
	rm -f "$(outage_file)"
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

ctl_sh() { make -s -C "$ROOT" exec CMD="$1"; }

# The generated cluster directory the controller reads (scripts/lib/config.bash).
outage_file() {
	echo "$(cluster_dir torus64)/outage.txt"
}

admin_comment() {
	wait_for 30 bash -c "make -s -C '$ROOT' exec CMD='scontrol show job $1' | grep -q 'AdminComment=policy='" ||
		fail "job $1 has no AdminComment"
	ctl_sh "scontrol show job $1" | sed -n 's/.*AdminComment=\([^ ]*\).*/\1/p'
}

# The job's TESTBED_RANK_NODES, from its output on the front end.
rank_nodes() {
	local emu
	emu=$(docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT" \
		--filter label=com.docker.compose.service=emu1)
	wait_for 30 bash -c "docker exec $emu cat /tmp/tofa-$1.out 2>/dev/null | grep -q TESTBED_RANK_NODES=." ||
		fail "no TESTBED_RANK_NODES in job $1's output"
	docker exec "$emu" cat "/tmp/tofa-$1.out" | sed -n 's/^TESTBED_RANK_NODES=//p'
}

# The library's map on the same state (a torus scenario), as node names.
library_map() {
	local f=$BATS_TEST_TMPDIR/state.scenario
	printf 'torus 4 4 4\n%s\nedge 0 1 1\nedge 1 2 1\nedge 2 3 1\njob nodes=4\n' "$1" >"$f"
	"$ROOT/build/c/tb-alloc" "$f" tofa | sed -n 's/.* map=\([0-9,]*\) .*/\1/p' |
		tr , '\n' | while read -r id; do printf 't%03d\n' "$id"; done | paste -sd,
}

# One field (cost, hops, abort) of the library's tofa line on that state.
library_field() {
	local f=$BATS_TEST_TMPDIR/state.scenario
	printf 'torus 4 4 4\n%s\nedge 0 1 1\nedge 1 2 1\nedge 2 3 1\njob nodes=4\n' "$1" >"$f"
	"$ROOT/build/c/tb-alloc" "$f" tofa | sed -n "s/.* $2=\([^ ]*\).*/\1/p"
}

submit() {
	ctl_sh "sbatch --parsable -N 4 --exclusive --comm-matrix=/tmp/chain4.txt -o /tmp/tofa-%j.out --wrap='echo TESTBED_RANK_NODES=\$TESTBED_RANK_NODES'"
}

@test "tofa in Slurm: the library's nodes and map, node 2 risky avoided (window 3-6)" {
	printf '# test\nt002 0.02\n' >"$(outage_file)"
	local id want
	id=$(submit)
	run admin_comment "$id"
	assert_output --partial "policy=tofa;"
	assert_output --partial ";risky_nodes=1;scotch=7.0.7"
	refute_output --partial "fallback="
	# Node 2 is none of the job's nodes; a route may still pass it (the
	# window is consecutive ids, not a box: 3 -> 6 goes x first, through
	# 2), so the abort probability is what the library says, not 0.
	want=$(library_map "risky 2")
	[ -n "$want" ] || fail "tb-alloc gave no map"
	run rank_nodes "$id"
	assert_output "$want"
	# The window 3-6: t003..t006 in some order.
	assert_equal "$(tr , '\n' <<<"$output" | sort | paste -sd,)" "t003,t004,t005,t006"
	run admin_comment "$id"
	assert_output --partial ";tofa_abort=$(library_field "risky 2" abort);"
	wait_for 30 job_completed "$id" || fail "job $id did not complete"
}

@test "a new outage.txt is read at the next job: nodes 3 and 4 risky, window 5-8" {
	printf 't003 0.02\nt004 0.02\n' >"$(outage_file)"
	local id
	id=$(submit)
	run admin_comment "$id"
	assert_output --partial ";risky_nodes=2;"
	run rank_nodes "$id"
	assert_output "$(library_map "risky 3,4")"
	assert_equal "$(tr , '\n' <<<"$output" | sort | paste -sd,)" "t005,t006,t007,t008"
	wait_for 30 job_completed "$id" || fail "job $id did not complete"
}

@test "a bad outage.txt is logged and the last good one kept; slurmctld lives" {
	printf 't003 0.02\nt999 0.5\n' >"$(outage_file)"
	local id
	id=$(submit)
	run admin_comment "$id"
	assert_output --partial ";risky_nodes=2;"
	run make -s -C "$ROOT" logs SERVICE=slurmctld
	assert_output --partial "outage.txt:2: unknown node 't999'; keeping the outage probabilities read before"
	wait_for 30 job_completed "$id" || fail "job $id did not complete"
}

@test "the runtime model: a matrix job sleeps T0 ((1 - f) + f C / C0), C its hops as it runs, C0 default's on the empty torus" {
	# Node 1 risky: the window 2-5, where the chain costs 4 hops (3 -> 4
	# goes round x and up y); default on the empty torus takes 0-3: 3.
	printf 't001 0.02\n' >"$(outage_file)"
	local id hops want
	hops=$(library_field "risky 1" hops)
	[ "$hops" = 4 ] || fail "tb-alloc: hops $hops, expected 4"
	id=$(ctl_sh "sbatch --parsable -N 4 --exclusive --comm-matrix=/tmp/chain4.txt --comment=1:rd:50:100 -o /tmp/tofa-%j.out --wrap='echo TESTBED_RUNTIME_SCALED=\$TESTBED_RUNTIME_SCALED'")
	run admin_comment "$id"
	want=$(awk 'BEGIN {printf "%.6g", 100 * (0.5 + 0.5 * 4 / 3)}')
	assert_output --partial ";runtime_base=100;runtime_scaled=$want;"
	assert_output --partial ";runtime_model=tofa;"
	assert_output --partial ";tofa_hops=4;"
	assert_output --partial ";tofa_c0=3;"
	refute_output --partial "runtime_fallback="
	wait_for 30 job_completed "$id" || fail "job $id did not complete"
	local emu
	emu=$(docker ps -q --filter "label=com.docker.compose.project=${TESTBED_PROJECT:-testbed}" \
		--filter label=com.docker.compose.service=emu1)
	run docker exec "$emu" cat "/tmp/tofa-$id.out"
	assert_output "TESTBED_RUNTIME_SCALED=116.667"
}
