#!/usr/bin/env bats
# make fetch-logs: files land only when their sha256 matches; a corrupt or
# missing source leaves nothing a replay would read. Downloads need the
# internet, so the checks run on a local mirror (FROM=), the same code path
# after the transfer: the real logs (../shared/workloads, WORKLOADS_DIR)
# where the clone has them; the tests that need a real file's pinned sha256
# skip without them, the others use made-up files.

setup() {
	load helpers
	SHARED=$(cd "$WORKLOADS_DIR" && pwd)
	DEST=$BATS_TEST_TMPDIR/logs
}

fetch() { WORKLOADS_DIR=$DEST make -s -C "$ROOT" fetch-logs "$@"; }

@test "fetch-logs copies the named logs and checks their sha256" {
	real_logs
	run fetch FROM="$SHARED" LOGS="theta lublin"
	assert_success
	assert_line "theta: seed000-theta-2018.jobs from $SHARED/seed000-theta-2018.jobs, sha256 ok"
	assert_line "lublin: lublin-256.swf from $SHARED/lublin-256.swf, sha256 ok"
	cmp "$DEST/seed000-theta-2018.jobs" "$SHARED/seed000-theta-2018.jobs"
	run fetch FROM="$SHARED" LOGS=theta
	assert_success
	assert_output "theta: seed000-theta-2018.jobs present"
}

@test "a source with the wrong sha256 is refused and nothing is written" {
	local bad=$BATS_TEST_TMPDIR/bad
	mkdir -p "$bad"
	head -c 1000 "$ROOT/tests/fixtures/workloads/seed000-theta-2018.jobs" >"$bad/lublin-256.swf"
	run fetch FROM="$bad" LOGS=lublin
	assert_failure
	assert_output --regexp "fetch-logs: lublin: lublin-256.swf: $bad/lublin-256.swf: sha256 [0-9a-f]{64}, expected a394ab3d"
	[ ! -e "$DEST/lublin-256.swf" ] && [ ! -e "$DEST/lublin-256.swf.part" ]
}

@test "fetch-logs with an unknown log lists the valid ones" {
	run fetch FROM="$BATS_TEST_TMPDIR" LOGS=titan
	assert_failure
	assert_line "fetch-logs: unknown log 'titan'; valid: curie intrepid lublin mira theta"
}

@test "a replay reads the fetched copy by name" {
	real_logs
	fetch FROM="$SHARED" LOGS=theta >/dev/null
	run python3 -c "from workloads import logs; print(logs.resolve('theta', '$DEST')[0])"
	assert_output "$DEST/seed000-theta-2018.jobs"
}
