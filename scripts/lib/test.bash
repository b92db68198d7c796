# make test (scripts/testbed test): shellcheck, the C unit tests and the
# bats suites, in the tools image.

cmd_test() {
	require_docker
	ensure_images
	info "test: shellcheck"
	in_tools shellcheck -a -x "$ROOT"/scripts/testbed "$ROOT"/scripts/setup "$ROOT"/scripts/experiment "$ROOT"/tests/vclock/run.sh "$ROOT"/tests/vclock/libfaketime.sh "$ROOT"/images/base.sh \
		"$ROOT"/images/*/entrypoint.sh "$ROOT"/.ci/run
	info "test: C unit tests of the policy library (ASan + UBSan)"
	in_tools make -s -C "$ROOT/plugins" check
	info "test: the virtual clock's preload library (plugins/vclock)"
	in_tools make -s -C "$ROOT/plugins" vclock-check
	# The tools and the policy registry (build/c/policies.tsv) that the
	# Python tests and the bats suites read: built before either.
	build_tools
	info "test: Python unit tests (pytest)"
	in_tools python3 -m pytest -q "$ROOT/tests/python"
	info "test: bats suites"
	# A directory outside the clone, with a space in its name, at the same
	# path on the host and in the tools image: the tests put the files a
	# user names by path there.
	TESTBED_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/testbed scratch.XXXXXX")
	export TESTBED_SCRATCH TESTBED_IMAGES_BUILT=1
	trap 'rm -rf "$TESTBED_SCRATCH"' EXIT
	# --timing: each test's wall time on its line, so a CI log shows
	# where the run's time goes (it has a 90-minute budget).
	in_tools bats --print-output-on-failure --timing "${@:-$ROOT/tests}"
}
