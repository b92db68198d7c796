# scripts/testbed's Docker side: the host's Docker checked (or set up),
# commands run in the tools image, and the images built on use.

readonly IMAGES=(tools db slurm registry)

# A host without Docker (or with its daemon stopped) gets the set-up step
# first: the README's `make up` and `make test` then work on a fresh machine.
require_docker() {
	if [ "${TESTBED_IN_TOOLS:-}" != 1 ] && ! docker info >/dev/null 2>&1; then
		info "Docker is not running here: running the set-up step first (make setup)"
		"$ROOT/scripts/setup" || exit 1
	fi
	command -v docker >/dev/null 2>&1 ||
		die "docker not found: install Docker Engine (Debian: docker.io docker-cli)"
	docker info >/dev/null 2>&1 ||
		die "the Docker daemon is not reachable: start dockerd (or check your access to its socket)"
	docker compose version >/dev/null 2>&1 ||
		die "Docker Compose v2 not found: install the compose plugin (Debian: docker-compose >= 2)"
}

# Runs a command in the tools image with the repository (and ../shared, when
# present) at the same paths, as the calling user, with the Docker socket.
in_tools() {
	if [ "${TESTBED_IN_TOOLS:-}" = 1 ]; then
		PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} "$@"
		return
	fi
	# PYTHONPATH: the Python packages (workloads, metrics) from the clone.
	local args=(--rm -i -u "$(id -u):$(id -g)" -e HOME=/tmp
		-v "$ROOT:$ROOT" -w "$PWD" -e PYTHONPATH="$ROOT"
		-e TOPOLOGIES_DIR="$TOPOLOGIES_DIR" -e WORKLOADS_DIR="$WORKLOADS_DIR"
		-e READY_TIMEOUT="$READY_TIMEOUT" -e CI="${CI:-}" -e TESTBED_PROJECT="$PROJECT" -e TESTBED_TAG="$TAG"
		-e TESTBED_CLONE_PROJECT="$CLONE_PROJECT"
		-e TESTBED_STATE_DIR="$STATE_DIR" -e RESULTS_DIR="$RESULTS_DIR" -e TB_BUILD="$TB_BUILD"
		-e TESTBED_SCRATCH="${TESTBED_SCRATCH:-}" -e TESTBED_IMAGES_BUILT="${TESTBED_IMAGES_BUILT:-}")
	local sock=/var/run/docker.sock dir
	if [ -S "$sock" ]; then
		args+=(-v "$sock:$sock" --group-add "$(stat -c %g "$sock")")
	fi
	# Files the user named anywhere on the host (LOG, SCENARIO), read-only.
	local file
	for file in "${IN_TOOLS_FILES[@]}"; do
		args+=(-v "$file:$file:ro")
	done
	for dir in "$TOPOLOGIES_DIR" "$WORKLOADS_DIR" ${FROM:+"$FROM"} "$RESULTS_DIR" \
		${TESTBED_SCRATCH:+"$TESTBED_SCRATCH"}; do
		[ -d "$dir" ] || continue
		dir=$(cd "$dir" && pwd)
		# Results and IN_TOOLS_RW are what a command writes outside the clone.
		if [ "$dir" = "${IN_TOOLS_RW:-}" ] || [ "$dir" = "$RESULTS_DIR" ] ||
			[ "$dir" = "${TESTBED_SCRATCH:-}" ]; then
			args+=(-v "$dir:$dir")
		else
			args+=(-v "$dir:$dir:ro")
		fi
	done
	# RUN_ID_FILE (make experiment): the replay writes the new run's id.
	[ -z "${RUN_ID_FILE:-}" ] || args+=(-v "$(dirname "$RUN_ID_FILE"):$(dirname "$RUN_ID_FILE")")
	[ -t 0 ] && [ -t 1 ] && args+=(-t)
	docker run "${args[@]}" "testbed-tools:$TAG" "$@"
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

build_image() {
	local name=$1 target=()
	[ "$name" = slurm ] && target=(--target runtime)
	if ! image_exists "testbed-$name:$TAG"; then
		local note=""
		[ "$name" = slurm ] && note=" (compiling Slurm the first time takes about 7 minutes)"
		info "images: building testbed-$name$note"
	fi
	DOCKER_BUILDKIT=1 docker build --progress=quiet "${target[@]}" \
		-f "$ROOT/images/$name/Dockerfile" -t "testbed-$name:$TAG" "$ROOT" >/dev/null ||
		die "building images/$name failed; run 'docker build -f images/$name/Dockerfile $ROOT' to see why"
}

# Every image is rebuilt on use: with cached layers that takes under a
# second, and it keeps a pulled change to plugins/ or the scripts from
# running on a stale image.
cmd_images() {
	require_docker
	ensure_images
}

ensure_images() {
	local name
	# Inside the tools image (tests), the outer `make test` built them;
	# so it did for a test that runs the script as on the host (the tools
	# image has no buildx to build with).
	[ "${TESTBED_IN_TOOLS:-}" = 1 ] && return 0
	[ "${TESTBED_IMAGES_BUILT:-}" = 1 ] && return 0
	"$ROOT/images/base.sh"
	for name in "${IMAGES[@]}"; do build_image "$name"; done
}
