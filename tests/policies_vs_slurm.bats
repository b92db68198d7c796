#!/usr/bin/env bats
# Slurm, running topology/commtree, gives each job the nodes the policy
# library chooses for the same snapshot, under every policy; `default` is
# Slurm's own topology/tree, so it also checks the library's model of it.
# Pinned jobs and probes stay running, so each probe sees a new snapshot.

setup_file() {
	load helpers
	make -s -C "$ROOT/plugins" tools >/dev/null
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

ctl() { make -s -C "$ROOT" exec CMD="$1"; }

# Running jobs' nodes, as comma-separated names, split by profile.
nodes_of_running() {
	local want=$1
	ctl "squeue -h -t R -o '%k|%N'" | awk -F'|' -v w="$want" \
		'(w == "comm") == ($1 ~ /^1/) {print $2}' | paste -sd, |
		{ read -r l; [ -z "$l" ] || ctl "scontrol show hostnames '$l'"; } | paste -sd,
}

running() { [ "$(ctl "squeue -h -j $1 -o %T")" = RUNNING ]; }

# pending_for <job> <reason>: the job is pending with that reason.
pending_for() { [ "$(ctl "squeue -h -j $1 -o '%T %r'")" = "PENDING $2" ]; }

submit() {
	local id
	id=$(ctl "sbatch --parsable $1 --wrap='sleep 600'")
	wait_for 30 running "$id" || fail "job $id ($1) did not start"
	echo "$id"
}

# Pins k idle nodes, every stride-th, with a job of the given comment.
pin_idle() {
	local k=$1 stride=$2 comment=$3 nodes
	nodes=$(ctl "sinfo -h -t idle -N -o %N" | awk -v s="$stride" -v k="$k" \
		'NR % s == 0 && n < k {printf "%s%s", (n++ ? "," : ""), $1}')
	submit "-N $k -w $nodes --comment=$comment" >/dev/null
}

# library_nodes <cluster> <policy> <nodes> <comm> <pattern> <busy> <busy comm>:
# the nodes tb-alloc chooses on that snapshot, sorted, comma-separated.
library_nodes() {
	local busy=$6 busy_comm=$7
	"$ROOT/build/c/tb-alloc" --topology "$(cluster_dir "$1")/topology.json" \
		${busy:+--busy "$busy"} ${busy_comm:+--busy-comm "$busy_comm"} \
		--job "nodes=$3,comm=$4,pattern=$5" "$2" |
		cut -d' ' -f2 | tr , '\n' | sort | paste -sd,
}

# The nodes Slurm gave a job, sorted, comma-separated.
slurm_nodes() {
	ctl "scontrol show hostnames \$(squeue -h -j $1 -o %N)" | sort | paste -sd,
}

# probe <cluster> <policy> <nodes> <comm> <pattern id> [<sbatch size option>]
# (the size option, -N <nodes> unless given, may size the job by tasks)
probe() {
	local cluster=$1 policy=$2 n=$3 comm=$4 pid=$5 busy busy_comm id slurm lib pattern
	pattern=$(echo "rhvd rd binomial ring cmc" | cut -d' ' -f"$pid")
	busy=$(nodes_of_running compute)
	busy_comm=$(nodes_of_running comm)
	id=$(submit "${6:--N $n} --comment=$comm:$pid")
	slurm=$(slurm_nodes "$id")
	lib=$(library_nodes "$cluster" "$policy" "$n" "$comm" "$pattern" "$busy" "$busy_comm")
	[ "$slurm" = "$lib" ] ||
		fail "$policy, $n nodes, comm=$comm: busy=[$busy] comm=[$busy_comm]: Slurm gave $slurm, the library $lib"
	run ctl "scontrol show job $id"
	assert_output --partial "AdminComment=policy=$policy;comm=$comm;pattern=$pattern"
	assert_output --regexp "cost=[0-9.e+]+;cost_default=[0-9.e+]+;cost_greedy=[0-9.e+]+;cost_balanced=[0-9.e+]+;cost_adaptive=[0-9.e+]+"
	# Slurm gave the policy's nodes: no fallback; the cost of the nodes
	# it gave (ranks in node order) is recorded too.
	refute_output --partial fallback=
	assert_output --regexp ";cost_actual=[0-9.e+]+"
	echo "$id $policy" >>"$BATS_FILE_TMPDIR/probes"
}

# A fixed sequence of pins and probes on a freshly emptied cluster.
scenario_tiny() {
	local policy=$1
	ctl 'scancel -u root' >/dev/null
	wait_for 30 bash -c "[ -z \"\$(make -s -C '$ROOT' exec CMD='squeue -h')\" ]"
	pin_idle 4 3 1:2
	pin_idle 3 4 0
	probe tiny "$policy" 6 1 2
	probe tiny "$policy" 3 1 1
	probe tiny "$policy" 4 0 2
	pin_idle 3 2 1:3
	probe tiny "$policy" 5 1 5
	probe tiny "$policy" 2 0 4
}

@test "tiny, default: Slurm's topology/tree and the library's model agree" {
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=default >/dev/null
	scenario_tiny default
}

@test "tiny, greedy: Slurm gives the nodes the library chooses" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=greedy >/dev/null
	run make -s -C "$ROOT" status
	assert_output --partial "policy: greedy"
	scenario_tiny greedy
}

