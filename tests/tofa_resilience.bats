#!/usr/bin/env bats
# Kind tofa-resilience end to end, tiny (experiments/tofa-resilience-smoke.exp):
# LAMMPS-64 on torus64, default and tofa, 1 batch of 2 instances, 2 risky
# nodes at pf 0.3; the table has both policies' rows and the directions.

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools >/dev/null
	make -s -C "$ROOT" down >/dev/null
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" down >/dev/null 2>&1 || true
}

setup() { load helpers; }

@test "make experiment EXP=tofa-resilience-smoke: two runs, a table with both policies" {
	run env RESULTS_DIR="$BATS_FILE_TMPDIR/results" make -s -C "$ROOT" experiment EXP=tofa-resilience-smoke
	assert_success
	local dir
	dir=$(find "$BATS_FILE_TMPDIR/results/experiments" -maxdepth 1 -name 'tofa-resilience-smoke-*' | head -n 1)
	[ -f "$dir/table.md" ] || fail "no table.md in $dir"
	run cat "$dir/table.md"
	assert_output --partial "## lammps-64, nf = 2"
	assert_output --partial "| 0 |"
	assert_output --partial "## The paper's directions"
	run grep -c '^lammps-64,2,' "$dir/table.csv"
	assert_output 2
	# Every run ended with its 2 instances completed, counted from sacct.
	run bash -c "jq -r '.[0].completed' '$dir'/runs/*/batches.json"
	assert_output "2
2"
}
