# Commands that need no cluster (scripts/testbed): the public logs fetched
# (make fetch-logs) and the policies run on a scenario (make alloc).

# Public logs into WORKLOADS_DIR (default workloads/logs), sha256-checked;
# FROM=<dir> copies from a local mirror instead of downloading.
cmd_fetch_logs() {
	local dest=${WORKLOADS_GIVEN:-$FETCHED_LOGS} names=()
	[ "${TESTBED_IN_TOOLS:-}" = 1 ] || require_docker
	mkdir -p "$dest"
	dest=$(cd "$dest" && pwd)
	[ -z "${FROM:-}" ] || [ -d "$FROM" ] || die "FROM=$FROM: not a directory"
	read -ra names <<<"${LOGS:-}"
	IN_TOOLS_RW=$dest in_tools python3 -m workloads.fetch_logs "$dest" \
		${FROM:+--from "$(cd "$FROM" && pwd)"} "${names[@]}"
}

# The policies on a scenario file (see examples/).
cmd_alloc() {
	local scenario=${1:-} policy=${2:-all}
	[ -n "$scenario" ] || die "SCENARIO is not set; example: make alloc SCENARIO=examples/table2.scenario"
	need_file SCENARIO "$scenario"
	build_tools
	in_tools "$TB_BUILD/tb-alloc" "$USER_FILE" "$policy"
}
