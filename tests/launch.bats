#!/usr/bin/env bats
# The launch guard (workloads/launch.py) without a cluster: which begin
# times make a burst, when the clock is slowed and let go, what launch.tsv
# records. A cluster run of it is in vclock.bats.

setup() {
	load helpers
	GUARD="import sys; sys.path.insert(0, '$ROOT/workloads'); import launch
rates = []
g = launch.LaunchGuard('$BATS_TEST_TMPDIR/launched.tsv', 1000.0, rates.append,
                       lambda text: print('log:', text))"
}

@test "a burst is 32 begin times within one wall second at the run's rate" {
	run python3 -c "import sys; sys.path.insert(0, '$ROOT/workloads'); import launch
print(launch.bursts([0.0] * 40 + [5000.0] + [9000.0 + k for k in range(31)], 1000))
print(launch.bursts([float(k * 30) for k in range(40)], 1000))
print(launch.bursts([float(k * 30) for k in range(40)], 100))
print(launch.bursts([float(k * 40) for k in range(40)], 1000))"
	assert_success
	# 31 begin times are not a burst.
	assert_line --index 0 "[0.0]"
	# One every 30 log s: 33 a wall second at rate 1000, a burst; 3 at 100.
	assert_line --index 1 "[0.0]"
	assert_line --index 2 "[]"
	# One every 40 log s: 25 a wall second, fewer than the emulator launches.
	assert_line --index 3 "[]"
}

@test "the clock slows while 16 started jobs have not begun their script, and goes back when they have" {
	run python3 -c "$GUARD
running = [(str(j), 100.0, 5000.0) for j in range(1, 21)]
g.update(running, 1.0, 0, 110.0)
print('slowed', rates)
with open('$BATS_TEST_TMPDIR/launched.tsv', 'w') as f:
    for j in range(1, 18):
        f.write(f'{j}\t100\t{100 + j}\n')
    f.write('18\t100')  # a line being written: not read yet
g.update(running, 2.0, 0, 111.0)
print('back', rates, g.slow_wall)"
	assert_success
	assert_line --partial "log: launch guard: 20 jobs started by Slurm whose script has not begun"
	assert_line "slowed [1.0]"
	assert_line "back [1.0, 1000.0] 1.0"
}

@test "one launching job that would end late slows the clock; jobs due at once keep it slow" {
	run python3 -c "$GUARD
# started at 10 for 100 s, now 60: its end is 0.05 wall s away at rate 1000
g.update([('7', 10.0, 100.0)], 1.0, 0, 60.0)
print(rates)
# launched, but 40 jobs become eligible within ahead(): still slow
open('$BATS_TEST_TMPDIR/launched.tsv', 'w').write('7\t10\t13\n')
g.update([('7', 10.0, 100.0)], 2.0, 40, 61.0)
print(rates)
g.update([('7', 10.0, 100.0)], 3.0, 0, 62.0)
print(rates)"
	assert_success
	assert_line --partial "1 jobs started by Slurm would end late"
	assert_line --index 1 "[1.0]"
	assert_line --index 2 "[1.0]"
	assert_line --partial "log: launch guard: back to rate 1000"
	assert_line --index 4 "[1.0, 1000.0]"
}

@test "LAUNCH_GUARD=0 records launches but never changes the rate" {
	run python3 -c "import sys; sys.path.insert(0, '$ROOT/workloads'); import launch
rates = []
g = launch.LaunchGuard('$BATS_TEST_TMPDIR/l.tsv', 1000.0, rates.append, print, enabled=False)
g.update([(str(j), 0.0, 1.0) for j in range(40)], 1.0, 100, 50.0)
print(rates, g.max_backlog)"
	assert_success
	assert_output "[] 40"
}

@test "launch.tsv has each job's lag and how late it ended; the manifest's summary counts them" {
	printf '3\t100\t104.5\n4\t100\t100.25\nx\tbad\n9\t100\t101\n' >"$BATS_TEST_TMPDIR/launched.tsv"
	run python3 -c "$GUARD
s = g.write('$BATS_TEST_TMPDIR', {'3': 'a', '4': 'b'}, {'a': 2.0, 'b': 60.0})
print(s['jobs'], s['late_jobs'], s['late_max_s'], s['lag_max_s'])
print(open('$BATS_TEST_TMPDIR/launch.tsv').read(), end='')"
	assert_success
	assert_line --index 0 "2 1 2.5 4.5"
	assert_line --index 1 "$(printf 'log_id\tjob_id\tlaunch_lag_s\tlate_s')"
	assert_line --index 2 "$(printf 'a\t3\t4.500\t2.500')"
	assert_line --index 3 "$(printf 'b\t4\t0.250\t0.000')"
	[ ! -e "$BATS_TEST_TMPDIR/launch.tsv.tmp" ]
}

