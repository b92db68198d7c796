#!/usr/bin/env bats
# Generated configurations have the machines' real node, core and leaf counts.

setup_file() {
	load helpers
	local c
	for c in tiny hpc2010 curie theta cori cab pinot; do generate "$c"; done
}

setup() { load helpers; }

# <cluster> <nodes> <cores> <leaves> <levels>
check_counts() {
	local c=$1 dir="$ROOT/build/test-config/$1"
	assert_equal "$(json_count "$c" '.nodes | length')" "$2"
	assert_equal "$(json_count "$c" '[.nodes[].cores] | add')" "$3"
	assert_equal "$(json_count "$c" '[.switches[] | select(.level == 0)] | length')" "$4"
	assert_equal "$(json_count "$c" '.levels | length')" "$5"
	# Every node sits under exactly one leaf, and the root holds them all.
	assert_equal "$(json_count "$c" '[.switches[] | select(.level == 0) | .nodes[]] | unique | length')" "$2"
	assert_equal "$(json_count "$c" '[.switches[] | select(.level == 0) | .nodes | length] | add')" "$2"
	assert_equal "$(json_count "$c" '[.switches[] | select(.parent == null) | .nodes | length] | add')" "$2"
	# topology.conf agrees: one SwitchName line per switch with Nodes= on leaves.
	assert_equal "$(grep -c '^SwitchName=.* Nodes=' "$dir/topology.conf")" "$4"
	# slurm.conf: node lines give the same core total; TreeWidth above front ends.
	local fe tw
	fe=$(grep -c '^FrontendName=' "$dir/slurm.conf")
	tw=$(sed -n 's/^TreeWidth=//p' "$dir/slurm.conf")
	[ "$tw" -gt "$fe" ]
}

@test "tiny: 32 nodes, 128 cores, 8 leaves, 3 levels" {
	check_counts tiny 32 128 8 3
}

@test "hpc2010: 512 nodes in the real file's 32 leaves of 16, one root" {
	real_topology iitk-hpc2010.topology.conf
	check_counts hpc2010 512 4096 32 2
	run grep -c '^SwitchName=ibsw[0-9]* Nodes=' "$ROOT/build/test-config/hpc2010/topology.conf"
	assert_output 32
	assert_equal "$(json_count hpc2010 '[.switches[] | select(.level == 0) | .nodes | length] | unique')" "[
  16
]"
}

@test "curie: 5,040 nodes of 16 cores, 280 chassis leaves of 18" {
	check_counts curie 5040 80640 280 3
	assert_equal "$(json_count curie '[.switches[] | select(.level == 0) | .nodes | length] | unique | .[0]')" 18
}

@test "theta: 4,392 nodes of 64 cores, 72 chassis leaves in 12 groups" {
	check_counts theta 4392 281088 72 3
	assert_equal "$(json_count theta '[.nodes[].group] | unique | length')" 12
	assert_equal "$(json_count theta '[.nodes[].router] | max < 1152')" true
	# 4 nodes per router at most, 64 per chassis at most.
	assert_equal "$(json_count theta '[.nodes | group_by(.router)[] | length] | max')" 4
}

@test "cori: 2,388 Haswell (32 cores) + 9,688 KNL (68 cores), 34 group leaves" {
	check_counts cori 12076 735200 34 2
	run grep -c 'Feature=haswell' "$ROOT/build/test-config/cori/slurm.conf"
	assert_output 1
	assert_equal "$(json_count cori '[.nodes[] | select(.cores == 32)] | length')" 2388
	assert_equal "$(json_count cori '[.nodes[] | select(.cores == 68)] | length')" 9688
	# The study's Cori tree: 300+ nodes per leaf.
	assert_equal "$(json_count cori '[.switches[] | select(.level == 0) | .nodes | length] | min > 300')" true
}

