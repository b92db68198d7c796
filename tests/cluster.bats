#!/usr/bin/env bats
# The emulated `tiny` cluster: comes up, runs a job with accounting, keeps its
# history across down/up, and refuses what it cannot do.

setup_file() {
	load helpers
	make -s -C "$ROOT" clean >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny >&3
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" clean >/dev/null
}

setup() { load helpers; }

@test "every node of tiny is idle after make up" {
	run make -s -C "$ROOT" exec CMD='sinfo -h -t idle -o %D'
	assert_success
	assert_output 32
}

@test "the topology Slurm loaded has tiny's 8 leaves" {
	run make -s -C "$ROOT" exec CMD='scontrol show topology | grep -c "Level=0"'
	assert_success
	assert_output 8
}

@test "make exec returns the command's exit status" {
	run make -s -C "$ROOT" exec CMD='exit 3'
	assert_failure
	run make -s -C "$ROOT" exec CMD='true'
	assert_success
}

@test "a sleep job runs to COMPLETED and sacct --json reports its elapsed time" {
	local id t0 wall
	t0=$(date +%s)
	id=$(make -s -C "$ROOT" exec CMD="sbatch --parsable -N 2 -J sleeper --wrap='sleep 3'")
	[[ "$id" =~ ^[0-9]+$ ]]
	echo "$id" >"$BATS_FILE_TMPDIR/job"
	wait_for 120 job_completed "$id" ||
		fail "job $id did not reach COMPLETED in accounting"
	wall=$(($(date +%s) - t0))
	run sacct_json "$id"
	assert_success
	local elapsed nodes
	elapsed=$(jq '.jobs[0].time.elapsed' <<<"$output")
	nodes=$(jq -r '.jobs[0].allocation_nodes' <<<"$output")
	[[ $elapsed =~ ^[0-9]+$ ]] || fail "elapsed: $elapsed"
	# End - start, in whole seconds, and at least the 3 s the job slept;
	# at most the wall time from the submission to COMPLETED in accounting
	# (+1 s: whole seconds), however slowly a loaded machine launched it.
	assert_equal "$elapsed" "$(jq '.jobs[0].time | .end - .start' <<<"$output")"
	[ "$elapsed" -ge 3 ] && [ "$elapsed" -le $((wall + 1)) ] ||
		fail "elapsed $elapsed s for sleep 3, seen COMPLETED $wall s after the submission"
	assert_equal "$nodes" 2
	assert_equal "$(jq -r '.jobs[0].name' <<<"$output")" sleeper
}

# emu1's container id: empty when it is not running (its entrypoint ends
# the container when any of its slurmd daemons exits).
emu1() {
	docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT" \
		--filter label=com.docker.compose.service=emu1
}

# --export other than ALL (a list, NONE) makes Slurm load the user's login
# environment on the front end; in a container slurmd died on it, "fatal:
# clone: Operation not permitted" (docs/cluster.md, "A job's environment";
# tests/python/test_env_cache.py). GetEnvTimeout=0 reads it from the cache
# the entrypoint writes.
@test "sbatch --export=ALL,NAME=value and --export=NONE run, and every front end stays up" {
	local emu all none frontends
	emu=$(emu1)
	[ -n "$emu" ] || fail "emu1 is not running"
	run docker exec "$emu" grep -c '^PATH=' /var/spool/slurmctld/env_cache/root
	assert_output 1
	all=$(make -s -C "$ROOT" exec CMD="sbatch --parsable -N 1 --export=ALL,TB_X=1 -o /tmp/export-%j.out --wrap='echo TB_X=\$TB_X'")
	[[ "$all" =~ ^[0-9]+$ ]] || fail "sbatch --export=ALL,TB_X=1: $all"
	none=$(make -s -C "$ROOT" exec CMD="TB_X=1 sbatch --parsable -N 1 --export=NONE -o /tmp/export-%j.out --wrap='echo LOGNAME=\$LOGNAME TB_X=\$TB_X'")
	[[ "$none" =~ ^[0-9]+$ ]] || fail "sbatch --export=NONE: $none"
	wait_for 120 job_completed "$all" || fail "job $all (--export=ALL,TB_X=1) did not complete: $(job_state "$all")"
	wait_for 120 job_completed "$none" || fail "job $none (--export=NONE) did not complete: $(job_state "$none")"
	# The variable arrived; NONE left it out and gave root's login
	# environment (LOGNAME: su - sets it, Slurm does not).
	run docker exec "$emu" cat "/tmp/export-$all.out"
	assert_output "TB_X=1"
	run docker exec "$emu" cat "/tmp/export-$none.out"
	assert_output "LOGNAME=root TB_X="
	# Every front end's slurmd still runs, and Slurm sees none down.
	[ "$(emu1)" = "$emu" ] || fail "emu1 is no longer running"
	frontends=$(sed -n 's/^FRONTENDS=//p' "$(cluster_dir tiny)/cluster.env")
	run docker exec "$emu" pgrep -c -x slurmd
	assert_output "$frontends"
	run make -s -C "$ROOT" exec CMD='scontrol -o show frontend'
	assert_success
	[ "$(grep -c '^FrontendName=' <<<"$output")" = "$frontends" ] || fail "$output"
	# DOWN, DRAIN, or * (not responding) after any state.
	refute_output --regexp 'State=[A-Z_+]*(DOWN|DRAIN|\*)'
}

