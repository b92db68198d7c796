#!/usr/bin/env bats
# INDIVIDUAL= (the ICPP-W paper's individual runs, workloads/replay.py)
# without a cluster: which jobs occupy the cluster and which are drawn, the
# occupying jobs' nodes, the submissions' node lists and dependency chain,
# bad settings. A run on tiny is in replay.bats.

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
	PY="import sys; sys.path.insert(0, '$ROOT/workloads'); import logs, replay
log = logs.read('$LOG')
def plan(*argv):
    args = replay.parse_args(['--log', '$LOG', '--comm', '0.5'] + list(argv))
    return replay.make_plan(args, log, None, 16, 1.0)[0]"
}

@test "the window's first jobs that fit occupy OCCUPY of the nodes; SEED's draw of the others that fit the rest" {
	run python3 -c "$PY
p = plan('--individual', '4', '--occupy', '0.5', '--seed', '3')
occ = [(x['log_id'], x['nodes']) for x in p if x['prefill']]
drawn = [x for x in p if x['chain']]
print(occ)
print(all(x['nodes'] <= 16 - 7 for x in drawn))
print([x['chain'] for x in drawn], {x['offset'] for x in p}, len(drawn))
print(min(x['runtime'] for x in p if x['prefill']) >= 365 * 86400)
print(not set(x['log_id'] for x in drawn) & set(i for i, _ in occ))
print([x['log_id'] for x in drawn] == [x['log_id'] for x in plan('--individual', '4', '--seed', '3') if x['chain']])
print([x['log_id'] for x in drawn] != [x['log_id'] for x in plan('--individual', '4', '--seed', '4') if x['chain']])
"
	assert_success
	# Half of 16 is 8: job 1 (4 nodes), job 3 (2), job 6 (1); the others do
	# not fit what is left (7 taken, 1 left, no other 1-node job).
	assert_line --index 0 "[('1', 4), ('3', 2), ('6', 1)]"
	# Every drawn job fits the 9 free nodes, chained 1..4, all due at once.
	assert_line --index 1 True
	assert_line --index 2 "[1, 2, 3, 4] {0.0} 4"
	assert_line --index 3 True
	assert_line --index 4 True
	# The same SEED draws the same jobs; another SEED others.
	assert_line --index 5 True
	assert_line --index 6 True
}

@test "the occupying jobs get the nodes default1905 gives them, one after another, disjoint" {
	make -s -C "$ROOT/plugins" tools >/dev/null
	generate tiny >/dev/null
	run python3 -c "$PY
import subprocess
topo = '$ROOT/build/test-config/tiny/topology.json'
p = plan('--individual', '2', '--occupy', '0.5')
replay.place_occupying(p, topo, '$ROOT/build/c/tb-alloc')
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

@test "submissions pin the occupying jobs to their nodes and chain the drawn ones" {
	run python3 -c "$PY
p = plan('--individual', '3', '--occupy', '0.5')
for k, x in enumerate(q for q in p if q['prefill']):
    x['nodelist'] = f'n{k}'
class Pool:
    def __init__(self): self.next = 100; self.seen = []
    def submit_all(self, fields, items):
        for f, it in zip(fields, items):
            self.seen.append(f[7]); self.next += 1
            yield it, self.next
class Out:
    def write(self, s): pass
    def flush(self): pass
    def fileno(self): return 1
import os
os.fsync = lambda fd: None
pool, submitted = Pool(), {}
manifest = {'run_id': 'R', 't0': 1000.0, 'speedup': 1.0, 'seed': 0}
replay.submit_individual(pool, p, submitted, Out(), manifest, None)
print(' '.join(pool.seen))
# A resumed run submits only what is missing, and still chains.
del submitted[[x for x in p if x['chain'] == 3][0]['log_id']]
pool.seen = []
replay.submit_individual(pool, p, submitted, Out(), manifest, None)
print(' '.join(pool.seen))
"
	assert_success
	assert_line --index 0 "nodelist=n0 nodelist=n1 nodelist=n2 dependency=after:101:102:103 dependency=afterany:104 dependency=afterany:105"
	assert_line --index 1 "dependency=afterany:105"
}

@test "bad INDIVIDUAL and OCCUPY settings are one-line errors" {
	check() {
		run python3 -c "$PY
try:
    plan(*sys.argv[1:])
except replay.ReplayError as e:
    print('error:', e); sys.exit(1)" "$@"
		assert_failure
		assert_output --partial "$EXPECT"
		assert_equal "${#lines[@]}" 1
	}
	EXPECT="INDIVIDUAL=0: expected the number of jobs" check --individual 0
	EXPECT="OCCUPY=1: expected the share" check --individual 3 --occupy 1
	EXPECT="OCCUPY is the share INDIVIDUAL= runs occupy first" check --occupy 0.5
	EXPECT="INDIVIDUAL and PREFILL both fill" check --individual 3 --prefill 0.5 --first 2
	# Window: jobs 4 (16 nodes) and 5 (4): job 5 occupies, and 16 nodes do
	# not fit the 12 left.
	EXPECT="no job of the window fits the 12 nodes" check --individual 3 --first 3 --jobs 2
}
