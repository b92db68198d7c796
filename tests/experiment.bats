#!/usr/bin/env bats
# make experiment: the list of definitions, a bad EXP, tables from
# hand-made runs (tests/fixtures/experiment: a default and a greedy run of
# the same 3 jobs, SPEEDUP 3600 so that one wall second is one log hour),
# and, last, one whole small experiment on tiny (needs Docker).

setup() {
	load helpers
	FX=$BATS_TEST_DIRNAME/fixtures/experiment
	OUT=$BATS_TEST_TMPDIR/table
}

table() {
	python3 "$ROOT/workloads/experiment.py" table --def "$FX/$1.exp" --out "$OUT" \
		"${@:2}" "$FX/runs/default" "$FX/runs/greedy"
}

# csv_row <column values joined by ,> : the exact line must be in table.csv.
csv_has() { grep -qxF "$1" "$OUT/table.csv" || fail "table.csv lacks: $1 ($(cat "$OUT/table.csv"))"; }

@test "make experiment alone lists every definition, one line each" {
	run make -s -C "$ROOT" experiment
	assert_success
	local f
	for f in "$ROOT"/experiments/*.exp; do
		f=${f##*/}
		grep -qE "^  ${f%.exp} +[A-Za-z]" <<<"$output" || fail "${f%.exp} is not listed"
	done
	assert_equal "$(($(wc -l <<<"$output") - 1))" "$(ls "$ROOT"/experiments/*.exp | wc -l)"
}

@test "an unknown EXP is a one-line error naming the valid ones" {
	run make -s -C "$ROOT" experiment EXP=atlantis
	assert_failure
	assert_line --index 0 --partial "error: unknown EXP 'atlantis'; valid: icpp-fig8 "
	assert_equal "$(grep -c '^error' <<<"$output")" 1
}

