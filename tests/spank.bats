#!/usr/bin/env bats
# Per-job input at submission: --comm and --comm-matrix (the SPANK plugin)
# are checked where the user submits; what reaches the controller shows in
# AdminComment; what the controller cannot use falls back to default with
# the reason logged, and slurmctld keeps running.

setup_file() {
	load helpers
	make -s -C "$ROOT" down >/dev/null
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=greedy >/dev/null
	ctl_sh 'printf "ranks 4\n0 1 1000\n1 2 500 # comment\n3 0 250\n" > /tmp/m4.txt'
	ctl_sh 'printf "ranks 4\n0 9 1000\n" > /tmp/bad-rank.txt'
}

teardown_file() {
	load helpers
	make -s -C "$ROOT" exec CMD='scancel -u root' >/dev/null 2>&1 || true
	make -s -C "$ROOT" down >/dev/null
}

setup() { load helpers; }

ctl_sh() { make -s -C "$ROOT" exec CMD="$1"; }

jobs_now() { ctl_sh 'squeue -h | wc -l'; }

# The job's AdminComment once the controller has placed it.
admin_comment() {
	wait_for 30 bash -c "make -s -C '$ROOT' exec CMD='scontrol show job $1' | grep -q 'AdminComment=policy='" ||
		fail "job $1 has no AdminComment"
	ctl_sh "scontrol show job $1" | sed -n 's/.*AdminComment=\([^ ]*\).*/\1/p'
}

refused() {
	local before
	before=$(jobs_now)
	run ctl_sh "sbatch --parsable $1 -N 1 --wrap='sleep 1'"
	assert_failure
	assert_output --partial "$2"
	[ "$(jobs_now)" = "$before" ] || fail "a job was created despite the error"
}

@test "--comm with an unknown pattern is refused at submission, naming the valid ones" {
	refused --comm=butterfly "--comm=butterfly: expected <pattern>[:<percent>], pattern one of rd, rhvd, binomial, ring, cmc, none"
}

@test "--comm with a percent outside 0-100 is refused at submission" {
	refused --comm=rd:150 "--comm=rd:150: expected"
}

@test "--comm-matrix with a missing file is refused at submission" {
	refused --comm-matrix=/tmp/nope.txt "--comm-matrix: /tmp/nope.txt: cannot read the file"
}

@test "--comm-matrix with a malformed line names the file and line" {
	refused --comm-matrix=/tmp/bad-rank.txt "--comm-matrix: /tmp/bad-rank.txt:2: rank out of range 0-3"
}

@test "--comm sets the pattern and share the controller uses" {
	local id
	id=$(ctl_sh "sbatch --parsable -N 2 --comm=ring:30 --wrap='sleep 1'")
	run admin_comment "$id"
	assert_output --partial "policy=greedy;comm=1;pattern=ring;comm_percent=30;"
	id=$(ctl_sh "sbatch --parsable -N 2 --comm=none --comment=1:2 --wrap='sleep 1'")
	run admin_comment "$id"
	assert_output --partial "comm=0;"
}

@test "--comm-matrix reaches the controller: hop-bytes of the chosen and the default nodes" {
	local id
	id=$(ctl_sh "sbatch --parsable -N 4 --comm-matrix=/tmp/m4.txt --wrap='sleep 1'")
	run admin_comment "$id"
	assert_output --partial "policy=greedy;comm=1;"
	assert_output --regexp ";matrix_ranks=4;hop_bytes=[0-9.e+]+;hop_bytes_default=[0-9.e+]+"
	refute_output --partial "fallback="
}

