"""make up's readiness (scripts/lib/running.bash): in front-end mode every
node is up once one front end has registered, so wait_ready also waits for
every front end (scontrol -o show frontend). A front end that registers
after the replay began completes the batch jobs it was given whose launch
had not begun, with exit code 0 (docs/results/2026-11-26-nedd.md). The
functions run in bash with the controller and the cluster stubbed."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "scripts", "lib", "running.bash")


def fe(name, state, started="2026-11-26T23:00:01"):
    return (f"FrontendName={name} State={state} Version=24.11.5 Reason=(null) "
            f"BootTime=2026-11-26T23:00:00 SlurmdStartTime={started}")


def bash(script, stdin=""):
    r = subprocess.run(["bash", "-c", f"set -euo pipefail; source {LIB}; {script}"],
                       input=stdin, capture_output=True, text=True, check=False)
    return r


def test_registered_front_ends_are_neither_unknown_down_nor_not_responding():
    lines = "\n".join([fe("fe001", "IDLE"), fe("fe002", "UNKNOWN"), fe("fe003", "ALLOCATED"),
                       fe("fe004", "IDLE*"), fe("fe005", "DOWN*"), fe("fe006", "MIXED"),
                       fe("fe007", "UNKNOWN*"), fe("fe008", "IDLE+DRAIN"),
                       # restored by a restarted slurmctld, not registered with it
                       fe("fe009", "IDLE", "Unknown")]) + "\n"
    r = bash("registered_frontends", lines)
    assert (r.returncode, r.stdout) == (0, "4\n"), r.stderr
    # A silent controller: no count at all, not 0.
    assert bash("registered_frontends", "").stdout == ""


# Stubs: 8 nodes all up from the first look; the controller reports its
# two front ends UNKNOWN for the first `late` looks, then registered.
STUBS = """
cluster_var() { case $2 in NODES) echo 8 ;; FRONTENDS) echo 2 ;; esac; }
up_nodes() { echo 8; }
check_alive() { :; }
progress() { echo "$*" >&2; }
progress_done() { :; }
die() { echo "die: $*"; exit 1; }
sleep() { :; }
READY_TIMEOUT=600
looks=$(mktemp)
ctld_exec() {
	local n
	n=$(($(wc -c <"$looks") + 1)); printf x >>"$looks"
	if [ "$n" -le "$LATE" ]; then s=UNKNOWN; else s=IDLE; fi
	printf 'FrontendName=fe001 State=IDLE SlurmdStartTime=x\\nFrontendName=fe002 State=%s SlurmdStartTime=x\\n' "$s"
}
"""


def test_make_up_waits_until_every_front_end_has_registered():
    r = bash(STUBS + "LATE=3; wait_ready cori; echo looks=$(wc -c <\"$looks\")")
    assert r.returncode == 0, r.stdout + r.stderr
    # Nodes were all up at once; the front ends took three more looks.
    assert "looks=4" in r.stdout
    assert "waiting for front ends: 1/2 registered" in r.stderr
    r = bash(STUBS + "LATE=0; wait_ready cori; echo looks=$(wc -c <\"$looks\")")
    assert "looks=1" in r.stdout and "waiting" not in r.stderr
