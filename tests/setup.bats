#!/usr/bin/env bats
# The host set-up step (scripts/setup) in a plain debian:trixie-slim
# container, as on a fresh machine: no Docker, apt sources in either format
# (made-up archives: SETUP_RESOLVE=0 stops before apt is asked); then in a
# clean Debian 12 (bookworm) built with mmdebstrap, against Debian's real
# archive: what it would install and from which release, that the release
# and libc6 stay as they were, and the set-up itself.

setup() {
	load helpers
	if ! docker image inspect debian:trixie-slim >/dev/null 2>&1; then
		"$ROOT/images/base.sh" >/dev/null
	fi
}

# in_fresh <shell commands>: run them in a throwaway trixie container with
# the clone mounted, as root unless SETUP_USER is set.
in_fresh() {
	docker run --rm -u "${SETUP_USER:-0}" -v "$ROOT:$ROOT:ro" -w "$ROOT" \
		debian:trixie-slim bash -c "$1"
}

readonly DEB822='rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*
mkdir -p /etc/apt/sources.list.d
cat >/etc/apt/sources.list.d/debian.sources <<EOF
# a comment
Types: deb
URIs: http://archive.example/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://archive.example/debian-security
Suites: trixie-security
Components: main
EOF'

readonly ONE_LINE='rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*
cat >/etc/apt/sources.list <<EOF
deb http://security.example/debian-security trixie-security main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://one.example/debian trixie main
EOF'

@test "setup DRY_RUN=1 on deb822 sources only: prints the archive and the packages, exits 0" {
	run in_fresh "$DEB822
DRY_RUN=1 SETUP_RESOLVE=0 scripts/setup; echo rc=\$?; command -v dockerd || echo no-dockerd"
	assert_success
	assert_line 'setup: archive: http://archive.example/debian'
	assert_line --partial 'setup: would install: docker.io docker-cli docker-buildx docker-compose mmdebstrap'
	assert_line 'rc=0'
	# Nothing was installed.
	assert_line no-dockerd
}

@test "setup DRY_RUN=1 on a one-line sources.list only: skips the security pocket and options" {
	run in_fresh "$ONE_LINE
DRY_RUN=1 SETUP_RESOLVE=0 scripts/setup"
	assert_success
	assert_line 'setup: archive: http://one.example/debian'
}

@test "setup on bookworm asks for Compose v2 and buildx alone from trixie, the rest from the host's release" {
	run in_fresh "$DEB822
sed -i 's/^VERSION_ID=.*/VERSION_ID=\"12\"/' /etc/os-release
DRY_RUN=1 SETUP_RESOLVE=0 scripts/setup
DRY_RUN=1 SETUP_RESOLVE=0 SETUP_DOCKER=trixie scripts/setup"
	assert_success
	assert_line 'setup: archive: http://archive.example/debian (and its trixie suite, pinned, for the packages named <name>/trixie)'
	assert_line 'setup: would install: docker.io docker-buildx/trixie docker-compose/trixie mmdebstrap'
	assert_line 'setup: would install: docker.io/trixie docker-cli/trixie docker-buildx/trixie docker-compose/trixie mmdebstrap'
}

@test "setup without any Debian archive, or not root, or not Debian: one line and a non-zero exit" {
	run in_fresh 'rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*; scripts/setup'
	assert_failure
	assert_output --partial 'setup: error: no debian archive in apt'"'"'s sources'
	SETUP_USER=1000 run in_fresh 'scripts/setup'
	assert_failure
	assert_output --partial "setup: error: not root: run 'sudo make setup', or install: docker.io"
	run in_fresh 'printf "ID=fedora\nPRETTY_NAME=Fedora\n" >/tmp/os; SETUP_OS_RELEASE=/tmp/os scripts/setup'
	assert_failure
	assert_output --partial 'setup: error: not a Debian-like system (Fedora): install: docker.io'
	assert_equal "${#lines[@]}" 1
}

# --- a clean bookworm, Debian's real archive ---------------------------------

# testbed-bookworm:<tag>: Debian 12 minbase from Debian's archive, made by
# mmdebstrap in a throwaway trixie container and imported; kept for the
# next run. mmdebstrap mounts /proc and /dev in its chroot: the container
# gets CAP_SYS_ADMIN and no seccomp or AppArmor filter, not --privileged,
# which runc refuses where the machine's own bounding set lacks a capability
# ("unable to apply caps", as on CI and our machines). The archive is
# checked before it is imported, so a failed build is a one-line failure,
# not an empty image that the next run would take for a bookworm.
bookworm_image() {
	BOOKWORM=testbed-bookworm:$TESTBED_TAG
	docker image inspect "$BOOKWORM" >/dev/null 2>&1 && return 0
	local tar=$BATS_TEST_TMPDIR/bookworm.tar log=$BATS_TEST_TMPDIR/bookworm.log
	docker run --rm -i --cap-add SYS_ADMIN --security-opt seccomp=unconfined \
		--security-opt apparmor=unconfined debian:trixie-slim bash -c '
		apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap ca-certificates >/dev/null 2>&1 &&
		mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm -' \
		>"$tar" 2>"$log" ||
		fail "building the bookworm image failed: $(tail -n 1 "$log")"
	tar -tf "$tar" ./usr/bin/bash >/dev/null 2>&1 ||
		fail "the bookworm archive has no /usr/bin/bash: $(tail -n 1 "$log")"
	docker import --change 'CMD ["bash"]' "$tar" "$BOOKWORM" >/dev/null
}