@test "tiny, balanced: Slurm gives the nodes the library chooses" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=balanced >/dev/null
	scenario_tiny balanced
}

@test "tiny, adaptive: Slurm gives the nodes the library chooses" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=adaptive >/dev/null
	scenario_tiny adaptive
}

@test "tiny, greedy: a job sized by tasks (-n, no -N) gets greedy's nodes" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=greedy >/dev/null
	ctl 'scancel -u root' >/dev/null
	wait_for 30 bash -c "[ -z \"\$(make -s -C '$ROOT' exec CMD='squeue -h')\" ]"
	pin_idle 4 3 1:2
	pin_idle 3 4 0
	# 4 cores a node: 12 tasks need 3 nodes, 9 tasks 3 as well.
	probe tiny greedy 3 1 2 "-n 12"
	probe tiny greedy 3 0 2 "-n 9"
}

@test "tiny, greedy: --switches leaves the choice to tree and says so" {
	local id
	id=$(submit "-N 2 --switches=1 --comment=1:2")
	run ctl "scontrol show job $id"
	assert_output --partial "AdminComment=policy=default;"
	assert_output --partial "fallback=switches"
}

@test "tiny, greedy: a job that must wait has no record until it starts" {
	local id
	# One node busy, so that a job of all 32 must wait (the jobs of the
	# tests before are running too, unless this test runs alone).
	submit "-N 1" >/dev/null
	id=$(ctl "sbatch --parsable -N 32 --comment=1:2 --wrap='sleep 1'")
	# Until the scheduler has tried it and found the nodes busy: before
	# that, the absence of a record proves nothing.
	wait_for 30 pending_for "$id" Resources ||
		fail "job $id: not pending for Resources within 30 s: $(ctl "squeue -h -j $id -o '%T %r'")"
	assert_equal "$(ctl "squeue -h -j $id -o %T")" PENDING
	# The submission's and the scheduler's tests of whether it could
	# ever run (on an idle-machine view) write nothing.
	run ctl "scontrol show job $id"
	refute_output --partial "policy="
	ctl "scancel $id"
}

@test "tiny, greedy: a job that begins later has no record, then greedy's nodes and record at its start" {
	local id busy busy_comm slurm lib
	# Issue 30: an eval of a job that cannot start yet (a begin time ahead,
	# or a dependency) is tree's eval alone, the policy not run
	# (plugins/slurm/commtree_eval.c, _eval_not_yet_eligible); once the
	# job may start, the policy chooses and the record is written.
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=greedy >/dev/null
	ctl 'scancel -u root' >/dev/null
	wait_for 30 bash -c "[ -z \"\$(make -s -C '$ROOT' exec CMD='squeue -h')\" ]"
	pin_idle 4 3 1:2
	pin_idle 3 4 0
	id=$(ctl "sbatch --parsable -N 3 --begin=now+1hour --comment=1:1 --wrap='sleep 600'")
	# Its submission test is made before sbatch's answer.
	wait_for 30 pending_for "$id" BeginTime ||
		fail "job $id: not pending for BeginTime: $(ctl "squeue -h -j $id -o '%T %r'")"
	run ctl "scontrol show job $id"
	refute_output --partial "policy="
	# The snapshot it will start on: nothing else changes until it runs.
	busy=$(nodes_of_running compute)
	busy_comm=$(nodes_of_running comm)
	ctl "scontrol update JobId=$id StartTime=now" >/dev/null
	wait_for 30 running "$id" ||
		fail "job $id did not start once its begin time was now: $(ctl "squeue -h -j $id -o '%T %r'")"
	slurm=$(slurm_nodes "$id")
	lib=$(library_nodes tiny greedy 3 1 rhvd "$busy" "$busy_comm")
	[ "$slurm" = "$lib" ] ||
		fail "job $id: busy=[$busy] comm=[$busy_comm]: Slurm gave $slurm, greedy $lib"
	run ctl "scontrol show job $id"
	assert_output --partial "AdminComment=policy=greedy;comm=1;pattern=rhvd"
	refute_output --partial fallback=
	echo "$id greedy" >>"$BATS_FILE_TMPDIR/probes"
}

# sacct_record <job> <policy>: sacct's AdminComment for the job names the
# policy and has its costs, as scontrol showed it while the job ran.
sacct_record() {
	ctl "sacct -X -n -j $1 -o AdminComment%300" |
		grep -Eq "(^|[[:space:]])policy=$2;.*;cost_adaptive=[0-9.e+]+"
}

@test "sacct shows every probe's policy and costs after it ends" {
	# The probes of the tests above; none (a filtered run, a failure before
	# any probe) would check nothing.
	[ -s "$BATS_FILE_TMPDIR/probes" ] || fail "no probe has run before this test: nothing to check"
	ctl 'scancel -u root' >/dev/null
	local probes line id policy
	# Read first: docker exec (ctl) would read the rest of a file on stdin.
	mapfile -t probes <"$BATS_FILE_TMPDIR/probes"
	for line in "${probes[@]}"; do
		read -r id policy <<<"$line"
		wait_for 60 sacct_record "$id" "$policy" ||
			fail "job $id: sacct's AdminComment does not name policy $policy with its costs: $(ctl "sacct -X -n -j $id -o AdminComment%300")"
	done
}

