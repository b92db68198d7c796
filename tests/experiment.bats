#!/usr/bin/env bats
# make experiment: the list of definitions, a bad EXP, tables from
# hand-made runs (tests/fixtures/experiment: a default and a greedy run of
# the same 3 jobs, SPEEDUP 3600 so that one wall second is one log hour;
# sc18-runs: TO and TA runs of 4 jobs at two loads, for kind sc18), and,
# last, one whole small experiment on tiny (needs Docker).

setup() {
	load helpers
	FX=$BATS_TEST_DIRNAME/fixtures/experiment
	OUT=$BATS_TEST_TMPDIR/table
}

table() {
	python3 -m workloads.experiment table --def "$FX/$1.exp" --out "$OUT" \
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
		run python3 -m workloads.experiment plan "$name" --id "t-$name" \
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
	run python3 -m workloads.experiment plan icpp-table3-theta --id x \
		--out "$BATS_TEST_TMPDIR/x" --set JOBS=many
	assert_failure
	assert_output "error: JOBS=many: expected a whole number"
	[ ! -e "$BATS_TEST_TMPDIR/x" ] || fail "a half-made experiment directory is left"
	run python3 -m workloads.experiment plan icpp-table3-theta --id x \
		--out "$BATS_TEST_TMPDIR/x" --set POLICIES="greedy balanced"
	assert_output "error: the baseline 'default1905' is not among the policies 'greedy balanced'"
	printf 'logs = theta\ncluster = tiny\npolicies = default\npatterns = rd\nspeed = 3\n' >"$BATS_TEST_TMPDIR/bad.exp"
	run python3 -m workloads.experiment plan "$BATS_TEST_TMPDIR/bad.exp" --id x --out "$BATS_TEST_TMPDIR/x"
	assert_failure
	assert_output "error: $BATS_TEST_TMPDIR/bad.exp:5: unknown key 'speed'"
	# LOGS narrows the definition's logs; another log lacks its parameters.
	run python3 -m workloads.experiment plan sc18-cab --id x \
		--out "$BATS_TEST_TMPDIR/x" --set LOGS="curie theta"
	assert_failure
	assert_output "error: LOGS=curie theta: expected some of the definition's logs: curie lublin"
	run python3 -m workloads.experiment plan sc18-cab --id y \
		--out "$BATS_TEST_TMPDIR/y" --set LOGS=curie --set LOADS=1 --set FULL=1
	assert_success
	assert_equal "$(cut -f3 "$BATS_TEST_TMPDIR/y/runs.tsv" | sort -u)" curie
	assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/y/runs.tsv")" 7
	# A paper table asking for the scaled clock says why, or is refused.
	printf 'logs = theta\ncluster = tiny\npolicies = default\npatterns = rd\nCLOCK = scaled\npaper.exec_hours.theta.*.default = 1\n' >"$BATS_TEST_TMPDIR/scaled.exp"
	run python3 -m workloads.experiment plan "$BATS_TEST_TMPDIR/scaled.exp" --id x --out "$BATS_TEST_TMPDIR/x"
	assert_failure
	assert_output "error: $BATS_TEST_TMPDIR/scaled.exp: CLOCK = scaled (all logs) in a definition with the paper's numbers: the scaled clock is for smoke tests; use CLOCK = virtual, or say why in 'clock_reason = ...'"
	[ ! -e "$BATS_TEST_TMPDIR/x" ] || fail "a half-made experiment directory is left"
	echo 'clock_reason = a test' >>"$BATS_TEST_TMPDIR/scaled.exp"
	run python3 -m workloads.experiment plan "$BATS_TEST_TMPDIR/scaled.exp" --id x --out "$BATS_TEST_TMPDIR/x"
	assert_success
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

@test "shadow table and make report: one Eq. 7, the record's denominator, missing costs named" {
	# eq7-runs/default1905: the ICPP runs' denominator (default1905) costs
	# twice default's on job a; compute job b's costs differ by policy (it
	# keeps its runtime, P:275); c lacks greedy's cost, d the denominator's.
	# By hand, against the log's runtimes (default1905's):
	#   a (80 s, f 0.5): greedy 40 + 40 x 6/8 = 70, balanced 60, default 60
	#   c (20 s, f 0.9): balanced 2 + 18 x 2/4 = 11, default 20, greedy -
	#   all jobs with a cost (d never, c not for greedy):
	#   greedy 180 -> 170: 5.5556 %; balanced 200 -> 171: 14.5 %;
	#   default 200 -> 180: 10 %; comm jobs: 12.5, 29, 20 %.
	local run=$BATS_TEST_TMPDIR/eq7run
	cp -r "$FX/eq7-runs/default1905" "$run"
	run python3 -m workloads.experiment table --def "$FX/eq7.exp" --out "$OUT" "$run"
	assert_success
	csv_has "theta,rd,greedy,4,5.5556,5.5556,12.5000,1,RE"
	csv_has "theta,rd,balanced,4,14.5000,14.5000,29.0000,3,RE"
	csv_has "theta,rd,default,4,10.0000,10.0000,20.0000,2,RE"
	grep -qF 'theta/rd: Left out for a missing same-state cost (Eq. 7 cannot be applied; not counted as no change): default1905 1 (d); greedy 2 (c, d); balanced 1 (d); default 1 (d).' "$OUT/table.md"
	# make report on the same run: the same figures, the same jobs named,
	# and the job the plugin ran for its log runtime counted.
	run python3 -m metrics.report report "$run"
	assert_success
	local ir=.individual_runs_improvement_percent
	assert_equal "$(jq -c "[$ir.all.greedy, $ir.all.balanced, $ir.all.default, $ir.comm.greedy, $ir.comm.balanced, $ir.comm.default] | map(. * 10000 | round / 10000)" "$run/metrics.json")" \
		"[5.5556,14.5,10,12.5,29,20]"
	assert_equal "$(jq -c '.individual_runs_left_out.all.greedy' "$run/metrics.json")" '["c","d"]'
	assert_equal "$(jq -c '[.runtime_fallback_jobs, .runtime_fallback_ids]' "$run/metrics.json")" '[1,["d"]]'
	grep -qF 'greedy 2 (c, d)' "$run/summary.md"
	grep -qF '**1 jobs ran their log runtime**' "$run/summary.md"
}

@test "individual table (Table 4): measured, applied and same-state changes over the same jobs" {
	run table individual
	assert_success
	csv_has "theta,rd,greedy,3,-10.0000,-8.3333,-10.0000,-10.0000,1,RG"
	grep -qF '| theta | rd | greedy | 3 | -10.00 | -8.33 | -10.00 | -10.00 | 1.00 |' "$OUT/table.md"
	grep -qF 'Same starting state (the occupying jobs on the same nodes as in the baseline'"'"'s run): yes, in every run' "$OUT/table.md"
	# An occupying job on other nodes in one run is said loudly.
	cp -r "$FX/runs/greedy" "$BATS_TEST_TMPDIR/g"
	printf 'log_id\toffset\truntime\tnodes\tcomm\tpattern\tcomm_percent\tlimit_min\tprefill\tnodelist\nz\t0\t9\t1\t0\trd\t0\t1\t1\tt01\n' \
		>>"$BATS_TEST_TMPDIR/g/plan.tsv.new"
	mv "$BATS_TEST_TMPDIR/g/plan.tsv.new" "$BATS_TEST_TMPDIR/g/plan.tsv"
	python3 -m workloads.experiment table --def "$FX/individual.exp" --out "$OUT" \
		"$FX/runs/default" "$BATS_TEST_TMPDIR/g"
	grep -qF "run): **no**: theta/rd/greedy" "$OUT/table.md"
}

@test "a job launched after its own end is left out of the table, as make report does" {
	cp -r "$FX/runs/greedy" "$BATS_TEST_TMPDIR/g"
	# A line per job whose script began (workloads/launch.py): one missing
	# would be a job Slurm ended before it began (not_launched).
	printf 'log_id\tjob_id\tlaunch_lag_s\tlate_s\na\t1\t900\t820\nb\t2\t1\t0\nc\t3\t0\t0\n' >"$BATS_TEST_TMPDIR/g/launch.tsv"
	python3 -m workloads.experiment table --def "$FX/continuous.exp" --out "$OUT" \
		"$FX/runs/default" "$BATS_TEST_TMPDIR/g"
	grep -qF 'launched after their own end (`late_launch`) left out of their figures' "$OUT/table.md"
	grep -qF 'RG (1)' "$OUT/table.md"
	# greedy's execution hours without job a (10 h): 12 h.
	grep -qF '| theta | rd | greedy | 12.0 |' "$OUT/table.md"
}

@test "a run with jobs not placed by its policy, or resumed, is named in the table" {
	cp -r "$FX/runs/greedy" "$BATS_TEST_TMPDIR/g"
	sed -i '0,/policy=greedy/s//policy=default/' "$BATS_TEST_TMPDIR/g/sacct.json"
	jq '.resumed = true | .pauses = [] | .paused_s = 0' "$FX/runs/greedy/manifest.json" \
		>"$BATS_TEST_TMPDIR/g/manifest.json"
	run python3 -m workloads.experiment table --def "$FX/continuous.exp" --out "$OUT" \
		"$FX/runs/default" "$BATS_TEST_TMPDIR/g"
	assert_success
	grep -qF -- "- **invalid runs**, jobs without the plugin's record or placed by another policy than the run's" "$OUT/table.md"
	grep -qF 'summary.md): RG (1)' "$OUT/table.md"
	grep -qF -- '- resumed runs (' "$OUT/table.md"
	# The unchanged runs: neither.
	table continuous
	if grep -qE 'invalid runs|resumed runs' "$OUT/table.md"; then fail "flags on valid runs"; fi
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
	run python3 -m workloads.experiment table --def "$FX/continuous.exp" --out "$OUT" \
		"$FX/runs/greedy" "$BATS_TEST_TMPDIR/g2"
	assert_failure
	assert_output "error: two runs of theta/rd/greedy: RG and RG"
}

# --- sc18 (tests/fixtures/experiment/sc18-runs: the lublin log at loads 1
# and 2, TO and TA, and TA-V1 at load 1; sc18.exp works them out by hand).

sc18_table() {
	python3 -m workloads.experiment table --def "$1" --out "$OUT" "${@:2}" "$FX"/sc18-runs/*
}

# has <file> <line>: the exact line must be in the file.
has() { grep -qxF -- "$2" "$1" || fail "$(basename "$1") lacks: $2"; }

@test "sc18 plan: per log and load one TO run and one TA run per speed-up, SCALE / load, CLOCK passed on" {
	local dir=$BATS_TEST_TMPDIR/sc18
	# A plain run: the definition's select lines, Table I's four setups on
	# Curie at x1, and the table says so.
	run python3 -m workloads.experiment plan sc18-cab --id s --out "$BATS_TEST_TMPDIR/s"
	assert_success
	assert_output "experiment s: 4 replays"
	assert_equal "$(cut -f3,6 "$BATS_TEST_TMPDIR/s/runs.tsv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
		" 1 curie	firstfit; 3 curie	isolated;"
	has "$BATS_TEST_TMPDIR/s/runs.tsv" "$(printf '4\ts-4\tcurie\tcab\tmix\tisolated\tCLOCK=virtual COMM=0 FIRST=0 JOBS=500 SCALE=3.888889 SEED=0 SPEEDUP=100 TA_SPEEDUP=v2')"
	jq -e '.overrides | index("TA_SPEEDUPS=none v1 v2: the definition'"'"'s selection for a plain run (FULL=1 runs all: none 5 10 20 v1 v2)") != null' \
		"$BATS_TEST_TMPDIR/s/experiment.json" >/dev/null || fail "the selection is not recorded: $(jq -c .overrides "$BATS_TEST_TMPDIR/s/experiment.json")"
	# A named part replaces that part of the selection only.
	run python3 -m workloads.experiment plan sc18-cab --id v --out "$BATS_TEST_TMPDIR/v" --set LOGS=lublin
	assert_output "experiment v: 4 replays"
	run python3 -m workloads.experiment plan sc18-cab --id w --out "$BATS_TEST_TMPDIR/w" --set FULL=yes
	assert_failure
	assert_output "error: FULL=yes: expected 1 (the whole definition, not its select lines) or 0"
	run python3 -m workloads.experiment plan sc18-cab --id t --out "$dir" --set FULL=1
	assert_success
	assert_output "experiment t: 42 replays"
	# 2 logs x 3 loads x (TO + TA without and with 5, 10, 20 %, V1, V2).
	assert_equal "$(cut -f6 "$dir/runs.tsv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
		" 6 firstfit; 36 isolated;"
	has "$dir/runs.tsv" "$(printf '1\tt-1\tcurie\tcab\tmix\tfirstfit\tCLOCK=virtual COMM=0 FIRST=0 JOBS=500 SCALE=3.888889 SEED=0 SPEEDUP=100')"
	has "$dir/runs.tsv" "$(printf '14\tt-14\tcurie\tcab\tmix\tisolated\tCLOCK=virtual COMM=0 FIRST=0 JOBS=500 SCALE=1.9444445 SEED=0 SPEEDUP=100 TA_SPEEDUP=v2')"
	has "$dir/runs.tsv" "$(printf '40\tt-40\tlublin\tcab\tmix\tisolated\tCLOCK=virtual COMM=0 FIRST=0 JOBS=150 SCALE=0.06584366666666668 SEED=0 SPEEDUP=100 TA_SPEEDUP=20')"
	# The load and the speed-ups can be narrowed from the command line.
	run python3 -m workloads.experiment plan sc18-cab --id u --out "$BATS_TEST_TMPDIR/u" \
		--set LOADS=2 --set TA_SPEEDUPS="none v1" --set CLOCK=scaled --set FULL=1
	assert_success
	assert_output "experiment u: 6 replays"
	has "$BATS_TEST_TMPDIR/u/runs.tsv" "$(printf '6\tu-6\tlublin\tcab\tmix\tisolated\tCLOCK=scaled COMM=0 FIRST=0 JOBS=150 SCALE=0.0987655 SEED=0 SPEEDUP=100 TA_SPEEDUP=v1')"
}

@test "sc18 table: the paper's per-minute utilization, makespan, waits by size, against TO" {
	run sc18_table "$FX/sc18.exp"
	assert_success
	local runs=$OUT/table-runs.csv
	# As worked out in sc18.exp: utilization median and mean of the
	# per-minute samples, report.py's, makespan, waits overall and by size.
	has "$runs" "lublin,1,TO,firstfit,,0.197531,4,0,4,1,0.8,0.8,5,0.5,0,1,0.6666666667,3,L1TO"
	has "$runs" "lublin,1,TA,isolated,,0.197531,4,0,4,0.75,0.6666666667,0.6666666667,6,1.25,1,1,1.333333333,3,L1TA"
	has "$runs" "lublin,1,TA-V1,isolated,v1,0.197531,4,0,3.5,1,0.7,0.7,5,0.5,0,1,0.6666666667,3,L1V1"
	has "$runs" "lublin,2,TA,isolated,,0.0987655,4,1,4.25,0.75,0.7083333333,0.7083333333,6,2,4,1,1.333333333,3,L2TA"
	grep -qF '| lublin | x2 | TA-V1 (not run) |' "$OUT/table.md"
	grep -qF '| lublin | x1 | TA | 0.75 | 1.20 | 2.50 | - | 2.00 | 4 | 2.50 |' "$OUT/table.md"
	grep -qF -- '- 1 job of the lublin window larger than the cluster skipped at load x2' "$OUT/table.md"
	# One figure of each kind: absolute (ratio), change, difference, a
	# size range in two units, another machine, a setup not run.
	has "$OUT/table.csv" "1,Aug on Tiny,tiny,wait_mean_h,TA,.5 h,1 h,2.000,up,lublin,h,0.5000,1.2500,2.500,up,yes,L1TO,L1TA"
	has "$OUT/table.csv" "1,Aug on Tiny,tiny,wait_mean_h,TA-V1,.5 h,.4 h,0.800,down,lublin,h,0.5000,0.5000,1.000,=,no,L1TO,L1V1"
	has "$OUT/table.csv" "1,Aug on Tiny,tiny,wait_increase_min,TA,,+45 min,,up,lublin,min,30.0000,75.0000,2.500,up,yes,L1TO,L1TA"
	has "$OUT/table.csv" "1,Aug on Tiny,tiny,wait_3-8_h,TA,10 min,8 h,48.000,up,lublin,h,0.6667,1.3333,2.000,up,yes,L1TO,L1TA"
	has "$OUT/table.csv" "2,Aug-2x on Tiny,tiny,utilization_drop_pct,TA,,10 % drop,0.900,down,lublin,fraction,1.0000,0.7500,0.750,down,yes,L2TO,L2TA"
	has "$OUT/table.csv" "2,Aug-2x on Tiny,tiny,makespan_increase_pct,TA,,+9 %,1.090,up,lublin,h,5.0000,6.0000,1.200,up,yes,L2TO,L2TA"
	has "$OUT/table.csv" "2,Nov-2x on Tiny,tiny,wait_mean_h,TA-V1,240 h,266 h,1.108,up,lublin,h,1.5000,,,,,L2TO,"
	has "$OUT/table.csv" "2,Aug-2x on Pinot,pinot,wait_mean_h,TA,110 h,148 h,1.345,up,lublin,h,1.5000,2.0000,1.333,up,yes,L2TO,L2TA"
	grep -qF '| x1 | Aug on Tiny | mean wait, increase | TA | - | +45 min | - | lublin | 30.0 | 75.0 (+45.0) | 2.50 | up, up | yes |' "$OUT/table.md"
	grep -qF -- '- lublin: the direction agrees in 5 of 6 on Tiny; 1 of 1 on other machines.' "$OUT/table.md"
}

@test "sc18 table: the mean wait against TO also over the jobs both runs counted" {
	# TA's job b (wait 1 h) launched after its own end: left out of TA's
	# figures, so TA's mean wait is over a, c, d (4,800 s) against TO's
	# over all four (1,800 s), and over the jobs both counted TO's is 2,400 s.
	local fx=$BATS_TEST_TMPDIR/runs
	cp -r "$FX/sc18-runs" "$fx"
	printf 'log_id\tjob_id\tlaunch_lag_s\tlate_s\na\t1\t0\t0\nb\t2\t900\t820\nc\t3\t0\t0\nd\t4\t0\t0\n' \
		>"$fx/L1TA/launch.tsv"
	run python3 -m workloads.experiment table --def "$FX/sc18.exp" --out "$OUT" "$fx"/*
	assert_success
	grep -qF '| lublin | x1 | TA | 0.50 | 1.20 | 2.67 | - | 2.25 | 3 | 2.00 |' "$OUT/table.md" ||
		fail "$(grep -F '| lublin | x1 | TA |' "$OUT/table.md")"
}

# The paper's figures as printed (../shared/papers/interference-free-sc18.txt),
# checked against the paper's text when it is there: this fails if
# experiments/sc18-cab.exp carries a wrong figure, or if a ratio or a
# direction is computed wrong, on the paper's side or on ours.
@test "sc18-cab: Table I and the text's figures as printed, their ratios and ours" {
	local paper=$ROOT/../shared/papers/interference-free-sc18.txt line load machine name to ta v1 v2 s setup v ratio dir
	run sc18_table sc18-cab
	assert_success
	# Table I, "Comparison of mean wait times (in hours)": TO TA TA-V1 TA-V2.
	local table1=(
		"1	cab	Aug on Cab	.15	.98	.8	.3"
		"1	cab	Sept on Cab	295	330	327	307"
		"1	cab	Nov on Cab	.01	.41	.31	.10"
		"2	cab	Aug-2x on Cab	269	322	296	270"
		"2	cab	Nov-2x on Cab	240	300	266	240"
		"2	pinot	Aug-2x on Pinot	.15	1.2	.65	.29"
		"2	pinot	Nov-2x on Pinot	.01	.69	.13	.04"
		"3	pinot	Aug-3x on Pinot	110	148	126	103"
	)
	for line in "${table1[@]}"; do
		IFS=$'\t' read -r load machine name to ta v1 v2 <<<"$line"
		if [ -f "$paper" ]; then
			grep -qxF "$(printf '%s\t%s\t%s\t%s\t%s' "$name" "$to" "$ta" "$v1" "$v2")" "$paper" ||
				fail "the paper's Table I has no line: $name $to $ta $v1 $v2"
		fi
		for s in "TA:$ta" "TA-V1:$v1" "TA-V2:$v2"; do
			setup=${s%%:*} v=${s#*:}
			ratio=$(awk -v a="$v" -v b="$to" 'BEGIN { printf "%.3f", a / b }')
			dir=$(awk -v a="$v" -v b="$to" 'BEGIN { r = sprintf("%.2f", a / b); print (r == "1.00" ? "=" : (a > b ? "up" : "down")) }')
			grep -qF "$load,$name,$machine,wait_mean_h,$setup,$to h,$v h,$ratio,$dir,curie," "$OUT/table.csv" ||
				fail "table.csv lacks $name $setup: $to h -> $v h, ratio $ratio, $dir"
		done
	done
	# The text's figures (Sec. V-C to V-E).
	if [ -f "$paper" ]; then
		local quote
		for quote in 'results in a $\sim 10\%$ drop in the system utilization' \
			'the makespan increases by up to $\sim 9\%$ for TA' \
			'TA V1 and TA V2 result in 9% and 4% longer makespan' \
			'wait an additional 45 minutes in the August dataset and 38 hours in the Aug-3x dataset' \
			'64-256 node jobs have to wait for almost eight hours with the topology-aware placement as opposed to 10 minutes' \
			'64-257 node jobs in the August dataset only wait for 30 minutes'; do
			grep -qF -- "$quote" "$paper" || fail "the paper does not say: $quote"
		done
	fi
	has "$OUT/table.csv" "1,Sept on Cab,cab,utilization_drop_pct,TA,,10 % drop,0.900,down,lublin,fraction,1.0000,0.7500,0.750,down,yes,L1TO,L1TA"
	has "$OUT/table.csv" "2,Aug-2x on Cab,cab,utilization_drop_pct,TA,,10 % drop,0.900,down,lublin,fraction,1.0000,0.7500,0.750,down,yes,L2TO,L2TA"
	has "$OUT/table.csv" "1,Sept on Cab,cab,makespan_increase_pct,TA,,+9 %,1.090,up,lublin,h,5.0000,6.0000,1.200,up,yes,L1TO,L1TA"
	has "$OUT/table.csv" "1,Sept on Cab,cab,makespan_increase_pct,TA-V1,,+9 %,1.090,up,lublin,h,5.0000,5.0000,1.000,=,no,L1TO,L1V1"
	has "$OUT/table.csv" "1,Sept on Cab,cab,makespan_increase_pct,TA-V2,,+4 %,1.040,up,lublin,h,5.0000,,,,,L1TO,"
	has "$OUT/table.csv" "3,Aug-3x on Pinot,pinot,makespan_increase_pct,TA,,+9 %,1.090,up,lublin,h,,,,,,,"
	has "$OUT/table.csv" "1,Aug on Cab,cab,wait_increase_min,TA,,+45 min,,up,lublin,min,30.0000,75.0000,2.500,up,yes,L1TO,L1TA"
	has "$OUT/table.csv" "3,Aug-3x on Pinot,pinot,wait_increase_h,TA,,+38 h,,up,lublin,h,,,,,,,"
	has "$OUT/table.csv" "1,Aug on Cab,cab,wait_64-256_h,TA,10 min,8 h,48.000,up,lublin,h,,,,,,L1TO,L1TA"
	has "$OUT/table.csv" "1,Aug on Cab,cab,wait_64-256_min,TA-20,10 min,30 min,3.000,up,lublin,min,,,,,,L1TO,"
	# Ours beside them: the fixture's ratios and directions.
	has "$OUT/table.csv" "2,Aug-2x on Cab,cab,wait_mean_h,TA,269 h,322 h,1.197,up,lublin,h,1.5000,2.0000,1.333,up,yes,L2TO,L2TA"
	has "$OUT/table.csv" "1,Aug on Cab,cab,wait_mean_h,TA-V1,.15 h,.8 h,5.333,up,lublin,h,0.5000,0.5000,1.000,=,no,L1TO,L1V1"
	assert_equal "$(grep -c ',wait_mean_h,' "$OUT/table.csv")" 48
	grep -qF '| x2 | Aug-2x on Cab | mean wait | TA | 269 h | 322 h | 1.20 | lublin | 1.50 | 2.00 | 1.33 | up, up | yes |' "$OUT/table.md"
	grep -qF -- '- lublin: the direction agrees in 9 of 13 on Cab; 2 of 2 on other machines.' "$OUT/table.md"
	grep -qF -- "- the paper's Cab logs (Aug, Sept, Nov 2014) are not public" "$OUT/table.md"
	grep -qF "Paper: Pollard, Jain, Herbein, Bhatele, SC18 (../shared/papers/interference-free-sc18.txt)." "$OUT/table.md"
}

@test "sc18: bad definitions, overrides and runs are one-line errors" {
	local bad=$BATS_TEST_TMPDIR/bad.exp
	sed 's/^loads .*/loads = 1 two/' "$FX/sc18.exp" >"$bad"
	run sc18_table "$bad"
	assert_failure
	assert_output "error: $bad: loads '1 two': 'two' is not a number above 0"
	sed 's/^paper.wait_3-8_h/paper.wait_3-9_h/' "$FX/sc18.exp" >"$bad"
	run sc18_table "$bad"
	assert_output "error: $bad: paper.wait_3-9_h.aug.1.TA: the size range 3-9 is not among size_bins '1-2 3-8'"
	sed 's/^paper.makespan_increase_pct.aug.2.TA /paper.makespan_increase_pct.aug.2.TO /' "$FX/sc18.exp" >"$bad"
	run sc18_table "$bad"
	assert_output "error: $bad: paper.makespan_increase_pct.aug.2.TO: makespan_increase_pct compares a TA setup with TO; TO has none"
	# A run whose SCALE is none of the definition's loads.
	sed 's/^loads .*/loads = 1 3/' "$FX/sc18.exp" >"$bad"
	run sc18_table "$bad"
	assert_output "error: $FX/sc18-runs/L2TA: SCALE=0.0987655 is no load of the definition (SCALE 0.197531 for lublin divided by loads 1 3)"
	run python3 -m workloads.experiment plan sc18-cab --id x --out "$BATS_TEST_TMPDIR/x" \
		--set TA_SPEEDUPS="none v9"
	assert_output "error: ta_speedups 'none v9': expected some of none 5 10 20 v1 v2"
	run python3 -m workloads.experiment plan icpp-fig8 --id x --out "$BATS_TEST_TMPDIR/x" --set LOADS=2
	assert_output "error: loads and ta_speedups are for kind sc18, not cost-by-size"
	run python3 -m workloads.experiment plan sc18-cab --id x --out "$BATS_TEST_TMPDIR/x" --set CLOCK=warp
	assert_output "error: CLOCK=warp: expected scaled or virtual"
	[ ! -e "$BATS_TEST_TMPDIR/x" ] || fail "a half-made experiment directory is left"
	# TA_SPEEDUP is each run's own (before anything starts).
	run make -s -C "$ROOT" experiment EXP=sc18-cab TA_SPEEDUP=v1
	assert_failure
	assert_output --partial "TA_SPEEDUP=v1: an experiment's TA speed-ups come from its definition"
}

# fake_experiment <env assignments ...>: scripts/experiment EXP=smoke-tiny
# with a stand-in for scripts/testbed (EXPERIMENT_TESTBED) whose replay
# writes its AUTO_RECOVER to $BATS_TEST_TMPDIR/replays, and a docker that
# knows no container: no Docker needed.
fake_experiment() {
	local bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	printf '#!/bin/sh\nexit 0\n' >"$bin/docker"
	cat >"$bin/testbed" <<-'SH'
		#!/usr/bin/env bash
		set -euo pipefail
		case $1 in
		replay)
			echo "AUTO_RECOVER=${AUTO_RECOVER-unset}" >>"$FAKE_REPLAYS"
			mkdir -p "$RESULTS_DIR/r-$TESTBED_PROJECT"
			echo '{"finished": true}' >"$RESULTS_DIR/r-$TESTBED_PROJECT/manifest.json"
			echo "replay r-$TESTBED_PROJECT: 10 jobs of theta on tiny"
			# scripts/experiment reads the run id from RUN_ID_FILE while
			# the replay runs.
			echo "r-$TESTBED_PROJECT" >"$RUN_ID_FILE"
			sleep 2
			;;
		in-tools)
			shift
			case " $* " in *" table "*) exit 0 ;; esac
			exec "$@"
			;;
		esac
	SH
	chmod +x "$bin/docker" "$bin/testbed"
	rm -f "$BATS_TEST_TMPDIR/replays"
	env -u AUTO_RECOVER PATH="$bin:$PATH" EXPERIMENT_TESTBED="$bin/testbed" \
		FAKE_REPLAYS="$BATS_TEST_TMPDIR/replays" RESULTS_DIR="$BATS_TEST_TMPDIR/results" \
		EXP=smoke-tiny "$@" "$ROOT/scripts/experiment"
}