@test "cori --leaf-level router: the same nodes under 3,054 router leaves; a fat-tree refuses it" {
	python3 "$ROOT/emulated-clusters/generate.py" cori "$ROOT/build/test-config/cori-router" \
		--topologies-dir "${TOPOLOGIES_DIR:-$ROOT/../shared/topologies}" --leaf-level router
	check_counts cori-router 12076 735200 3054 4
	assert_equal "$(json_count cori-router '.dragonfly.leaf_level')" '"router"'
	assert_equal "$(json_count cori-router '[.switches[] | select(.level == 0) | .nodes | length] | max')" 4
	run python3 "$ROOT/emulated-clusters/generate.py" curie "$ROOT/build/test-config/curie-router" --leaf-level router
	assert_failure
	assert_output --partial "curie is not a dragonfly"
	[ ! -e "$ROOT/build/test-config/curie-router" ]
}

@test "cab: 1,296 nodes, 72 leaves of 18, 4 pods" {
	check_counts cab 1296 20736 72 3
	assert_equal "$(json_count cab '[.switches[] | select(.level == 1)] | length')" 4
}

@test "pinot: 2,592 nodes, 144 leaves of 18, 8 pods of 18 leaves (SC18)" {
	check_counts pinot 2592 41472 144 3
	assert_equal "$(json_count pinot '[.switches[] | select(.level == 1)] | length')" 8
	assert_equal "$(json_count pinot '[.switches[] | select(.level == 0) | .nodes | length] | unique')" "[
  18
]"
}

@test "FRONTENDS and EMULATORS spread front ends over containers" {
	generate curie --frontends 7 --emulators 3
	local dir="$ROOT/build/test-config/curie"
	run grep -c '^FrontendName=' "$dir/slurm.conf"
	assert_output 7
	run grep -c '^  emu[0-9]*:' "$dir/emulators.yml"
	assert_output 3
	# Ports are unique.
	assert_equal "$(sed -n 's/.*Port=//p' "$dir/slurm.conf" | sort -u | wc -l)" 7
}

@test "an unknown cluster is refused with the valid names" {
	run generate atlantis
	assert_failure
	assert_output --partial "unknown CLUSTER 'atlantis'; valid: cab cori curie dfly hpc2010 pinot theta tiny"
}

@test "make config with an unknown CLUSTER lists the valid ones" {
	run make -s -C "$ROOT" config CLUSTER=atlantis
	assert_failure
	assert_output --partial "valid: cab cori curie dfly hpc2010 pinot theta tiny"
}

@test "impossible FRONTENDS/EMULATORS are refused, nothing half-written" {
	rm -rf "$ROOT/build/test-config/bad"
	run python3 "$ROOT/emulated-clusters/generate.py" tiny "$ROOT/build/test-config/bad" --frontends 2 --emulators 5
	assert_failure
	assert_output --partial "expected 1 <= EMULATORS <= FRONTENDS"
	[ ! -e "$ROOT/build/test-config/bad" ]
}

@test "hpc2010 without the real file falls back to the same shape" {
	run python3 "$ROOT/emulated-clusters/generate.py" hpc2010 "$ROOT/build/test-config/hpc2010-rule" --topologies-dir /nonexistent
	assert_success
	assert_output --partial "not found"
	assert_equal "$(grep -c 'Nodes=' "$ROOT/build/test-config/hpc2010-rule/topology.conf")" 32
}

@test "make up's memory figure is unknown, not a failure, when a container goes away meanwhile" {
	# memory_in_use from scripts/lib/running.bash, with docker stubbed: a container
	# listed by `docker ps` is gone by `docker stats` (which then fails).
	run bash -c '
		set -euo pipefail
		eval "$(sed -n "/^memory_in_use() {/,/^}/p" "$1")"
		running_containers() { printf "a\nb\n"; }
		docker() { echo "Error response from daemon: No such container: b" >&2; return 1; }
		m=$(memory_in_use); echo "memory=$m"
		docker() { printf "10MiB / 1GiB\n1.5GiB / 2GiB\n"; }
		m=$(memory_in_use); echo "memory=$m"
		running_containers() { :; }
		m=$(memory_in_use); echo "memory=$m"' _ "$ROOT/scripts/lib/running.bash"
	assert_success
	assert_output $'memory=unknown\nmemory=1546\nmemory=unknown'
}

