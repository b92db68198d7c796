#!/usr/bin/env bats
# Kind nedd end to end (needs Docker): make experiment EXP=nedd-dfly-smoke
# on the 32-node test dragonfly dfly, shortened to one repetition (REPS=1):
# NeDD, Random and No-Congestor; each application job sleeps the runtime
# NeDD's model gave it (its record's runtime_scaled, runtime_model=nedd),
# and the table has the kind's sections with a row per application and
# strategy. About 15 minutes on a loaded machine (three dfly bring-ups).
# Every lane first runs the warm-up repetition r00 (counted in no figure,
# nedd_jobs.WARMUP): the checks below are on r01's jobs.

setup() {
	load helpers
}

@test "make experiment EXP=nedd-dfly-smoke REPS=1: three runs, modelled sleeps, the table's shape" {
	local results=$BATS_TEST_TMPDIR/results dir rd
	run make -s -C "$ROOT" experiment EXP=nedd-dfly-smoke REPS=1 RESULTS_DIR="$results"
	assert_success
	assert_line --partial "3/3 runs ->"
	dir=$(ls -d "$results"/experiments/nedd-dfly-smoke-*)
	# One row per application (2) and strategy (NeDD, Random, No-Congestor),
	# each with one repetition.
	for row in "miniMD | NeDD | 1 |" "miniMD | Random | 1 |" "miniMD | No-Congestor | 1 |" \
		"HPCG | NeDD | 1 |" "HPCG | Random | 1 |" "HPCG | No-Congestor | 1 |"; do
		grep -qF "| $row" "$dir/table.md" || fail "table.md lacks '| $row': $(cat "$dir/table.md")"
	done
	grep -qE '^\| miniMD \| Random \| -?[0-9.]+ \| -?[0-9.]+ \| - \| - \| calibrated \|$' "$dir/table.md"
	grep -qF '## Insensitive applications against No-Congestor' "$dir/table.md"
	assert_equal "$(($(wc -l <"$dir/table.csv") - 1))" 6
	# The congestor's run: each application job's record has the NeDD
	# model, and its sleep (sacct's end - start) is at least the modelled
	# runtime (miniMD's is 4 to 5 x its T0 of 100 s, so a job sleeping T0
	# fails), late by the emulation's completion lag: at rate 100 on a
	# loaded machine up to 200 s was measured (docs/results/2026-11-26-nedd.md).
	rd=$(ls -d "$dir"/runs/*-nedd)
	jq -e '[.jobs[] | select(.name | test("r01-.*-1-(miniMD|HPCG)$"))] | length == 2' "$rd/sacct.json"
	jq -e '[.jobs[] | select(.name | test("r01-.*-1-(miniMD|HPCG)$"))
		| (.comment.administrator | capture("runtime_scaled=(?<s>[0-9.]+);runtime_model=nedd").s
		   | tonumber) as $s
		| (.time.end - .time.start) as $t
		| ($t >= $s - 1 and $t <= $s + 400)] | all' "$rd/sacct.json" ||
		fail "sleeps off the model: $(jq -c '.jobs[] | [.name, .time.end - .time.start, .comment.administrator]' "$rd/sacct.json" | grep -o 'runtime_scaled=[0-9.]*' )"
	# miniMD slowed by the congestor, HPCG hardly (sigma, nedd_runtime.c).
	jq -e '[.jobs[] | select(.name | test("r01-.*-1-miniMD$")) | .comment.administrator
		| capture("runtime_factor=(?<f>[0-9.]+)").f | tonumber] | .[0] > 2' "$rd/sacct.json"
	assert_equal "$(docker ps -q --filter "label=com.docker.compose.project=$(basename "$dir")-1" | wc -l)" 0
}