@test "an experiment's replays restart a dead service (AUTO_RECOVER=1) unless AUTO_RECOVER=0" {
	run fake_experiment
	assert_success
	assert_line --partial "2/2 runs ->"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/replays")" "$(printf 'AUTO_RECOVER=1\nAUTO_RECOVER=1')"
	run fake_experiment AUTO_RECOVER=0
	assert_success
	assert_equal "$(cat "$BATS_TEST_TMPDIR/replays")" "$(printf 'AUTO_RECOVER=0\nAUTO_RECOVER=0')"
	run fake_experiment AUTO_RECOVER=yes
	assert_failure
	assert_output "error: AUTO_RECOVER=yes: expected 0 or 1"
	[ ! -e "$BATS_TEST_TMPDIR/replays" ] || fail "a replay ran"
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
	# Two policies x two metrics, and the baseline's log runtimes.
	assert_equal "$(($(wc -l <"$dir/table.csv") - 1))" 5
	[ -f "$dir/state/1.done" ] && [ -f "$dir/state/2.done" ]
	assert_equal "$(jq -r .finished "$dir"/runs/*-theta-greedy/manifest.json)" true
	assert_equal "$(docker ps -q --filter "label=com.docker.compose.project=$(basename "$dir")-1" | wc -l)" 0
	assert_equal "$(docker ps -q --filter "label=com.docker.compose.project=$(basename "$dir")-2" | wc -l)" 0
}