# The scripts keep no list of policies: they read the registry the build
# wrote (plugins/lib/policy_registry.def -> tb-alloc --list-policies ->
# policies.tsv in TB_BUILD). A build with -DTB_TEST_POLICY has one more
# line there, and nothing else changes.
@test "a policy registered only in a test build reaches every list: tb-alloc, make alloc/policies/help, the generator, the replay, the experiments" {
	local build=$BATS_TEST_TMPDIR/build scenario=$ROOT/examples/table2.scenario
	make -s -C "$ROOT/plugins" tools >/dev/null
	make -s -C "$ROOT/plugins" BUILD="$build" CPPFLAGS=-DTB_TEST_POLICY tools >/dev/null
	# The registry's listing and the file the scripts read.
	run "$build/tb-alloc" --list-policies
	assert_success
	assert_line "test-only	sc18	-	none: registered by -DTB_TEST_POLICY only"
	assert_equal "$(cat "$build/policies.tsv")" "$output"
	assert_equal "$(grep -v '^test-only	' "$build/policies.tsv")" \
		"$(cat "$ROOT/build/c/policies.tsv")"
	# make policies and make help read it.
	run env TB_BUILD="$build" make -s -C "$ROOT" policies
	assert_success
	assert_line --regexp '^test-only +sc18 +- +none: registered by -DTB_TEST_POLICY only$'
	# After the library's last policy (make help wraps the list).
	run env TB_BUILD="$build" make -s -C "$ROOT" help
	# After the registry's last policy (whichever family added it); help
	# wraps the list, so the words are compared with spaces squeezed.
	local last
	last=$(tail -n 1 "$ROOT/build/c/policies.tsv" | cut -f1)
	[[ "$(tr -s ' \n' '  ' <<<"$output")" == *"$last test-only"* ]] ||
		fail "make help does not list test-only after $last"
	run make -s -C "$ROOT" help
	refute_output --partial test-only
	# make alloc runs it (firstfit's function under another name), and
	# the library's own build does not know it.
	run env TB_BUILD="$build" make -s -C "$ROOT" alloc SCENARIO="$scenario" POLICY=firstfit
	assert_success
	local firstfit=$output
	run env TB_BUILD="$build" make -s -C "$ROOT" alloc SCENARIO="$scenario" POLICY=test-only
	assert_success
	assert_output "${firstfit/firstfit/test-only}"
	run make -s -C "$ROOT" alloc SCENARIO="$scenario" POLICY=test-only
	assert_failure
	assert_output --partial "tb-alloc: unknown policy 'test-only'"
	# The generator takes it for POLICY (make up), the replay and an
	# experiment accept it; with the library's own build they refuse it.
	run env TB_BUILD="$build" python3 "$ROOT/emulated-clusters/generate.py" tiny \
		"$BATS_TEST_TMPDIR/tiny" --policy test-only \
		--topologies-dir "${TOPOLOGIES_DIR:-$ROOT/../shared/topologies}"
	assert_success
	grep -q '^TopologyParam=policy_test-only$' "$BATS_TEST_TMPDIR/tiny/slurm.conf"
	run python3 "$ROOT/emulated-clusters/generate.py" tiny "$BATS_TEST_TMPDIR/tiny2" \
		--policy test-only --topologies-dir "${TOPOLOGIES_DIR:-$ROOT/../shared/topologies}"
	assert_failure
	assert_output "error: unknown POLICY 'test-only'; valid: $(cut -f1 "$ROOT/build/c/policies.tsv" | paste -sd' ')"
	# The replay checks POLICY before PATTERN: past it, PATTERN stops it.
	run env TB_BUILD="$build" python3 -m workloads.replay --root "$ROOT" \
		--policy test-only --pattern zigzag
	assert_failure
	assert_output --partial "unknown PATTERN 'zigzag'"
	run python3 -m workloads.replay --root "$ROOT" --policy test-only --pattern zigzag
	assert_failure
	assert_output --partial "unknown POLICY 'test-only'; valid: default greedy"
	run env TB_BUILD="$build" python3 -m workloads.experiment plan icpp-table3-theta \
		--id x --out "$BATS_TEST_TMPDIR/x" --set POLICIES="default1905 test-only"
	assert_success
	grep -q '	test-only	' "$BATS_TEST_TMPDIR/x/runs.tsv"
	run python3 -m workloads.experiment plan icpp-table3-theta \
		--id y --out "$BATS_TEST_TMPDIR/y" --set POLICIES="default1905 test-only"
	assert_failure
	assert_output --partial "policies 'default1905 test-only': expected some of default greedy"
}

