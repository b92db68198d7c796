# Helpers every piece of scripts/testbed uses: messages, the files and
# runs a user names (checked once, the same way for every command), and
# progress lines.

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

info() { printf '%s\n' "$*"; }

# A file the user named, anywhere on the host: it must exist; its absolute
# path goes to USER_FILE and it is mounted read-only into the tools image.
need_file() {
	local what=$1 given=$2 path
	path=$(abs_path "$given")
	[ -e "$path" ] || die "$what=$given: no such file ($path)"
	[ -f "$path" ] || die "$what=$given: not a regular file ($path)"
	case $path in
	*:*) die "$what=$given: a path with ':' cannot be mounted into the tools image; rename or link it" ;;
	esac
	IN_TOOLS_FILES+=("$path")
	USER_FILE=$path
}

# RESUME and RUN take a run id in RESULTS_DIR or a run directory's path
# (which then sets RESULTS_DIR). Sets RUN_ID.
run_arg() {
	local what=$1 given=$2 dir
	RUN_ID=$given
	case $given in
	*/*)
		dir=$(abs_path "${given%/}")
		[ -d "$dir" ] || die "$what=$given: no such directory ($dir)"
		RESULTS_DIR=$(dirname "$dir")
		RUN_ID=$(basename "$dir")
		;;
	esac
}

# Progress on one rewritten line on a terminal, a line every 10 s otherwise.
progress() {
	if [ -t 1 ]; then
		printf '\r\033[K%s' "$*"
	elif [ $((SECONDS - ${last_progress:-0})) -ge 10 ]; then
		last_progress=$SECONDS
		printf '%s\n' "$*"
	fi
}
progress_done() { if [ -t 1 ]; then printf '\n'; fi; }