@test "make up while tiny is up names it for another cluster" {
	run make -s -C "$ROOT" up CLUSTER=curie
	assert_failure
	assert_output --partial "cluster 'tiny' is up; run 'make down' first"
}

@test "make up with an unknown cluster lists the valid ones" {
	run make -s -C "$ROOT" up CLUSTER=atlantis
	assert_failure
	# Every machine definition, in the order of the directory's glob.
	local f names=()
	for f in "$ROOT"/emulated-clusters/*.cluster; do
		f=${f##*/}
		names+=("${f%.cluster}")
	done
	[ "${#names[@]}" -ge 7 ] || fail "only ${#names[@]} machine definitions"
	assert_output --partial "unknown CLUSTER 'atlantis'; valid: ${names[*]}"
}

@test "make status names the cluster and its policy" {
	run make -s -C "$ROOT" status
	assert_success
	assert_output --partial "cluster: tiny"
	assert_output --partial "policy: default"
	assert_output --partial "slurmctld"
}

@test "down then up keeps the job history" {
	local id
	id=$(cat "$BATS_FILE_TMPDIR/job")
	run make -s -C "$ROOT" down
	assert_success
	run make -s -C "$ROOT" exec CMD=true
	assert_failure
	assert_output --partial "no cluster is up"
	make -s -C "$ROOT" up CLUSTER=tiny >&3
	run job_state "$id"
	assert_output COMPLETED
	# Job ids continue from the saved controller state.
	local next
	next=$(make -s -C "$ROOT" exec CMD="sbatch --parsable --wrap=true")
	[ "$next" -gt "$id" ]
}

@test "another cluster can come up after down, and tiny's history survives it" {
	local id
	id=$(cat "$BATS_FILE_TMPDIR/job")
	make -s -C "$ROOT" down >/dev/null
	run make -s -C "$ROOT" up CLUSTER=cab
	assert_success
	run make -s -C "$ROOT" exec CMD='sinfo -h -t idle -o %D'
	assert_output 1296
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
	run job_state "$id"
	assert_output COMPLETED
}

@test "make exec passes quotes and \$(...) through untouched" {
	run make -s -C "$ROOT" exec CMD='printf "%s|" "a b" "$(echo c)"'
	assert_success
	assert_output 'a b|c|'
}

@test "every image records its Debian packages and their versions" {
	local img
	for img in tools db slurm; do
		run docker run --rm --entrypoint cat "testbed-$img:$TESTBED_TAG" \
			/usr/local/share/testbed/packages.txt
		assert_success
		assert_line --regexp '^bash [^ ]+$'
	done
}

@test "a Slurm version the archive lacks is named as such, not as a checksum mismatch" {
	# Only the image's first stage (apt's source index), with a version
	# no Debian revision has; the legacy builder, as the tools image has no
	# buildx.
	run env DOCKER_BUILDKIT=0 docker build -q --force-rm --target source \
		--build-arg SLURM_UPSTREAM=0.0.1 -f "$ROOT/images/slurm/Dockerfile" "$ROOT"
	assert_failure
	assert_output --partial "error: slurm-wlm_0.0.1.orig.tar.gz could not be downloaded: no Debian revision 0.0.1-* of slurm-wlm"
	# (the failed command is echoed, unexpanded: only an expanded name counts)
	refute_output --partial "error: slurm-wlm_0.0.1.orig.tar.gz does not match"
}