# in_bookworm <shell commands>: in a throwaway container of that image,
# the clone mounted read-only; prints the release and libc6's and
# base-files' versions before and after.
in_bookworm() {
	docker run --rm -v "$ROOT:$ROOT:ro" -w "$ROOT" "$BOOKWORM" bash -c '
		state() { echo "$1: $(. /etc/os-release && echo "$VERSION_ID $VERSION_CODENAME") libc6=$(dpkg-query -W -f="\${Version}" libc6) base-files=$(dpkg-query -W -f="\${Version}" base-files)"; }
		state before
		'"$1"'
		echo rc=$?
		state after'
}

# The same release, libc6 and base-files before and after.
unchanged() {
	local before after
	before=$(grep '^before: ' <<<"$output") || fail "no state before"
	after=$(grep '^after: ' <<<"$output") || fail "no state after"
	[[ $before =~ ^before:\ 12\ bookworm\ libc6=2\.36 ]] || fail "not a bookworm: $before"
	assert_equal "${after#after: }" "${before#before: }"
}

@test "bookworm, DRY_RUN=1: every package and its release; only Compose and buildx from trixie; nothing essential; nothing changed" {
	bookworm_image
	run in_bookworm 'DRY_RUN=1 scripts/setup'
	assert_success
	assert_line 'rc=0'
	unchanged
	assert_line 'setup: distribution: Debian GNU/Linux 12 (bookworm) (debian)'
	assert_line 'setup: would install: docker.io docker-buildx/trixie docker-compose/trixie mmdebstrap'
	assert_line --regexp '^setup:   docker-compose 2\.[^ ]+ from trixie$'
	assert_line --regexp '^setup:   docker-buildx 0\.[^ ]+ from trixie$'
	assert_line --regexp '^setup:   docker\.io 20\.10\.[^ ]+ from bookworm$'
	assert_line --regexp '^setup:   containerd 1\.6\.[^ ]+ from bookworm'
	# Every package is listed with its release: the two from trixie, all
	# else from bookworm (or its security pocket), and none replaces an
	# installed one.
	local listed others
	listed=$(grep -c '^setup:   ' <<<"$output")
	[ "$listed" -ge 5 ] || fail "only $listed packages listed"
	others=$(grep '^setup:   ' <<<"$output" | grep -v ' from bookworm\(-security\)\?$' |
		grep -v '^setup:   docker-\(compose\|buildx\) .* from trixie$' || true)
	[ -z "$others" ] || fail "from elsewhere, or replacing: $others"
	refute_output --partial '(upgrade'
	refute_output --regexp '^setup:   (libc6|base-files|dpkg|locales|libgcc-s1|libstdc\+\+6) '
	assert_line 'setup: no essential package is replaced: the host stays Debian GNU/Linux 12 (bookworm)'
	assert_line 'setup: would start dockerd'
}

@test "bookworm: a transaction that would replace base-files is refused unless SETUP_ALLOW_ESSENTIAL=1" {
	bookworm_image
	# (libc6/trixie alone apt itself refuses: bookworm's libc-bin and
	# base-files hold it back; base-files/trixie is what made the host
	# say trixie in /etc/os-release.)
	run in_bookworm 'DRY_RUN=1 SETUP_PACKAGES=base-files/trixie scripts/setup
		rc=$?; DRY_RUN=1 SETUP_PACKAGES=base-files/trixie SETUP_ALLOW_ESSENTIAL=1 scripts/setup
		echo allowed=$?; (exit $rc)'
	unchanged
	assert_line 'rc=1'
	assert_line --regexp '^setup:   base-files 12\.[^ ]+ -> 13\.[^ ]+ from trixie \(upgrade, essential\)$'
	assert_line "setup: error: this would replace essential packages (base-files): the host would no longer be the release it is; SETUP_ALLOW_ESSENTIAL=1 goes on anyway"
	assert_line 'setup: replacing essential packages (base-files), as SETUP_ALLOW_ESSENTIAL=1 asks'
	assert_line 'allowed=0'
}

@test "bookworm: the set-up itself (SETUP_START=0): Compose v2 and buildx under bookworm's Docker CLI; release, libc6 and base-files unchanged" {
	bookworm_image
	run in_bookworm 'SETUP_START=0 scripts/setup >/tmp/out 2>&1; rc=$?; tail -n 3 /tmp/out
		docker compose version; docker buildx version; docker --version; command -v dockerd mmdebstrap
		ls /etc/apt/sources.list.d; (exit $rc)'
	assert_line 'rc=0'
	unchanged
	assert_line --regexp '^Docker Compose version v?2\.'
	assert_line --regexp '^github.com/docker/buildx v?0\.'
	assert_line --regexp '^Docker version 20\.10\.'
	assert_line /usr/sbin/dockerd
	assert_line /usr/bin/mmdebstrap
	# No source was added to the host's apt.
	refute_output --partial testbed-trixie
}
