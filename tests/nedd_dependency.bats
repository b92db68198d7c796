#!/usr/bin/env bats
# NeDD's record of a job that waits on a dependency, on the small dragonfly
# (emulated-clusters/dfly.cluster). The NeDD job lists start each
# application job after:<congestor>+2 (workloads/experiment/nedd_jobs.py);
# the job is submitted before its congestor has started, when its lane is
# idle, and slurmctld then tests whether it could ever run. That test must
# write no record: it saw no congestor (pressure_g=0, runtime_factor=1) and
# set the job's sleep from it, the first repetitions of nedd-cori-onejob
# (docs/results/2026-11-26-nedd.md). The record is the start's, which sees
# the congestor's traffic.

setup_file() {
	load helpers
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=dfly POLICY=nedd OPTIONS='window=10' >/dev/null
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

ctl_sh() { make -s -C "$ROOT" exec CMD="$1"; }

admin_comment() { ctl_sh "scontrol show job $1" | sed -n 's/.*AdminComment=\([^ ]*\).*/\1/p'; }

@test "a job waiting on its congestor has no record; its start's record sees the congestor" {
	local c a
	# The congestor of a lane (nedd-dfly-smoke's first: group 0's first 12
	# nodes, d00-d07 and d16-d19; d00 for the control script) held back
	# by its begin time, as a job list's first congestor is until the
	# replay's t0, and the job confined to the lane, as the lists do. The
	# job follows a minute after the congestor's start (the lists: two):
	# with plain after: it started in the congestor's first second, when
	# the 10-s window held none of its traffic yet (a quiet machine's
	# fresh-clone run failed so; a loaded one's delays had hidden it).
	c=$(ctl_sh "sbatch --parsable -N 4 -w d[02,06,16,19] --begin=now+3000 -t 60 --comm-app=gpcnet --wrap='sleep 3000'")
	a=$(ctl_sh "sbatch --parsable -N 3 -x d[00,20-23,32-39,48-55] -t 60 --dependency=after:$c+1 --comm-app=miniMD --wrap='sleep 3000'")
	wait_for 30 bash -c "make -s -C '$ROOT' exec CMD='scontrol show job $a' | grep -q 'Reason=Dependency'" ||
		fail "job $a does not wait on its dependency: $(ctl_sh "scontrol show job $a")"
	# Its submission test has been made by now (before the answer).
	run admin_comment "$a"
	assert_output ""
	run ctl_sh "scontrol show job $a"
	refute_output --partial "TESTBED_RUNTIME_SCALED"
	# The congestor starts; the job after it, with its traffic in the window.
	ctl_sh "scontrol update jobid=$c starttime=now" >/dev/null
	wait_for 150 bash -c "make -s -C '$ROOT' exec CMD='scontrol show job $a' | grep -q 'JobState=RUNNING'" ||
		fail "job $a is not running 150 s after its congestor was released"
	run admin_comment "$a"
	assert_output --regexp ';app=miniMD;.*;pressure_g=[0-9.e-]+;runtime_factor=[0-9.]+$'
	refute_output --partial ';pressure_g=0;'
	refute_output --partial ';runtime_factor=1$'
	ctl_sh "scancel $a $c" >/dev/null
}