@test "no script keeps its own list of the policies" {
	# The names of the registry as a list anywhere but the registry:
	# a copy to keep in step by hand.
	run grep -rlE 'greedy.{1,8}balanced.{1,8}adaptive' "$ROOT/Makefile" "$ROOT/scripts" \
		"$ROOT/workloads" "$ROOT/metrics" "$ROOT/bench" "$ROOT/emulated-clusters" \
		"$ROOT/plugins/slurm" --include='*.py' --include='*.c' --include='*.h' \
		--include=testbed --include='*.bash' --include=experiment --include=Makefile
	assert_output ""
}

@test "tb-alloc refuses a --job value it cannot read, in one line naming it" {
	# tb-alloc is the oracle of the comparison with Slurm
	# (policies_vs_slurm.bats): a value it half reads (atoi took
	# nodes=12x for 12) would compare the wrong request.
	make -s -C "$ROOT/plugins" tools >/dev/null
	local tool=$ROOT/build/c/tb-alloc topo=$ROOT/build/test-config/tiny/topology.json
	run "$tool" --topology "$topo" --job nodes=12 default1905
	assert_success
	assert_equal "$(cut -d' ' -f2 <<<"$output" | tr ',' '\n' | wc -l)" 12
	run "$tool" --topology "$topo" --job nodes=12x default1905
	assert_equal "$status" 2
	assert_output "tb-alloc: --job nodes=12x: nodes='12x': expected a whole number of nodes, at least 1"
	run "$tool" --topology "$topo" --job nodes=4,comm=2 default1905
	assert_equal "$status" 2
	assert_output "tb-alloc: --job nodes=4,comm=2: comm='2': expected 0 or 1"
	run "$tool" --topology "$topo" --job nodes=,comm=1 default1905
	assert_equal "$status" 2
	assert_output "tb-alloc: --job nodes=,comm=1: nodes='': expected a whole number of nodes, at least 1"
	run "$tool" --topology "$topo" --job comm=1 default1905
	assert_equal "$status" 2
	assert_output "tb-alloc: --job comm=1: expected nodes=<n>"
	run "$tool" --topology "$topo" --job nodes=4,size=3 default1905
	assert_equal "$status" 2
	assert_output "tb-alloc: --job nodes=4,size=3: unknown key 'size' (nodes, comm, pattern, app, class, seed)"
}

