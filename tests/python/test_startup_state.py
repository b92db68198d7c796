"""Start-up without slurmctld's per-node database flood (issue 30, point 2;
docs/results/2026-11-27-startup-analysis.md).

A fresh StateSaveLocation keeps Slurm 24.11's slurmctld in its
"initialise the database" mode, in which every front end's registration
queues one DBD_NODE_STATE message per node. The slurmctld entrypoint
(images/slurm/entrypoint.sh) gives a fresh volume the last_config_lite
file that ends that mode, byte for byte as slurmctld writes it; and make
up (scripts/lib/cluster.bash) restarts the controller to reconfigure only
when one that read the old configuration still runs. The functions run in
bash with slurmctld stubbed."""

import os
import struct
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENTRYPOINT = os.path.join(ROOT, "images", "slurm", "entrypoint.sh")
CLUSTER = os.path.join(ROOT, "scripts", "lib", "cluster.bash")

# /var/spool/slurmctld/last_config_lite as slurmctld 24.11.5 wrote it in a
# cori run of 2026-11-27 (docker cp from the controller's container):
# pack16 protocol version, pack_time, packstr AccountingStorageType. Bytes
# 2-9 are its time, which differs from run to run.
SLURM_WROTE = bytes.fromhex(
    "2a00" "000000006b08ea30" "0000001c") + b"accounting_storage/slurmdbd\0"

TYPE = "AccountingStorageType=accounting_storage/slurmdbd\n"


def seed(tmp_path, conf_lines, version="slurm 24.11.5"):
    state = tmp_path / "state"
    conf = tmp_path / "slurm.conf"
    conf.write_text(f"StateSaveLocation={state}\n" + conf_lines)
    script = (f"source {ENTRYPOINT}; role=slurmctld; "
              f"slurmctld() {{ echo '{version}'; }}; seed_config_lite {conf}")
    r = subprocess.run(["bash", "-c", "set -euo pipefail; " + script],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    return state / "last_config_lite", r.stdout


def test_a_fresh_state_gets_last_config_lite_as_slurmctld_writes_it(tmp_path):
    path, out = seed(tmp_path, "ClusterName=cori\n" + TYPE)
    got = path.read_bytes()
    assert len(got) == len(SLURM_WROTE)
    assert got[:2] == SLURM_WROTE[:2] and got[10:] == SLURM_WROTE[10:]
    # The time is a plausible Unix time (2025 to 2100), big-endian.
    (when,) = struct.unpack(">q", got[2:10])
    assert 1_735_689_600 < when < 4_102_444_800
    assert "fresh state" in out
    # No temporary file left beside it.
    assert sorted(p.name for p in path.parent.iterdir()) == ["last_config_lite"]


def test_a_state_slurmctld_wrote_is_left_alone(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "last_config_lite").write_bytes(b"slurm's own")
    path, out = seed(tmp_path, TYPE)
    assert path.read_bytes() == b"slurm's own"
    assert out == ""


def test_another_slurm_release_gets_no_file(tmp_path):
    # Its protocol version differs: slurmctld then keeps its own behaviour.
    path, out = seed(tmp_path, TYPE, version="slurm 25.05.1")
    assert not path.exists()
    assert "not seeding" in out and "25.05.1" in out


def test_a_state_that_cannot_be_written_is_no_error(tmp_path):
    # StateSaveLocation under a regular file: even root cannot make it.
    (tmp_path / "plain").write_text("")
    conf = tmp_path / "slurm.conf"
    conf.write_text(f"StateSaveLocation={tmp_path}/plain/state\n" + TYPE)
    r = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source {ENTRYPOINT}; role=slurmctld; "
                       f"slurmctld() {{ echo 'slurm 24.11.5'; }}; seed_config_lite {conf}; echo went-on"],
        capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "went-on" in r.stdout, r.stdout + r.stderr
    assert "could not write" in r.stdout


def test_no_accounting_storage_type_no_file(tmp_path):
    path, _ = seed(tmp_path, "ClusterName=tiny\n")
    assert not path.exists()


def needs_reconfigure(before, after, started, now, stack="0"):
    r = subprocess.run(
        ["bash", "-c", f"source {CLUSTER}; STACK={stack}; "
                       f"needs_reconfigure '{before}' '{after}' '{started}' '{now}'"],
        capture_output=True, text=True, check=False)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode == 0


def test_make_up_reconfigures_only_a_controller_that_read_the_old_files():
    t0, t1 = "2026-11-27T02:24:51.1Z", "2026-11-27T02:30:00.2Z"
    # Changed configuration, controller running across compose up.
    assert needs_reconfigure("1 2", "3 4", t0, t0)
    # Unchanged configuration: nothing to do.
    assert not needs_reconfigure("1 2", "1 2", t0, t0)
    # A fresh make up (no controller before) and one compose up recreated
    # (another start time): it read the new files when it started.
    assert not needs_reconfigure("", "3 4", "", t1)
    assert not needs_reconfigure("1 2", "3 4", t0, t1)
    # On a stack, every change (the emulators' tasks have new addresses).
    assert needs_reconfigure("", "3 4", "", t1, stack="1")
    assert not needs_reconfigure("1 2", "1 2", "", t1, stack="1")