@test "a matrix the controller cannot parse falls back to default, logged, and slurmctld lives" {
	local id
	ctl_sh 'printf "#!/bin/bash\nsleep 1\n" > /tmp/one.sh'
	id=$(ctl_sh "printf 'bad-matrix\t2\t5\t0\t0\t1:2\n' |
		TB_SUBMIT_SPANK='TESTBED_COMM_MATRIX=ranks 2;0 7 1' tb-submit /tmp/one.sh")
	[[ "$id" =~ ^[0-9]+$ ]] || fail "tb-submit said: $id"
	run admin_comment "$id"
	assert_output --partial "policy=default;"
	assert_output --partial ";fallback=bad_matrix"
	run make -s -C "$ROOT" logs SERVICE=slurmctld
	assert_output --partial "JobId=$id: --comm-matrix:2: rank out of range 0-1; allocating as default"
	id=$(ctl_sh "printf 'bad-comm\t1\t5\t0\t0\t1:2\n' |
		TB_SUBMIT_SPANK='TESTBED_PROFILE=1:nonsense' tb-submit /tmp/one.sh")
	run admin_comment "$id"
	assert_output --partial ";fallback=bad_comm"
	run ctl_sh 'scontrol ping'
	assert_output --partial "is UP"
}

@test "tm-i: a matrix job gets TreeMatch's nodes, its rank order in the batch environment and every strategy's hop-bytes in sacct" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=tm-i >/dev/null
	local id
	id=$(ctl_sh "sbatch --parsable -N 4 --comm-matrix=/tmp/m4.txt -o /tmp/tm-%j.out --wrap='echo TESTBED_RANK_NODES=\$TESTBED_RANK_NODES'")
	run admin_comment "$id"
	assert_output --partial "policy=tm-i;comm=1;"
	assert_output --regexp ";hop_bytes_tm-a=[0-9.e+]+;hop_bytes_tm-i=[0-9.e+]+;hop_bytes_tm-sub=[0-9.e+]+;hop_bytes_tm-sub3=[0-9.e+]+"
	refute_output --partial "fallback="
	# The rank order names the job's own nodes, one per rank block; the
	# output file is on the front end's container.
	local emu nodes order
	emu=$(docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT" \
		--filter label=com.docker.compose.service=emu1)
	wait_for 30 bash -c "docker exec $emu cat /tmp/tm-$id.out 2>/dev/null | grep -q TESTBED_RANK_NODES=." ||
		fail "no TESTBED_RANK_NODES in the job's output"
	order=$(docker exec "$emu" cat "/tmp/tm-$id.out" | sed -n 's/^TESTBED_RANK_NODES=//p')
	nodes=$(ctl_sh "scontrol show hostnames \$(sacct -X -n -j $id -o NodeList%100 | tr -d ' ')" | sort | paste -sd,)
	[ -n "$nodes" ] || fail "sacct has no node list for job $id"
	assert_equal "$(tr , '\n' <<<"$order" | sort | paste -sd,)" "$nodes"
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=greedy >/dev/null
}

@test "tm-i at core level (partition cores): a partly busy node counts, ranks that talk share a node, sacct has every strategy's hop-bytes" {
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=tm-i >/dev/null
	# Ranks 0-5 and 1-2-3-4 talk much, 0-1 and 4-5 little: in blocks
	# (tree's cores, 2 + 4) two heavy pairs cross nodes, 120,040
	# hop-bytes (2 hops inside a node, 4 between two nodes of a leaf);
	# TreeMatch keeps them inside, 80,080.
	ctl_sh 'printf "ranks 6\n0 5 10000\n1 2 10000\n2 3 10000\n3 4 10000\n0 1 10\n4 5 10\n" > /tmp/m6.txt'
	local first id emu order
	first=$(ctl_sh "sbatch --parsable -p cores -n 2 --wrap='sleep 300'")
	wait_for 30 bash -c "make -s -C '$ROOT' exec CMD='squeue -h -j $first -t R' | grep -q ." ||
		fail "the 2-core job did not start"
	id=$(ctl_sh "sbatch --parsable -p cores -n 6 --comm-matrix=/tmp/m6.txt -o /tmp/tm-%j.out --wrap='echo TESTBED_RANK_NODES=\$TESTBED_RANK_NODES; sleep 300'")
	run admin_comment "$id"
	assert_output --partial "policy=tm-i;granularity=core;"
	assert_output --partial ";matrix_ranks=6;hop_bytes=80080;hop_bytes_default=120040;hop_bytes_tm-a=80080;hop_bytes_tm-i=80080;"
	refute_output --partial "fallback="
	# Slurm gave the job the free half of the first job's node.
	local busy
	busy=$(ctl_sh "squeue -h -j $first -o %N")
	run ctl_sh "scontrol show job -d $id"
	assert_output --regexp "Nodes=$busy CPU_IDs=[0-9]-[0-9] "
	assert_output --partial "NumCPUs=6 "
	# One node per rank: 0 and 5 together, 1 to 4 together.
	emu=$(docker ps -q --filter "label=com.docker.compose.project=$TESTBED_PROJECT" \
		--filter label=com.docker.compose.service=emu1)
	wait_for 30 bash -c "docker exec $emu cat /tmp/tm-$id.out 2>/dev/null | grep -q TESTBED_RANK_NODES=." ||
		fail "no TESTBED_RANK_NODES in the job's output"
	order=$(docker exec "$emu" cat "/tmp/tm-$id.out" | sed -n 's/^TESTBED_RANK_NODES=//p')
	IFS=, read -r -a r <<<"$order"
	[ "${#r[@]}" -eq 6 ] || fail "rank order $order: expected 6 entries"
	[ "${r[0]}" = "${r[5]}" ] && [ "${r[0]}" = "$busy" ] ||
		fail "rank order $order: ranks 0 and 5 should share $busy"
	[ "${r[1]}" = "${r[2]}" ] && [ "${r[2]}" = "${r[3]}" ] && [ "${r[3]}" = "${r[4]}" ] ||
		fail "rank order $order: ranks 1 to 4 should share a node"
	# With a node count (-N) TreeMatch does not choose how many nodes the
	# ranks take: tree places the job, and the record says why.
	ctl_sh "scancel $id"
	id=$(ctl_sh "sbatch --parsable -p cores -N 2 -n 6 --comm-matrix=/tmp/m6.txt --wrap='sleep 300'")
	run admin_comment "$id"
	assert_output --partial "policy=default;"
	assert_output --partial ";fallback=shared_nodes"
	wait_for 30 bash -c "make -s -C '$ROOT' exec CMD='squeue -h -j $id -t R' | grep -q ." ||
		fail "the -N 2 -n 6 job did not start"
	# Under default the same job gets tree's cores, ranks in blocks, and
	# the record still has every strategy's hop-bytes on that state.
	ctl_sh "scancel $id"
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=default >/dev/null
	id=$(ctl_sh "sbatch --parsable -p cores -n 6 --comm-matrix=/tmp/m6.txt --wrap='sleep 300'")
	run admin_comment "$id"
	assert_output --partial "policy=default;granularity=core;"
	assert_output --partial ";hop_bytes=120040;hop_bytes_default=120040;hop_bytes_tm-a=80080;hop_bytes_tm-i=80080;"
	ctl_sh "scancel $first $id"
	make -s -C "$ROOT" up CLUSTER=tiny POLICY=greedy >/dev/null
}
