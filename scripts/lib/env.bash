# scripts/testbed's environment, sourced first (ROOT is set): the Compose
# project and its state directory, the images' tag, where topologies, logs
# and results are. Every other piece reads these settings, so they are made
# once, here, before any command runs.

# The Compose project: another name gives a second, independent testbed on
# the same Docker (its own containers, network and volumes).
PROJECT=${TESTBED_PROJECT:-testbed}
STATE_DIR=$ROOT/.state
[ "$PROJECT" = testbed ] || STATE_DIR=$ROOT/.state/$PROJECT
readonly PROJECT STATE_DIR
export TESTBED_PROJECT=$PROJECT TESTBED_STATE_DIR=$STATE_DIR
# The images' tag: another one keeps a second checkout's images (a branch
# under test) from replacing the ones a running testbed uses.
TAG=${TESTBED_TAG:-latest}
readonly TAG
export TESTBED_TAG=$TAG
TOPOLOGIES_DIR=${TOPOLOGIES_DIR:-$ROOT/../shared/topologies}
# Logs: WORKLOADS_DIR if given, else what `make fetch-logs` fetched, else
# the shared read-only copy beside the clone.
readonly FETCHED_LOGS=$ROOT/workloads/logs
WORKLOADS_GIVEN=${WORKLOADS_DIR:-}
if [ -z "${WORKLOADS_DIR:-}" ]; then
	WORKLOADS_DIR=$ROOT/../shared/workloads
	[ -n "$(ls -A "$FETCHED_LOGS" 2>/dev/null)" ] && WORKLOADS_DIR=$FETCHED_LOGS
fi
# Absolute, since in_tools mounts them at the same paths in the tools image.
abs_path() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "${TESTBED_CWD:-$PWD}/$1" ;;
	esac
}
TOPOLOGIES_DIR=$(abs_path "$TOPOLOGIES_DIR")
WORKLOADS_DIR=$(abs_path "$WORKLOADS_DIR")
READY_TIMEOUT=${READY_TIMEOUT:-600}
# Host files the tools image must see (filled by need_file).
IN_TOOLS_FILES=()
# Replays' results: results/ in the clone unless RESULTS_DIR says elsewhere
# (another disk, say). Absolute, since in_tools mounts it at the same path.
RESULTS_DIR=$(abs_path "${RESULTS_DIR:-$ROOT/results}")
# The policy library's build (make -C plugins BUILD=...): its tools and the
# policy registry they print, policies.tsv, which the Python reads. Another
# one is a test build (tests/config.bats); in the clone, which the tools
# image mounts.
TB_BUILD=$(abs_path "${TB_BUILD:-$ROOT/build/c}")
export TB_BUILD
