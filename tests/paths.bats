#!/usr/bin/env bats
# Files a user names by path anywhere on the host reach the tools image.
# TESTBED_SCRATCH (made by `make test`) is outside the clone, has a space in
# its name and is at the same path on the host and here; the commands run
# as on the host (TESTBED_IN_TOOLS unset), so the tools image is started
# with the mounts a host run would get.

setup() {
	load helpers
	[ -n "${TESTBED_SCRATCH:-}" ] || skip "needs TESTBED_SCRATCH (run through make test)"
	dir="$TESTBED_SCRATCH/my files"
	mkdir -p "$dir"
}

as_host() { env -u TESTBED_IN_TOOLS "$@"; }

@test "make alloc reads a scenario outside the clone, with spaces in its path" {
	cp "$ROOT/examples/figure5.scenario" "$dir/figure 5.scenario"
	run as_host make -s -C "$ROOT" alloc SCENARIO="$dir/figure 5.scenario"
	assert_success
	assert_line 'eval s0:2 s1:2 cost=15.5'
}

@test "make alloc with a relative path from another directory" {
	cp "$ROOT/examples/table2.scenario" "$dir/t2.scenario"
	cd "$dir"
	run as_host make -s -C "$ROOT" alloc SCENARIO=t2.scenario POLICY=balanced
	assert_success
	assert_output --partial 'cost=2076.19'
}

@test "a missing scenario or log is 'no such file' with its path" {
	run as_host make -s -C "$ROOT" alloc SCENARIO="$dir/none.scenario"
	assert_failure
	assert_line "error: SCENARIO=$dir/none.scenario: no such file ($dir/none.scenario)"
	run as_host make -s -C "$ROOT" alloc SCENARIO="$dir"
	assert_failure
	assert_output --partial 'not a regular file'
}