@test "hpc2010, default: agreement on the real topology's leaf order" {
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=hpc2010 POLICY=default >/dev/null
	submit "-N 20 -w cn[200-219]" >/dev/null
	probe hpc2010 default 12 1 2
	probe hpc2010 default 40 0 2
	pin_idle 30 7 1:1
	probe hpc2010 default 15 1 1
	probe hpc2010 default 100 1 2
}

@test "hpc2010, greedy and balanced on the real topology" {
	make -s -C "$ROOT" up CLUSTER=hpc2010 POLICY=greedy >/dev/null
	probe hpc2010 greedy 24 1 2
	probe hpc2010 greedy 10 0 2
	make -s -C "$ROOT" up CLUSTER=hpc2010 POLICY=balanced >/dev/null
	probe hpc2010 balanced 50 1 1
	probe hpc2010 balanced 7 0 3
}

@test "tiny, isolated: a T2 job waits although nodes are free, a later T1 job starts beside it" {
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=isolated >/dev/null
	# One node on every leaf of each pod: two T2 jobs by span (pinned,
	# so tree places them), and no leaf is left for another T2 job.
	local p0 p1 t2 t1 nodes
	p0=$(submit "-N 4 -w t[00,04,08,12]")
	p1=$(submit "-N 4 -w t[16,20,24,28]")
	t2=$(ctl "sbatch --parsable -N 5 --wrap='sleep 600'")
	t1=$(submit "-N 3")
	assert_equal "$(ctl "squeue -h -j $t2 -o %T")" PENDING
	assert_equal "$(ctl "squeue -h -j $t2 -o %r")" Resources
	# T1: one leaf (4 nodes each: t00-t03, t04-t07, ...).
	nodes=$(ctl "scontrol show hostnames \$(squeue -h -j $t1 -o %N)" | tr -d t | sed 's/^0//')
	assert_equal "$(for n in $nodes; do echo $((n / 4)); done | sort -u | wc -l)" 1
	# A pod without a T2 job: the T2 job starts there, on its four leaves.
	ctl "scancel $p1"
	wait_for 30 running "$t2" || fail "the T2 job did not start once pod 1 was free"
	nodes=$(ctl "scontrol show hostnames \$(squeue -h -j $t2 -o %N)" | tr -d t | sed 's/^0//')
	for n in $nodes; do [ "$n" -ge 16 ] || fail "T2 job on t$n, outside pod 1"; done
	run ctl "scontrol show job $t2"
	assert_output --partial "AdminComment=policy=isolated;"
	ctl "scancel $p0 $t1 $t2"
}

# Epoch seconds of a job's squeue time field (%S start, %e end).
epoch_of() { date -d "$(ctl "squeue -h -j $1 -o $2")" +%s; }

@test "tiny, isolated: backfill plans a waiting T2 job when Algorithm 1 can place it, not when tree could" {
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=isolated >/dev/null
	# A T2 job (by span) on every leaf of both pods, pod 1's ending
	# first, and a one-node job in pod 1 ending before it: once that one
	# ends tree could place 5 nodes, but no leaf is eligible for a T2 job
	# until pod 1's T2 job ends.
	local p0 p1 z t2 start z_end p1_end nodes
	p0=$(submit "-N 4 -t 30 -w t[00,04,08,12]")
	p1=$(submit "-N 4 -t 10 -w t[16,20,24,28]")
	z=$(submit "-N 1 -t 2 -w t17")
	t2=$(ctl "sbatch --parsable -N 5 -t 5 --wrap='sleep 600'")
	wait_for 30 eval '[ "$(ctl "squeue -h -j $t2 -o %S")" != N/A ]' ||
		fail "backfill planned no start for the T2 job"
	# Two backfill cycles (bf_interval=1): the plan is the settled one.
	sleep 3
	start=$(epoch_of "$t2" %S)
	z_end=$(epoch_of "$z" %e)
	p1_end=$(epoch_of "$p1" %e)
	[ "$start" -ge "$p1_end" ] && [ "$start" -le $((p1_end + 60)) ] ||
		fail "T2 job planned at $start: not at pod 1's T2 job's end ($p1_end; the one-node job ends at $z_end)"
	# Its planned nodes are Algorithm 1's: all in pod 1 (t16-t31).
	nodes=$(ctl "scontrol show job $t2" | grep -o 'SchedNodeList=[^ ]*' | cut -d= -f2)
	[ -n "$nodes" ] || fail "no SchedNodeList for the T2 job"
	nodes=$(ctl "scontrol show hostnames '$nodes'" | tr -d t | sed 's/^0//')
	assert_equal "$(echo "$nodes" | wc -w)" 5
	for n in $nodes; do [ "$n" -ge 16 ] || fail "T2 job planned on t$n, outside pod 1"; done
	ctl "scancel $p0 $p1 $z $t2"
}