# --- treematch (tests/fixtures/experiment/treematch-runs: SLURM once, TM-A
# and TM-I at a = 1/3 and 1/2, each after two prefill jobs; treematch.exp
# works them out by hand).

tm_table() {
	python3 -m workloads.experiment table --def "$1" --out "$OUT" "${@:2}" "$FX"/treematch-runs/*
}

@test "treematch plan: SLURM once, each TreeMatch strategy per ratio, RATIO as a fraction, the protocol's parameters" {
	local dir=$BATS_TEST_TMPDIR/tm
	run python3 -m workloads.experiment plan treematch-curie --id t --out "$dir" --set FULL=1
	assert_success
	assert_output "experiment t: 25 replays"
	assert_equal "$(cut -f6 "$dir/runs.tsv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
		" 1 default; 6 tm-a; 6 tm-i; 6 tm-sub; 6 tm-sub3;"
	has "$dir/runs.tsv" "$(printf '1\tt-1\tcurie\tcurie\tmix\tdefault\tCLOCK=virtual COMM=1 END_GUARD=10 FIRST=2980 GRANULARITY=core JOBS=60 OPTIONS=denominator=default PREFILL=1 RATIO=0.3333333333333333 RUNTIME_FACTOR=0.5 SCALE=1 SEED=0 SPARSITY=0.9 SPEEDUP=100')"
	has "$dir/runs.tsv" "$(printf '8\tt-8\tcurie\tcurie\tmix\ttm-i\tCLOCK=virtual COMM=1 END_GUARD=10 FIRST=2980 GRANULARITY=core JOBS=60 OPTIONS=denominator=default PREFILL=1 RATIO=0.5 RUNTIME_FACTOR=0.5 SCALE=1 SEED=0 SPARSITY=0.9 SPEEDUP=100')"
	# Table 2's ratios alone, a plain run's (select.RATIOS); without
	# denominator=default SLURM's runtimes depend on the ratio (Eq. 7
	# against default1905), so it runs per ratio.
	run python3 -m workloads.experiment plan treematch-curie --id u --out "$BATS_TEST_TMPDIR/u"
	assert_output "experiment u: 9 replays"
	run python3 -m workloads.experiment plan treematch-curie --id v --out "$BATS_TEST_TMPDIR/v" \
		--set RATIOS="1/3 1/2" --set OPTIONS=denominator=default1905
	assert_output "experiment v: 10 replays"
	grep -qF -- '- OPTIONS=denominator=default1905 given on the command line (definition: denominator=default)' \
		<(jq -r '.overrides[]' "$BATS_TEST_TMPDIR/v/experiment.json" | sed 's/^/- /')
}

@test "treematch table: the paper's metrics over the workload, gains job by job, Table 2 beside ours, orderings" {
	run tm_table "$FX/treematch.exp"
	assert_success
	local runs=$OUT/table-runs.csv
	# As worked out in treematch.exp; the prefill jobs count nowhere.
	has "$runs" "curie,1/3,default,SLURM,3,500,35,383.3333333,166.6666667,2.583333333,1,0,0,0,3,D"
	has "$runs" "curie,1/3,tm-i,TM-I,3,460,33.15217391,340,150,2.283333333,0.7,10,43.33333333,16.66666667,3,I3"
	has "$runs" "curie,1/2,tm-a,TM-A,3,470,34.04255319,353.3333333,156.6666667,2.383333333,0.9,5,30,10,3,A2"
	has "$runs" "curie,1/2,tm-i,TM-I,3,440,32.10227273,318.3333333,141.6666667,2.133333333,0.7,15,65,25,3,I2"
	grep -qF '| curie | 1/2 (50 %) | SLURM (the 1/3 run) | 3 | 500 |' "$OUT/table.md"
	grep -qF '| curie | 1/10 (10 %) | TM-A (not run) |' "$OUT/table.md"
	has "$OUT/table.csv" "curie,1/3,makespan_s,tm-i,TM-I,450,-10.000,460.0000,-8.000,I3"
	has "$OUT/table.csv" "curie,1/3,utilization_pct,tm-i,TM-I,38,8.571,33.1522,-5.280,I3"
	has "$OUT/table.csv" "curie,1/3,flowtime_gain_s,tm-a,TM-A,10,,20.0000,,A3"
	has "$OUT/table.csv" "curie,1/2,makespan_s,default,SLURM,500,0.000,500.0000,0.000,D"
	grep -qF '| curie | 1/3 (33.3 %) | makespan (s) | TM-I < TM-A < SLURM | TM-I < TM-A < SLURM | yes | yes |' "$OUT/table.md"
	grep -qF '| curie | 1/3 (33.3 %) | utilization (%) | SLURM > TM-A > TM-I | TM-I > TM-A > SLURM | no | no |' "$OUT/table.md"
	grep -qF '| curie | 1/2 (50 %) | makespan (s) | TM-I < TM-A < SLURM | TM-A < TM-I < SLURM | no | no |' "$OUT/table.md"
	grep -qF 'The orderings agree in 2 of 4 comparisons; the best strategy is the paper'"'"'s in 2 of 4.' "$OUT/table.md"
	grep -qF 'after 2 jobs from before it (log jobs before 2) filled 8 of the 8 nodes (PREFILL=1); runtimes x 0.5' "$OUT/table.md"
	! grep -qF 'incomplete' "$OUT/table.md" || fail "the prefill jobs were taken for missing ones"
}

# Table 2 and Figs. 5, 6 as printed (../shared/papers/treematch-ijhpca2018.txt),
# checked against the paper's text when it is there.
@test "treematch-curie: Table 2 and Figs. 5, 6 as printed" {
	local paper=$ROOT/../shared/papers/treematch-ijhpca2018.txt def=$ROOT/experiments/treematch-curie.exp line
	if [ -f "$paper" ]; then
		for line in "50%	8318	6407	6073	6077" "33%	8316	7502	6821	6887" \
			"50%	33%	42%	44%	44%" "33%	33%	36%	40%	39%" \
			"TM-Sub	22.50 s / 1.16	38.20 s / 1.44	205.85 s / 1.09" \
			"TM-Sub	10.20 s / 1.19	47.83 s / 1.47	322.23 s / 1.27" \
			"[5 s, 18 s]	TM-I	15.70 s / 1.24	183.35 s / 0.95" \
			"[4 s, 14 s]	TM-I	37.63 s / 1.24	312.03 s / 1.06" \
			"[14 s, 20 s]	[7 s, 13 s]	TM-A	167.65 s / 0.76" \
			"[12 s, 23 s]	[3 s, 11 s]	TM-A	274.40 s / 0.86" \
			"TM-Sub	18.90 s / 1.20	37.45 s / 1.54	200.17 s / 1.08" \
			"TM-Sub	7.03 s / 1.22	48.43 s / 1.54	317.10 s / 1.17" \
			"[4 s, 14 s]	TM-I	18.55 s / 1.28	181.27 s / 0.90" \
			"[3 s, 11 s]	TM-I	41.40 s / 1.27	310.07 s / 0.96" \
			"[14 s, 20 s]	[9 s, 14 s]	TM-A	162.72 s / 0.70" \
			"[13 s, 23 s]	[6 s, 13 s]	TM-A	268.67 s / 0.76"; do
			grep -qxF "$line" "$paper" || fail "the paper has no line: $line"
		done
	fi
	local v
	for v in "makespan_s.curie.1/2.default = 8318" "makespan_s.curie.1/2.tm-a    = 6407" \
		"makespan_s.curie.1/2.tm-sub  = 6073" "makespan_s.curie.1/2.tm-i    = 6077" \
		"makespan_s.curie.1/3.default = 8316" "makespan_s.curie.1/3.tm-a    = 7502" \
		"makespan_s.curie.1/3.tm-sub  = 6821" "makespan_s.curie.1/3.tm-i    = 6887" \
		"utilization_pct.curie.1/2.default = 33" "utilization_pct.curie.1/2.tm-sub  = 44" \
		"utilization_pct.curie.1/3.tm-a    = 36" "utilization_pct.curie.1/3.tm-i    = 39" \
		"flowtime_gain_s.curie.1/3.tm-i   = 183.35" "flowtime_gain_s.curie.1/2.tm-sub = 322.23" \
		"runtime_gain_s.curie.1/3.tm-sub = 200.17" "runtime_gain_s.curie.1/2.tm-a   = 268.67"; do
		grep -qxF "paper.$v" "$def" || fail "treematch-curie.exp lacks paper.$v"
	done
	# 8 makespans and utilizations, 6 flow time and runtime gains.
	assert_equal "$(grep -c '^paper\.' "$def")" 28
	# The definition's table over the fixture's runs: the paper's figures,
	# and strategies not run shown as such.
	run tm_table treematch-curie
	assert_success
	has "$OUT/table.csv" "curie,1/3,makespan_s,tm-sub,TM-Sub,6821,-17.977,,,"
	has "$OUT/table.csv" "curie,1/2,utilization_pct,tm-i,TM-I,44,33.333,32.1023,-8.279,I2"
	has "$OUT/table.csv" "curie,1/2,runtime_gain_s,tm-i,TM-I,310.07,,25.0000,,I2"
	grep -qF '| curie | 1/3 (33.3 %) | makespan (s) | - | TM-Sub < TM-I < TM-A < SLURM | - | - |' "$OUT/table.md"
	grep -qF '| curie | 1/2 (50 %) | utilization (%) | - | TM-I = TM-Sub > TM-A > SLURM | - | - |' "$OUT/table.md"
	grep -qF '| curie | 1/3 (33.3 %) | mean flow time gain on SLURM (s) | - | TM-Sub > TM-I > TM-A > SLURM | - | - |' "$OUT/table.md"
}

@test "treematch: bad definitions and overrides are one-line errors" {
	local bad=$BATS_TEST_TMPDIR/bad.exp
	sed 's|^ratios .*|ratios = 1/3 0.5|' "$FX/treematch.exp" >"$bad"
	run tm_table "$bad"
	assert_failure
	assert_output "error: $bad: ratios '1/3 0.5': '0.5' is not a fraction p/q above 0 and at most 1"
	# A paper figure at a ratio not run is kept, not refused (RATIOS narrows the runs).
	sed 's|^paper.makespan_s.curie.1/2.tm-i |paper.makespan_s.curie.1/4.tm-i |' "$FX/treematch.exp" >"$bad"
	run tm_table "$bad"
	assert_success
	sed 's|^paper.flowtime_gain_s.curie.1/3.tm-a |paper.flowtime_gain_s.curie.1/3.default |' "$FX/treematch.exp" >"$bad"
	run tm_table "$bad"
	assert_output "error: $bad: paper.flowtime_gain_s.curie.1/3.default: flowtime_gain_s compares a strategy with the baseline; the baseline has none"
	sed 's|^paper.makespan_s.curie.1/3.tm-a |paper.wait_s.curie.1/3.tm-a |' "$FX/treematch.exp" >"$bad"
	run tm_table "$bad"
	assert_output "error: $bad: paper.wait_s.curie.1/3.tm-a: unknown metric 'wait_s'; expected one of makespan_s utilization_pct flowtime_gain_s runtime_gain_s"
	run python3 -m workloads.experiment plan treematch-curie --id x --out "$BATS_TEST_TMPDIR/x" --set RATIO=0.5
	assert_output "error: RATIO is each run's own in kind treematch (ratios = 1/3 1/2); RATIOS='...' narrows them"
	run python3 -m workloads.experiment plan treematch-curie --id x --out "$BATS_TEST_TMPDIR/x" --set OPTIONS="eq3=path fit=quiet"
	assert_output "error: OPTIONS='eq3=path fit=quiet': expected the library's words separated by commas, e.g. denominator=default"
	run python3 -m workloads.experiment plan treematch-curie --id x --out "$BATS_TEST_TMPDIR/x" --set OPTIONS=denominator=tree
	assert_output --partial "error: OPTIONS: 'denominator=tree': expected one of"
	run python3 -m workloads.experiment plan sc18-cab --id x --out "$BATS_TEST_TMPDIR/x" --set RATIOS=1/2
	assert_output "error: ratios are for kind treematch, not sc18"
	[ ! -e "$BATS_TEST_TMPDIR/x" ] || fail "a half-made experiment directory is left"
}
