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
	exec slurmctld -D -i
}

# Starts every front end at once (they register independently), then waits:
# the first daemon to exit takes the container down, naming itself and
# showing the end of its log.
run_emulator() {
	local fe pid status
	declare -A fe_of
	[ "$#" -gt 0 ] || { log "no front ends given"; exit 2; }
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
