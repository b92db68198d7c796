#!/usr/bin/env bats
# make bench's scripts (scripts/lib/bench.bash) with the cluster stubbed:
# what they do in which order, not what they measure. No container.

setup() { load helpers; }

# bench_submit with make up/down, the registry and docker stubbed: a
# made-up registry of two tree families and a torus one; `docker` on PATH
# is a script (the Python submitters exec it) that answers as the
# controller would and logs every call, as do the stubs.
run_bench_submit() {
	local dir=$BATS_TEST_TMPDIR
	mkdir -p "$dir/bin"
	cat >"$dir/bin/docker" <<'EOF'
#!/usr/bin/env bash
echo "docker $*" >>"$CALLS"
case "$*" in
*"exec -i ctl0 bash -c cat"*) cat >/dev/null ;;
*"exec -i ctl0 bash -c n=0"* | *"exec -i ctl0 tb-submit"*)
	exec bash -c 'n=100; while IFS= read -r _; do n=$((n + 1)); echo "$n"; done' ;;
*sbatch*) echo "777;c" ;;
*"squeue -h -j 777 -o %T"*) echo RUNNING ;;
*"bash -c sdiag -r"*) ;;
*"bash -c sdiag"*) printf '\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) count:6      ave_time:2500   total_time:15000\n' ;;
# slurmctld's log: the submitters' jobs (101 and on) and the filler (777),
# which lock_ms leaves out.
"logs --since "*" ctl0")
	for id in 777 101 102; do
		printf '[t] _slurm_rpc_submit_batch_job: JobId=%s InitPrio=1 usec=%s\n' \
			"$id" "$([ "$id" = 777 ] && echo 90000 || echo 1500)"
	done >&2 ;;
esac
EOF
	chmod +x "$dir/bin/docker"
	# shellcheck disable=SC2016 # run by bash -c
	CALLS=$dir/calls PATH=$dir/bin:$PATH BENCH_OUT=$dir/out PYTHONPATH=$ROOT run bash -c '
		set -euo pipefail
		. "$ROOT/scripts/lib/common.bash"
		. "$ROOT/scripts/lib/bench.bash"
		: >"$CALLS"
		require_docker() { :; }
		policy_registry() {
			printf "a-one\tfam-a\toptions\tpaper A\na-two\tfam-a\t-\tpaper A\n"
			printf "t-one\tfam-t\tmatrix,torus\tpaper T\nb-one\tfam-b\t-\tpaper B\n"
		}
		in_tools() { "$@"; }
		cmd_down() { echo "down" >>"$CALLS"; }
		cmd_up() { echo "up $1 $POLICY ${FRONTENDS:-} ${EMULATORS:-}" >>"$CALLS"; }
		ctld_container() { echo ctl0; }
		cluster_var() { case $2 in NODES) echo 64 ;; FRONTENDS) echo 5 ;; EMULATORS) echo 1 ;; esac; }
		bench_submit'
}

