#!/usr/bin/env bats
# Kind tofa end to end (workloads/experiment/tofa.py): the smoke definition
# (experiments/tofa-smoke.exp: lammps-64 twice on torus64 under default and
# scotch0) runs its replays in Slurm, each job's runtime follows the TOFA
# model (the record's runtime_model=tofa, runtime_scaled = T0 ((1 - f) + f
# C / C0)), and the table sets ours beside the paper's.

setup_file() {
	load helpers
	export RESULTS_DIR=$BATS_FILE_TMPDIR/results
	make -s -C "$ROOT" experiment EXP=tofa-smoke >"$BATS_FILE_TMPDIR/out" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/out" >&3; return 1; }
}

setup() {
	load helpers
	EXP_DIR=$(ls -d "$BATS_FILE_TMPDIR"/results/experiments/tofa-smoke-*)
}

@test "tofa-smoke: both runs finish and the table has our rows and the paper's" {
	run cat "$EXP_DIR/table.md"
	assert_output --partial "| lammps-64 | torus64 | default | 2 | 0.2937 | 1.0000 | 300.0 |"
	assert_output --partial "| lammps-64 | torus64 | scotch0 | 2 | 0.2937 |"
	assert_output --partial "| lammps-64 | torus64 | below_pct | default | 0.0 |"
	refute_output --partial "did not follow the TOFA model"
}

@test "tofa-smoke: each job slept T0 ((1 - f) + f C / C0) as its record says" {
	local sacct
	for sacct in "$EXP_DIR"/runs/*/sacct.json; do
		run jq -r '.jobs[].comment.administrator' "$sacct"
		assert_output --partial ";runtime_model=tofa;"
		# runtime_scaled from the record's own C and C0, f = 0.2937 (tofa-f.tsv)
		run jq -r '.jobs[].comment.administrator
			| capture("runtime_scaled=(?<s>[0-9.e+]+);.*tofa_hops=(?<h>[0-9.e+]+);.*tofa_c0=(?<c>[0-9.e+]+)")
			| [.s, .h, .c] | @tsv' "$sacct"
		assert_success
		[ -n "$output" ] || fail "no record with runtime_scaled, tofa_hops and tofa_c0 in $sacct"
		awk -F'\t' '{want = 300 * (0.7063 + 0.2937 * $2 / $3); d = $1 - want;
			if (d > 0.01 || d < -0.01) {print "scaled " $1 ", model " want; exit 1}}' <<<"$output" ||
			fail "a runtime off the model"
	done
}
