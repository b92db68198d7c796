#!/usr/bin/env bats
# The host set-up step (scripts/setup) in a plain debian:trixie-slim
# container, as on a fresh machine: no Docker, apt sources in either format.

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
DRY_RUN=1 scripts/setup; echo rc=\$?; command -v dockerd || echo no-dockerd"
	assert_success
	assert_line 'setup: archive: http://archive.example/debian'
	assert_line --partial 'setup: would install: docker.io docker-cli docker-buildx docker-compose mmdebstrap'
	assert_line 'rc=0'
	# Nothing was installed.
	assert_line no-dockerd
}

@test "setup DRY_RUN=1 on a one-line sources.list only: skips the security pocket and options" {
	run in_fresh "$ONE_LINE
DRY_RUN=1 scripts/setup"
	assert_success
	assert_line 'setup: archive: http://one.example/debian'
}

@test "setup on bookworm takes Compose v2 from trixie, pinned" {
	run in_fresh "$DEB822
sed -i 's/^VERSION_ID=.*/VERSION_ID=\"12\"/' /etc/os-release
DRY_RUN=1 scripts/setup"
	assert_success
	assert_line 'setup: archive: http://archive.example/debian (suite trixie, pinned)'
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