@test "bench submit: one policy a family from the registry, a machine started once, the policy switched, pending jobs cancelled before the filler" {
	BENCH_JOBS=6 run_bench_submit
	assert_success
	local calls=$BATS_TEST_TMPDIR/calls
	# The first policy of each family, tree ones first, the torus one on
	# torus64; the second tree policy is switched on the running curie.
	run grep -E '^(up|down)' "$calls"
	assert_output $'down\nup curie a-one  \nup curie b-one 5 1\ndown\nup torus64 t-one  '
	# The table: a client row per machine, two passes per policy.
	run tail -n 9 "$BATS_TEST_TMPDIR"/out/submit-*.txt
	assert_line --index 0 --regexp '^policy +family +machine +jobs +mode +wall_s +submissions/s +ctld_ms +lock_ms +load$'
	assert_line --index 1 --regexp '^- +- +curie +6 client .* - +- '
	# lock_ms: the log's usec= of the pass's own jobs (stderr, as
	# slurmctld writes it), the filler's left out.
	assert_line --index 2 --regexp '^a-one +fam-a +curie +6 later .* 2\.50 +1\.50 '
	assert_line --index 3 --regexp '^a-one +fam-a +curie +6 at once .* 2\.50 +1\.50 '
	assert_line --index 6 --regexp '^- +- +torus64 +6 client '
	assert_line --index 8 --regexp '^t-one +fam-t +torus64 +6 at once '
	# The at-once pass runs behind one job on every node; pending jobs are
	# cancelled (and gone) before everything else, every time.
	run grep -E 'sbatch|scancel|squeue -h -t PENDING|run .* 0 --policy' "$calls"
	assert_line --index 0 'docker exec ctl0 scancel -u root -t PENDING'
	assert_line --index 1 'docker exec ctl0 squeue -h -t PENDING -o %i'
	assert_line --index 2 'docker exec ctl0 scancel -u root'
	assert_line --index 3 --regexp '^docker exec ctl0 sbatch --parsable -N 64 -J bench-submit-filler '
	[ "$(grep -c 'scancel -u root -t PENDING' "$calls")" -eq 6 ]
	[ "$(grep -c 'sbatch' "$calls")" -eq 3 ]
	# Each pass's sdiag kept.
	[ "$(find "$BATS_TEST_TMPDIR"/out -path "*.sdiag/*" -name "*.txt" | wc -l)" -eq 6 ]
}

@test "bench submit refuses an unknown policy and a bad setting before any cluster changes" {
	BENCH_POLICIES=nope run_bench_submit
	assert_failure
	assert_output --partial "BENCH_POLICIES: unknown nope; valid: a-one a-two t-one b-one"
	BENCH_AT_ONCE=held run_bench_submit
	assert_failure
	assert_output --partial "BENCH_AT_ONCE=held: expected busy (the default) or start"
	run cat "$BATS_TEST_TMPDIR/calls"
	assert_output ""
}

# bench_file, bench_host and bench_compare (every benchmark's file, host
# line and end) with the tools and the cluster stubbed.
run_bench_helpers() {
	# shellcheck disable=SC2016 # run by bash -c
	run bash -c '
		set -euo pipefail
		. "$ROOT/scripts/lib/common.bash"
		. "$ROOT/scripts/lib/bench.bash"
		D=$1
		in_tools() { echo "compared ${*:3}"; return 3; }
		cmd_down() { echo down >>"$D/calls"; }
		'"$1" _ "$BATS_TEST_TMPDIR"
}

@test "bench_file: <name>-<date>-<time>.txt in the folder it makes; one it cannot make stops the benchmark" {
	# shellcheck disable=SC2016 # run by bash -c
	run_bench_helpers 'f=$(bench_file clock "$1/a/out"); echo "$f"; [ -d "$1/a/out" ]
		f=$(ROOT=$1/root bench_file up); echo "$f"'
	assert_success
	assert_line --index 0 --regexp "^$BATS_TEST_TMPDIR/a/out/clock-[0-9]{8}-[0-9]{6}\.txt\$"
	assert_line --index 1 --regexp "^$BATS_TEST_TMPDIR/root/bench/out/up-[0-9]{8}-[0-9]{6}\.txt\$"
	# A file where the folder should be: the benchmark ends there, as
	# the mkdir -p of each benchmark did before bench_file.
	: >"$BATS_TEST_TMPDIR/plain"
	# shellcheck disable=SC2016 # run by bash -c
	run_bench_helpers 'f=$(bench_file submit "$1/plain/out"); echo "went on with $f"'
	assert_failure
	refute_output --partial "went on"
}

@test "bench_host and bench_compare: the host line; the comparison appended, the cluster down, its status returned" {
	# shellcheck disable=SC2016 # run by bash -c
	run_bench_helpers 'bench_host; echo
		echo head >"$1/f.txt"; c=0; bench_compare clock.py ref.json "$1/f.txt" r1 r2 || c=$?
		echo "status $c"; cat "$1/f.txt" "$1/calls"'
	assert_success
	assert_line --index 0 --regexp '^[0-9]+ cores, [0-9]+ MiB; [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$'
	assert_line --index 1 "compared ref.json r1 r2"
	assert_line --index 2 --regexp '^written to .*/f\.txt$'
	assert_line --index 3 "status 3"
	assert_line --index 4 "head"
	assert_line --index 5 "compared ref.json r1 r2"
	assert_line --index 6 "down"
}