@test "every definition parses and plans its runs" {
	local f name
	for f in "$ROOT"/experiments/*.exp; do
		name=$(basename "$f" .exp)
		run python3 "$ROOT/workloads/experiment.py" plan "$name" --id "t-$name" \
			--out "$BATS_TEST_TMPDIR/$name"
		assert_success
		[ -s "$BATS_TEST_TMPDIR/$name/runs.tsv" ] || fail "$name: no runs"
	done
	# Table 3: the baseline once (its runtimes do not depend on the
	# pattern), the three other policies per pattern.
	assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/icpp-table3-theta/runs.tsv")" 7
	assert_equal "$(cut -f2,4,6 "$BATS_TEST_TMPDIR/icpp-table3-theta/runs.tsv" | head -n 2 | tr '\t\n' ' ')" \
		"t-icpp-table3-theta-1 hpc2010 default1905 t-icpp-table3-theta-2 hpc2010 greedy "
	# Figure 8: one baseline (default1905) run per log, Mira and Intrepid at SCALE=4.
	grep -qE "^mira	cori	.*SCALE=4 " <(cut -f3,4,7 "$BATS_TEST_TMPDIR/icpp-fig8/runs.tsv")
	grep -qE "^theta	hpc2010	.*SCALE=1 " <(cut -f3,4,7 "$BATS_TEST_TMPDIR/icpp-fig8/runs.tsv")
}

@test "bad overrides and definitions are one-line errors, nothing written" {
	run python3 "$ROOT/workloads/experiment.py" plan icpp-table3-theta --id x \
		--out "$BATS_TEST_TMPDIR/x" --set JOBS=many
	assert_failure
	assert_output "error: JOBS=many: expected a whole number"
	[ ! -e "$BATS_TEST_TMPDIR/x" ] || fail "a half-made experiment directory is left"
	run python3 "$ROOT/workloads/experiment.py" plan icpp-table3-theta --id x \
		--out "$BATS_TEST_TMPDIR/x" --set POLICIES="greedy balanced"
	assert_output "error: the baseline 'default1905' is not among the policies 'greedy balanced'"
	printf 'logs = theta\ncluster = tiny\npolicies = default\npatterns = rd\nspeed = 3\n' >"$BATS_TEST_TMPDIR/bad.exp"
	run python3 "$ROOT/workloads/experiment.py" plan "$BATS_TEST_TMPDIR/bad.exp" --id x --out "$BATS_TEST_TMPDIR/x"
	assert_failure
	assert_output "error: $BATS_TEST_TMPDIR/bad.exp:5: unknown key 'speed'"
	run make -s -C "$ROOT" experiment EXP=smoke-tiny LOG=mira
	assert_failure
	assert_output --partial "LOG=mira: an experiment's logs come from its definition"
}

@test "continuous table: ours and the paper's side by side, % against default, ordering" {
	run table continuous
	assert_success
	# default 20 h executing and 2 h waiting; greedy 22 h (+10%), 3 h (+50%).
	csv_has "theta,rd,default,exec_hours,20,0.000,20,0.000,RD"
	csv_has "theta,rd,greedy,exec_hours,22,10.000,25,25.000,RG"
	csv_has "theta,rd,greedy,wait_hours,3,50.000,3,-25.000,RG"
	grep -qF '| theta | rd | greedy | 22.0 | +10.0% | 25 | +25.0% | 3.0 | +50.0% | 3 | -25.0% |' "$OUT/table.md"
	grep -qF '| theta | rd | exec_hours | default < greedy | default < greedy | yes | yes |' "$OUT/table.md"
	grep -qF '| theta | rd | wait_hours | default < greedy | greedy < default | no | no |' "$OUT/table.md"
	grep -qF -- '- a fixture' "$OUT/table.md"
}

@test "continuous table: overrides are stated, a shared baseline is named" {
	table continuous --set JOBS=2 --set PATTERNS="rd rhvd"
	grep -qF -- '- JOBS=2 given on the command line (definition: 3)' "$OUT/table.md"
	grep -qF '| theta | rhvd | default (the rd run) | 20.0 |' "$OUT/table.md"
	grep -qF '| theta | rhvd | greedy (not run) | - |' "$OUT/table.md"
}

@test "shadow table (Table 4 substitute): same-state improvements as report.py computes them" {
	run table shadow
	assert_success
	# All jobs as tests/report.bats: greedy -10, balanced and adaptive 4.5;
	# communication-intensive jobs a and c: -20, 9, 9.
	csv_has "theta,rd,greedy,2,-20.0000,-10.0000,-20.0000,1,RD"
	csv_has "theta,rd,balanced,2,9.0000,4.5000,9.0000,3,RD"
	grep -qF '| theta | rd | adaptive = balanced > greedy | balanced > adaptive > greedy | no |' "$OUT/table.md"
}

@test "cost-by-size table (Figure 8): mean cost per size range and the paper's text numbers" {
	run table sizes
	assert_success
	csv_has "theta,rd,1-2,1,4,0.000,4,0.000,2,-50.000,2,-50.000,RD"
	csv_has "theta,rd,3-4,1,4,0.000,6,50.000,4,0.000,4,0.000,RD"
	csv_has "theta,rd,all,2,4,0.000,5,25.000,3,-25.000,3,-25.000,RD"
	grep -qF '| mean of theta | rd | greedy | -25.00 | 3.4 |' "$OUT/table.md"
	grep -qF '| theta | rd | all policies | 8.33 | 15.88 |' "$OUT/table.md"
}

@test "two runs of the same log, pattern and policy are refused" {
	cp -r "$FX/runs/greedy" "$BATS_TEST_TMPDIR/g2"
	run python3 "$ROOT/workloads/experiment.py" table --def "$FX/continuous.exp" --out "$OUT" \
		"$FX/runs/greedy" "$BATS_TEST_TMPDIR/g2"
	assert_failure
	assert_output "error: two runs of theta/rd/greedy: RG and RG"
}

# End to end (Docker): two small replays on their own tiny testbeds, side
# by side, the table, and no testbed left up.
@test "make experiment EXP=smoke-tiny runs both replays and writes the table" {
	local results=$BATS_TEST_TMPDIR/results dir
	run make -s -C "$ROOT" experiment EXP=smoke-tiny RESULTS_DIR="$results"
	assert_success
	assert_line --partial "2/2 runs ->"
	dir=$(ls -d "$results"/experiments/smoke-tiny-*)
	grep -qE '^\| theta \| rd \| greedy \| [0-9.,]+ \| [+-][0-9.]+% \|' "$dir/table.md"
	assert_equal "$(($(wc -l <"$dir/table.csv") - 1))" 4
	[ -f "$dir/state/1.done" ] && [ -f "$dir/state/2.done" ]
	assert_equal "$(jq -r .finished "$dir"/runs/*-theta-greedy/manifest.json)" true
	assert_equal "$(docker ps -q --filter "label=com.docker.compose.project=$(basename "$dir")-1" | wc -l)" 0
	assert_equal "$(docker ps -q --filter "label=com.docker.compose.project=$(basename "$dir")-2" | wc -l)" 0
}
