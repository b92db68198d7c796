# scripts/testbed's environment, sourced first (ROOT is set): the Compose
# project and its state directory, the images' tag, where topologies, logs
# and results are. Every other piece reads these settings, so they are made
# once, here, before any command runs.

# The Compose project. Its default is the clone's own (clone_project):
# two clones on one machine get two testbeds (containers, network, volumes,
# kept controller state) and never meet. TESTBED_PROJECT=<name> gives
# another, independent testbed of this clone (make experiment gives each
# run one); its state is in .state/<name> and its configuration in
# build/projects/<name>, while the clone's own is in .state and
# build/clusters.
#
# The name: the clone directory's name, sanitized for Compose (lower case;
# letters, digits, '-' and '_'; at most 24 characters), then '-' and the
# first 8 hex digits of the sha256 of the clone's absolute path. The name
# says which clone it is in `docker ps`; the hash keeps two clones of the
# same name (~/a/testbed and ~/b/testbed) apart. The tools image mounts the
# clone at the same path, so the name is the same inside it.
clone_project() {
	local base hash
	base=$(basename "$ROOT" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9_-' '-' |
		sed 's/^[-_]*//; s/-*$//' | cut -c1-24)
	hash=$(printf '%s' "$ROOT" | sha256sum | cut -c1-8)
	printf '%s-%s\n' "${base:-testbed}" "$hash"
}
CLONE_PROJECT=$(clone_project)
PROJECT=${TESTBED_PROJECT:-$CLONE_PROJECT}
STATE_DIR=$ROOT/.state
[ "$PROJECT" = "$CLONE_PROJECT" ] || STATE_DIR=$ROOT/.state/$PROJECT
readonly CLONE_PROJECT PROJECT STATE_DIR
# TESTBED_CLONE_PROJECT: the Python and the tests follow the same rule.
export TESTBED_PROJECT=$PROJECT TESTBED_STATE_DIR=$STATE_DIR TESTBED_CLONE_PROJECT=$CLONE_PROJECT
# The images' tag: by default the clone's own (its project's name), since
# the images carry the clone's code (the plugins, the scripts): a shared tag
# would let one clone's `make up` replace the images another clone's
# running cluster restarts its containers from. Layers of the same content
# are shared between tags, so a second clone costs only its own changes
# (and not a second compile of Slurm). Not the project: make experiment's
# runs (one project each) use the images of the clone that started them.
TAG=${TESTBED_TAG:-$CLONE_PROJECT}
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
