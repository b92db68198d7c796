#!/usr/bin/env bats
# INDIVIDUAL= (the ICPP-W paper's individual runs, workloads/replay/plan.py)
# without a cluster: the occupying jobs' nodes as tb-alloc places them. Which
# jobs occupy the cluster and which are drawn, the submissions' node lists
# and dependency chain and bad settings are in tests/python/test_replay_plan.py;
# a run on tiny is in replay.bats.

setup() {
	load helpers
	# 12 jobs of a 16-node machine: sizes 4 8 2 16 4 1 ... (SWF: id, submit,
	# wait, runtime, procs; one core per node).
	LOG=$BATS_TEST_TMPDIR/m.swf
	printf '; MaxNodes: 16\n; MaxProcs: 16\n' >"$LOG"
	local k sizes=(4 8 2 16 4 1 3 6 9 2 5 7)
	for k in "${!sizes[@]}"; do
		printf '%d %d 0 %d %d -1 -1 %d 9000 -1 1 1 1 -1 1 -1 -1 -1\n' \
			$((k + 1)) $((k * 100)) $((1000 + k * 10)) "${sizes[k]}" "${sizes[k]}" >>"$LOG"
	done
	PY="from workloads import logs
from workloads.replay.cli import parse_args
from workloads.replay.plan import make_plan, place_occupying
log = logs.read('$LOG')
def plan(*argv):
    args = parse_args(['--log', '$LOG', '--comm', '0.5'] + list(argv))
    return make_plan(args, log, None, 16, 1.0)[0]"
}

@test "the occupying jobs get the nodes default1905 gives them, one after another, disjoint" {
	make -s -C "$ROOT/plugins" tools >/dev/null
	generate tiny >/dev/null
	run python3 -c "$PY
import subprocess
topo = '$ROOT/build/test-config/tiny/topology.json'
p = plan('--individual', '2', '--occupy', '0.5')
place_occupying(p, topo, '$ROOT/build/c/tb-alloc')
occ = [x for x in p if x['prefill']]
lists = [x['nodelist'].split(',') for x in occ]
print(all(len(l) == x['nodes'] for l, x in zip(lists, occ)))
flat = [n for l in lists for n in l]
print(len(flat) == len(set(flat)))
print(all(x['nodelist'] == '' for x in p if not x['prefill']))
# The first is what tb-alloc gives default1905 on the idle machine.
first = subprocess.run(['$ROOT/build/c/tb-alloc', '--topology', topo, '--job',
                        f\"nodes={occ[0]['nodes']},comm={occ[0]['comm']}\", 'default1905'],
                       capture_output=True, text=True).stdout.split()[1]
print(first == occ[0]['nodelist'])
"
	assert_success
	assert_output "$(printf 'True\nTrue\nTrue\nTrue')"
	# tb-alloc finds busy nodes by name, and names one it does not know.
	run "$ROOT/build/c/tb-alloc" --topology "$ROOT/build/test-config/tiny/topology.json" \
		--busy t31,t00,t17 --job nodes=29,comm=0 default1905
	assert_success
	# Every node but the busy ones (in rank order: the partly busy leaves
	# first, as best fit takes them).
	assert_equal "$(cut -d' ' -f2 <<<"$output" | tr ',' '\n' | sort | tr '\n' ' ')" \
		"$(printf 't%02d ' {1..16} {18..30})"
	run "$ROOT/build/c/tb-alloc" --topology "$ROOT/build/test-config/tiny/topology.json" \
		--busy t00,t99 --job nodes=2 default1905
	assert_failure
	assert_output --partial "tb-alloc: --busy: unknown node 't99'"
}

