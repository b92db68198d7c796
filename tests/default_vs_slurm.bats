#!/usr/bin/env bats
# The library's `default` policy models Slurm 24.11's topology/tree. Every
# other policy's runtime is scaled by the cost of this allocation, so check
# it against Slurm itself: pin some nodes with jobs, submit a probe job, and
# compare the nodes Slurm gave with what the library picks for the same
# snapshot. Probes stay running, so each step's snapshot is a new one.

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

# Busy nodes as a comma-separated list of names.
busy_nodes() {
	ctl 'squeue -h -t R -o %N | paste -sd, | xargs -r scontrol show hostnames' | paste -sd,
}

running() { [ "$(ctl "squeue -h -j $1 -o %T")" = RUNNING ]; }

submit() {
	local id
	id=$(ctl "sbatch --parsable $1 --wrap='sleep 600'")
	wait_for 30 running "$id" || fail "job $id ($1) did not start"
	echo "$id"
}

# Pins k idle nodes, every stride-th one, with a long job: fragments leaves
# irregularly whatever earlier probes took.
pin_idle() {
	local k=$1 stride=$2 nodes
	nodes=$(ctl "sinfo -h -t idle -N -o %N" | awk -v s="$stride" -v k="$k" \
		'NR % s == 0 && n < k {printf "%s%s", (n++ ? "," : ""), $1}')
	submit "-N $k -w $nodes" >/dev/null
}

# probe <cluster> <nodes>: Slurm's choice and the library's must agree.
probe() {
	local cluster=$1 n=$2 busy id slurm lib
	busy=$(busy_nodes)
	id=$(submit "-N $n")
	slurm=$(ctl "scontrol show hostnames \$(squeue -h -j $id -o %N)" | sort | paste -sd,)
	lib=$("$ROOT/build/c/tb-alloc" --topology "$ROOT/build/clusters/$cluster/topology.json" \
		${busy:+--busy "$busy"} --job "nodes=$n" default | cut -d' ' -f2 | tr , '\n' | sort | paste -sd,)
	[ "$slurm" = "$lib" ] || fail "$n nodes with busy=[$busy]: Slurm gave $slurm, the library $lib"
}

@test "tiny: Slurm's topology/tree and the library's default agree on 6 snapshots" {
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny >/dev/null
	submit "-N 4 -w t[00-02],t05" >/dev/null
	probe tiny 6	# no leaf fits: tighter pod, largest leaf, then closest fit
	probe tiny 3	# best fit among leaves
	probe tiny 9
	pin_idle 5 2
	probe tiny 5
	probe tiny 1
	probe tiny 2
}

@test "hpc2010: agreement on the real topology's leaf order" {
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=hpc2010 >/dev/null
	submit "-N 20 -w cn[200-219]" >/dev/null
	probe hpc2010 12
	probe hpc2010 40
	pin_idle 30 7
	probe hpc2010 15
	probe hpc2010 100
}
