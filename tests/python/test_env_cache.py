"""A job's user environment on the emulated front ends (issue 25 follow-up;
docs/cluster.md, "A job's environment").

sbatch asks the front end for the user's login environment on
--get-user-env and on every --export but ALL and NIL (NONE or a list, even
ALL,NAME=value; Slurm 24.11.5 src/sbatch/sbatch.c:446-458). slurmd then
runs `su - <user>` in clone(CLONE_NEWPID|CLONE_NEWNS), which Docker refuses
an emulator container (no CAP_SYS_ADMIN: EPERM), and dies on it:
"fatal: clone: Operation not permitted" (src/common/env.c:2354-2355). The
generated slurm.conf sets GetEnvTimeout=0, so slurmd reads
<StateSaveLocation>/env_cache/<user> instead (env.c:2287), and the
emulator's entrypoint writes that file with the same command, run without
the namespaces. The entrypoint's function runs in bash with su and
slurmstepd stubbed on PATH."""

import os
import subprocess

import pytest


@pytest.mark.needs_registry
def test_slurm_conf_reads_the_user_environment_from_the_cache_only(generated):
    for cluster in ("tiny", "torus64"):
        c = generated(cluster)
        r = c.generate()
        assert r.returncode == 0, r.stderr
        conf = c.slurm_conf()
        # Once, and 0: Slurm's default (2 s) runs su in the clone.
        assert [x for x in conf if x.startswith("GetEnvTimeout=")] == ["GetEnvTimeout=0"]
        # The cache's directory is the StateSaveLocation the entrypoint reads.
        assert "StateSaveLocation=/var/spool/slurmctld" in conf


def stub(bindir, name, body):
    path = bindir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def write_cache(root, tmp_path, su_body, user="root", conf_text=None):
    """Runs write_env_cache (root's images/slurm/entrypoint.sh) with `su`
    (and `slurmstepd`) from bindir; returns the state directory and bash's
    result."""
    entrypoint = os.path.join(root, "images", "slurm", "entrypoint.sh")
    state = tmp_path / "state"
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    # su - <user> -c <cmd>: records its arguments and environment, then
    # runs the command as a login shell would (with a PATH of its own).
    stub(bindir, "su", su_body)
    # slurmstepd getenv: print_rlimits' lines, then the environment.
    stub(bindir, "slurmstepd", '[ "$1" = getenv ] || exit 9\n'
         'echo SLURM_RLIMIT_NOFILE=1024\nenv\n')
    conf = tmp_path / "slurm.conf"
    conf.write_text(f"StateSaveLocation={state}\n" if conf_text is None else conf_text)
    script = (f"source {entrypoint}; role=emulator; "
              f"write_env_cache {conf} {user}; echo status=$?")
    r = subprocess.run(["bash", "-c", "set -euo pipefail; " + script],
                       capture_output=True, text=True, check=False,
                       env=dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}",
                                TB_SUBMITTER_ONLY="x"))
    return state, r


SU_OK = ('printf "%s\\n" "$@" > "$(dirname "$0")/su.args"\n'
         'env > "$(dirname "$0")/su.env"\n'
         'exec env -i HOME=/root USER="$2" PATH=/usr/bin:/bin sh -c "$4"\n')


def test_the_cache_holds_what_slurms_own_command_prints(tmp_path, root):
    state, r = write_cache(root, tmp_path, SU_OK)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "status=0" in r.stdout
    cache = (state / "env_cache" / "root").read_text().splitlines()
    assert "SLURM_RLIMIT_NOFILE=1024" in cache
    assert "HOME=/root" in cache and "USER=root" in cache
    assert "PATH=/usr/bin:/bin" in cache
    # Slurm's command (env.c:2151, 2295-2304): su - <user> -c "<stepd> getenv".
    args = (tmp_path / "bin" / "su.args").read_text().splitlines()
    assert args == ["-", "root", "-c", f"{tmp_path / 'bin' / 'slurmstepd'} getenv"]
    # And su's own environment is only Slurm's ENVIRONMENT=BATCH
    # (env.c:2321), not the container's (LD_PRELOAD, the submitter's ...).
    su_env = (tmp_path / "bin" / "su.env").read_text().splitlines()
    assert "ENVIRONMENT=BATCH" in su_env
    assert not [x for x in su_env if x.startswith("TB_SUBMITTER_ONLY=")]
    # No temporary file left beside it.
    assert sorted(p.name for p in (state / "env_cache").iterdir()) == ["root"]


def test_a_failing_su_leaves_no_file_says_so_and_the_emulator_goes_on(tmp_path, root):
    state, r = write_cache(root, tmp_path, "echo 'su: Authentication failure' >&2\nexit 1\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "status=0" in r.stdout
    assert "could not write" in r.stdout and "env_cache/root" in r.stdout
    assert "runs with the exported one only" in r.stdout
    assert not (state / "env_cache" / "root").exists()
    assert list((state / "env_cache").iterdir()) == []


def test_output_without_a_path_is_no_environment(tmp_path, root):
    # A login that printed nothing usable (no PATH line) is not cached:
    # slurmd would give the job an environment without PATH.
    state, r = write_cache(root, tmp_path, "echo hello\n")
    assert "status=0" in r.stdout
    assert "could not write" in r.stdout
    assert not (state / "env_cache" / "root").exists()


def test_no_state_save_location_writes_nothing(tmp_path, root):
    state, r = write_cache(root, tmp_path, SU_OK, conf_text="ClusterName=tiny\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "status=0" in r.stdout and "could not write" not in r.stdout
    assert not state.exists()