@test "the burst timer slows the clock just before a burst's first begin time" {
	# At rate 10 the margin (MARGIN, 5 log s) is half a wall second, more
	# than a loaded machine delays a thread: a burst at 10 log s (1 wall s)
	# slows the clock at 0.5 wall s (from 0.49: the timer wakes EARLY_WALL,
	# 0.01 s, before), late by up to 0.3 s here (threads woken late); a
	# timer without the margin would slow it at the burst, after 0.99 s.
	run python3 -c "import sys, time; sys.path.insert(0, '$ROOT/workloads'); import launch
rates = []
g = launch.LaunchGuard('$BATS_TEST_TMPDIR/launched.tsv', 10.0, rates.append,
                       lambda text: print('log:', text))
m0 = time.monotonic()
now = lambda: (10.0 * (time.monotonic() - m0), 10.0 if not rates else rates[-1])
g.watch([10.0] * 40, now)
# Until the timer has slowed the clock (5 wall s at most), not a fixed sleep.
while g.slow_since is None and time.monotonic() - m0 < 5:
    time.sleep(0.01)
g.stop()
print(rates)
print('slowed at', None if g.slow_since is None else round(g.slow_since - m0, 3))"
	assert_success
	assert_line --partial "a burst of begin times at +"
	assert_line "[1.0]"
	local t
	t=$(sed -n 's/^slowed at //p' <<<"$output")
	[[ $t =~ ^[0-9.]+$ ]] || fail "the timer did not slow the clock within 5 s"
	awk -v t="$t" 'BEGIN { exit !(t >= 0.49 && t <= 0.5 + 0.3) }' ||
		fail "the clock slowed at $t wall s, expected 0.49 to 0.8"
}

@test "jobs due for the launch guard: a burst's, those not yet submitted, those the scheduler has not looked at" {
	run python3 -c "import sys; sys.path.insert(0, '$ROOT/workloads'); import replay
plan = [{'log_id': k, 'offset': o} for k, o in
        (('old', 0), ('seen', 10), ('fresh', 20), ('unsub', 30), ('now', 98), ('soon', 105), ('later', 500))]
q = {'old': ('PENDING', None, None, None, '1', 'Resources'),
     'seen': ('PENDING', None, None, None, '2', 'Priority'),
     'fresh': ('PENDING', None, None, None, '3', 'None'),
     'now': ('PENDING', None, None, None, '5', 'Resources'),
     'soon': ('PENDING', None, None, None, '6', 'BeginTime')}
sub = {'old': 1, 'seen': 2, 'fresh': 3, 'now': 5, 'soon': 6}
# at 100, looking 10 s ahead, DUE_GRACE 3 s back
print(replay.due_soon(plan, 0.0, 1.0, 100.0, 10.0, q, sub))
q['fresh'] = ('RUNNING', 25, None, None, '3', 'None')
print(replay.due_soon(plan, 0.0, 1.0, 100.0, 10.0, q, dict(sub, unsub=4)))"
	assert_success
	# fresh (reason None), unsub (not submitted), now and soon (in the window)
	assert_line --index 0 "4"
	assert_line --index 1 "2"
}

@test "a launch not begun 30 wall s after it was first seen is taken as lost, and the clock goes back" {
	run python3 -c "$GUARD
g.update([('3', 1000.0, 90000.0)], 1.0, 0, 1070.0)
print('a', rates)
g.update([('3', 1000.0, 90000.0)], 20.0, 0, 1090.0)
print('b', rates)
g.update([('3', 1000.0, 90000.0)], 31.0, 0, 1101.0)
print('c', rates)
import json; print('lost', json.dumps(g.write('$BATS_TEST_TMPDIR', {'3': 'a'}, {'a': 90000.0})['lost_launches']))"
	assert_success
	# Held up 70 log s: slowed; 19 wall s later still waited for.
	assert_line "a [1.0]"
	assert_line "b [1.0]"
	assert_line --partial "launch guard: job 3 started by Slurm has not begun its script 30 wall s later; taken as lost"
	assert_line "c [1.0, 1000.0]"
	assert_line "lost [3]"
}

@test "a launch held up 60 log s slows the clock, even one that will not end late" {
	run python3 -c "$GUARD
g.update([('3', 1000.0, 90000.0)], 1.0, 0, 1030.0)
print(rates)
g.update([('3', 1000.0, 90000.0)], 2.0, 0, 1070.0)
print(rates)"
	assert_success
	assert_line --index 0 "[]"
	assert_line --partial "1 jobs started by Slurm 60 s ago or more have not begun their script"
	assert_line "[1.0]"
}

@test "the report flags jobs that ended more than 60 s late because of their launch (late_launch)" {
	printf 'log_id\tjob_id\tlaunch_lag_s\tlate_s\na\t1\t70\t61\nb\t2\t500\t0\nc\t3\t90\t80\n' \
		>"$BATS_TEST_TMPDIR/launch.tsv"
	run python3 -c "import sys; sys.path.insert(0, '$ROOT/metrics'); import report
rows = [{'job_id': 1, 'fault': ''}, {'job_id': 2, 'fault': ''}, {'job_id': 3, 'fault': 'requeued'},
        {'job_id': 4, 'fault': ''}]
print(report.mark_late_launches(rows, '$BATS_TEST_TMPDIR'), [r['fault'] for r in rows])
print(report.mark_late_launches(rows, '$BATS_TEST_TMPDIR/none'))"
	assert_success
	assert_line --index 0 "1 ['late_launch', '', 'requeued', '']"
	assert_line --index 1 "0"
}
