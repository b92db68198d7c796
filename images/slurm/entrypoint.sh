#!/usr/bin/env bash
# One image, three Slurm roles: slurmdbd, slurmctld and emulator (a block of
# front-end slurmd daemons). Configuration comes from the cluster directory
# mounted at /etc/testbed/cluster; secrets from /run/secrets.
set -euo pipefail

readonly CLUSTER_DIR=/etc/testbed/cluster

log() { printf '%s %s: %s\n' "$(date +%H:%M:%S)" "$role" "$*"; }

link_config() {
	local f
	# outage.txt (TOFA's pf per node) may not exist yet: the link waits.
	for f in slurm.conf topology.conf topology.json cgroup.conf outage.txt; do
		ln -sf "$CLUSTER_DIR/$f" "/etc/slurm/$f"
	done
}

start_munge() {
	install -o munge -g munge -m 0400 /run/secrets/munge_key /etc/munge/munge.key
	install -d -o munge -g munge -m 0755 /run/munge
	runuser -u munge -- /usr/sbin/munged --num-threads=8
}

run_slurmdbd() {
	local password
	password=$(cat /run/secrets/db_password)
	umask 077
	cat > /etc/slurm/slurmdbd.conf <<CONF
AuthType=auth/munge
DbdHost=$(hostname)
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=db
StorageUser=slurm
StoragePass=$password
StorageLoc=slurm_acct_db
PidFile=/run/slurmdbd.pid
DebugLevel=info
CONF
	umask 022
	# MariaDB 11.8 sometimes answers slurmdbd's first query (its concat()
	# sanity check) with an empty result just after the database started,
	# and slurmdbd exits fatally. A start-up death is tried again; a death
	# after a minute of running is not.
	local try start pid
	for try in 1 2 3 4 5; do
		start=$SECONDS
		slurmdbd -D &
		pid=$!
		trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid"; exit 0' TERM INT
		if wait "$pid"; then exit 0; fi
		[ $((SECONDS - start)) -lt 60 ] || exit 1
		log "slurmdbd exited during start-up (try $try of 5); starting it again"
		sleep 2
	done
	exit 1
}

run_slurmctld() {
	seed_config_lite /etc/slurm/slurm.conf
	exec slurmctld -D -i
}

# Big-endian bytes of $1, $2 bytes wide, as printf %b escapes (Slurm packs
# integers in network order: pack16, pack32, pack_time in common/pack.c).
be_bytes() {
	local n=$1 width=$2 i out=""
	for ((i = width - 1; i >= 0; i--)); do
		out+=$(printf '\\0%03o' $(((n >> (8 * i)) & 255)))
	done
	printf '%s' "$out"
}

# A fresh StateSaveLocation starts slurmctld in its "initialise the
# database" mode (slurmctld_init_db, src/slurmctld/read_config.c:100), in
# which every front end's registration sends slurmdbd one DBD_NODE_STATE
# message per node (node_mgr.c:4012, validate_nodes_via_front_end), for
# the whole life of the process: on Cori 100 front ends, each registering
# at start and again when the new controller asks (ping_nodes.c:225), make
# 2.4 million messages of 16 KiB buffers each (slurmdbd_pack.c:1605) for a
# queue of MaxDBDMsgs=448,304, which overflows and then discards job
# records too (slurmdbd_agent.c:1009-1030). Slurm leaves that mode only
# when last_config_lite, written at every start for the next one, names
# the configured AccountingStorageType (read_config.c:2406-2450). A fresh
# volume gets the file slurmctld would have written
# (dump_config_state_lite, read_config.c:2382): the 24.11 protocol version
# (pack16, 42 << 8), a time (pack_time, unused on reading) and the type
# (packstr: length with its NUL, then the bytes). The database loses
# nothing: the first registration still sends every node's UP
# (node_mgr.c:3943, UNKNOWN to IDLE), and a fresh state has no jobs for
# the mode's other branches (job_mgr.c:1545-1560). Another Slurm release
# gets no file (its version differs): slurmctld then behaves as before.
# docs/results/2026-11-27-startup-analysis.md.
seed_config_lite() {
	local conf=$1 dir type version file tmp
	dir=$(sed -n 's/^StateSaveLocation=//p' "$conf" | tail -n 1)
	type=$(sed -n 's/^AccountingStorageType=//p' "$conf" | tail -n 1)
	[ -n "$dir" ] && [ -n "$type" ] || return 0
	file=$dir/last_config_lite
	[ -e "$file" ] && return 0
	version=$(slurmctld -V 2>/dev/null) || version=""
	case $version in
	"slurm 24.11."*) ;;
	*)
		log "not seeding $file for '${version:-unknown}' (written for Slurm 24.11)"
		return 0
		;;
	esac
	tmp=$file.testbed
	# Not fatal: without the file slurmctld starts as it always did.
	if ! mkdir -p "$dir" 2>/dev/null || ! {
		printf '%b' "$(be_bytes $((42 << 8)) 2)$(be_bytes "$(date +%s)" 8)$(be_bytes $((${#type} + 1)) 4)" &&
			printf '%s\0' "$type"
	} >"$tmp" 2>/dev/null || ! mv -f "$tmp" "$file"; then
		rm -f "$tmp" 2>/dev/null || true
		log "could not write $file; slurmctld starts without it"
		return 0
	fi
	log "fresh state: $file names $type, so slurmctld sends no per-node DBD_NODE_STATE at each registration"
}