@test "make up fails when the controller runs another policy or could not load the topology" {
	# verify_policy from scripts/lib/cluster.bash, with the controller stubbed: its
	# TopologyParam, and its log (a stale success line before this start,
	# then whatever the stub's "new" line is).
	run bash -c '
		set -euo pipefail
		eval "$(sed -n "/^verify_policy() {/,/^}/p" "$1")"
		die() { echo "error: $*"; exit 1; }
		sleep() { :; }
		swarm_on() { return 1; }  # a Compose cluster (scripts/lib/swarm.bash)
		opts=""
		cluster_var() {
			case $2 in POLICY) echo greedy ;; NODES) echo 32 ;; LEAVES) echo 8 ;;
			OPTIONS) echo "$opts" ;; esac
		}
		param=policy_greedy
		old="topology/commtree: /etc/slurm/topology.json: 32 nodes, 8 leaves, 3 levels"
		new=$old
		ctld_exec() { echo "TopologyParam           = $param"; }
		compose() {
			if [[ " $* " == *" --since "* ]]; then echo "$new"; else echo "$old"; echo "$new"; fi
		}
		# A case that must fail: its message alone could be printed by a
		# verify_policy that then returns 0, and make up would go on.
		fails() {
			local status=0
			("$@") || status=$?
			[ "$status" -ne 0 ] || { echo "succeeded: $*"; exit 3; }
		}
		(verify_policy tiny && echo ok)
		param=policy_default
		fails verify_policy tiny
		param=policy_greedy
		new="topology/commtree: topology.json: line 3: expected a switch; every job gets topology/tree'"'"'s choice"
		fails verify_policy tiny
		# Nothing loaded since this start, only the stale line before it:
		# enough without a start time, not since one.
		new=""
		fails verify_policy tiny 1700000000.5
		(verify_policy tiny && echo stale-ok)
		old=""
		fails verify_policy tiny
		old="topology/commtree: /etc/slurm/topology.json: 32 nodes, 8 leaves, 3 levels"
		new="topology/commtree: /etc/slurm/topology.json: 30 nodes, 8 leaves, 3 levels"
		fails verify_policy tiny 1700000000.5
		new="topology/commtree: /etc/slurm/topology.json: 32 nodes, 8 leaves, 3 levels (some nodes unknown to Slurm)"
		fails verify_policy tiny 1700000000.5
		new=$old
		param=policy_greedy,commtree_timing,eq3=path
		fails verify_policy tiny
		opts="fit=quiet eq3=path"
		param=policy_greedy,fit=quiet,commtree_timing,eq3=path
		(verify_policy tiny 1700000000.5 && echo options-ok)' _ "$ROOT/scripts/lib/cluster.bash"
	assert_success
	assert_line --index 0 ok
	assert_line --index 1 "error: the controller runs policy 'default', not 'greedy'; see 'make logs SERVICE=slurmctld'"
	assert_line --index 2 "error: slurmctld could not load the topology: topology.json: line 3: expected a switch; every job gets topology/tree's choice"
	assert_line --index 3 --partial "error: slurmctld has not loaded topology/commtree's topology.json since this start"
	assert_line --index 4 stale-ok
	assert_line --index 5 "error: slurmctld has not loaded topology/commtree's topology.json; see 'make logs SERVICE=slurmctld'"
	assert_line --index 6 --partial "error: slurmctld loaded a topology of 30 nodes, 8 leaves, not the cluster's 32 nodes, 8 leaves"
	assert_line --index 7 --partial "error: slurmctld's topology.json names nodes its slurm.conf does not"
	assert_line --index 8 --partial "error: the controller runs options 'eq3=path', not 'none'"
	assert_line --index 9 options-ok
}

@test "make clean removes only its own testbed's state and configuration, never another project's" {
	# clean_own_files from scripts/lib/cluster.bash on a made-up tree: the
	# clone's own testbed's files beside an experiment run's (TESTBED_PROJECT=exp-1).
	run bash -c '
		set -euo pipefail
		eval "$(sed -n "/^clean_own_files() {/,/^}/p" "$1")"
		ROOT=$2
		mkdir -p "$ROOT/.state/vclock" "$ROOT/.state/exp-1/vclock" "$ROOT/build/c" \
			"$ROOT/build/clusters/tiny" "$ROOT/build/projects/exp-1/clusters/cab" \
			"$ROOT/build/projects/exp-2"
		touch "$ROOT/.state/cluster" "$ROOT/.state/munge.key" "$ROOT/.state/vclock/clock" \
			"$ROOT/.state/exp-1/munge.key" "$ROOT/.state/exp-1/vclock/clock" \
			"$ROOT/build/c/tb-alloc" "$ROOT/build/clusters/tiny/slurm.conf" \
			"$ROOT/build/projects/exp-1/clusters/cab/slurm.conf"
		CLONE_PROJECT=tree-0123abcd
		PROJECT=$CLONE_PROJECT STATE_DIR=$ROOT/.state clean_own_files
		(cd "$ROOT" && find . -type f | sort)
		echo --
		PROJECT=exp-1 STATE_DIR=$ROOT/.state/exp-1 clean_own_files
		(cd "$ROOT" && find . | sort)' _ "$ROOT/scripts/lib/cluster.bash" "$BATS_TEST_TMPDIR/tree"
	assert_success
	assert_output "./.state/exp-1/munge.key
./.state/exp-1/vclock/clock
./build/c/tb-alloc
./build/projects/exp-1/clusters/cab/slurm.conf
--
.
./.state
./build
./build/c
./build/c/tb-alloc
./build/projects
./build/projects/exp-2"
}