# A job that asks for its user's login environment (sbatch --get-user-env,
# or any --export but ALL and NIL: NONE or a list, even ALL,NAME=value;
# Slurm 24.11.5 src/sbatch/sbatch.c:446-458) makes the front end's slurmd
# run `su - <user>` in clone(CLONE_NEWPID|CLONE_NEWNS), which Docker
# refuses a container without CAP_SYS_ADMIN (EPERM), and slurmd dies on it:
# fatal("clone: %m") (src/common/env.c:2342-2356; _get_user_env,
# src/slurmd/slurmd/req.c:2129). slurm.conf's GetEnvTimeout=0
# (emulated-clusters/generate.py) makes slurmd read the environment from
# <StateSaveLocation>/env_cache/<user> instead (env.c:2287, 2050-2064).
# This writes that file with what the clone's child would have printed:
# the same command, `su - <user> -c "<slurmstepd> getenv"` with only
# ENVIRONMENT=BATCH in its environment (env.c:2151, 2295-2304, 2321; our
# build has no LOAD_ENV_NO_LOGIN), without the new namespaces. Not fatal:
# without the file, such a job runs with the environment its submitter
# exported and the front end logs "Unable to get user's local environment"
# (req.c:2130-2135).
write_env_cache() {
	local conf=$1 user=$2 dir file tmp su getenv
	dir=$(sed -n 's/^StateSaveLocation=//p' "$conf" | tail -n 1)
	[ -n "$dir" ] || return 0
	file=$dir/env_cache/$user
	tmp=$file.testbed
	su=$(command -v su) || su=""
	if getenv=$(command -v slurmstepd); then
		getenv+=" getenv"
	else
		getenv=/usr/bin/env
	fi
	if [ -n "$su" ] && mkdir -p "$dir/env_cache" 2>/dev/null &&
		env -i ENVIRONMENT=BATCH "$su" - "$user" -c "$getenv" >"$tmp" 2>/dev/null &&
		grep -q '^PATH=' "$tmp" && mv -f "$tmp" "$file"; then
		return 0
	fi
	rm -f "$tmp" 2>/dev/null || true
	log "could not write $file (su - $user -c '$getenv'): a job of $user that asks for its login environment (sbatch --export other than ALL, --get-user-env) runs with the exported one only"
}

# Starts every front end at once (they register independently), then waits:
# the first daemon to exit takes the container down, naming itself and
# showing the end of its log.
run_emulator() {
	local fe pid status
	declare -A fe_of
	[ "$#" -gt 0 ] || { log "no front ends given"; exit 2; }
	# The testbed submits as root (make exec, the drivers).
	write_env_cache /etc/slurm/slurm.conf root
	for fe in "$@"; do
		mkdir -p "/var/spool/slurmd/$fe"
		slurmd -D -N "$fe" &
		fe_of[$!]=$fe
	done
	log "started ${#fe_of[@]} front-end slurmd daemons: $1 .. ${*: -1}"
	set +e
	wait -n -p pid "${!fe_of[@]}"
	status=$?
	set -e
	fe=${fe_of[$pid]:-unknown}
	log "slurmd -N $fe exited with status $status; last lines of its log:"
	tail -n 20 "/var/log/slurm/slurmd-$fe.log" 2>/dev/null || true
	exit 1
}

main() {
	role=${1:-}
	shift || true
	case "$role" in
	slurmdbd | slurmctld | emulator)
		link_config
		start_munge
		"run_$role" "$@"
		;;
	*)
		exec "$role" "$@"
		;;
	esac
}

# Sourced (tests/python/test_entrypoint_state.py), it only defines.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
