"""The testbed's containers, whichever way its cluster runs: a Compose
project (containers labelled com.docker.compose.project and .service) or a
Docker Swarm stack (make up SWARM=1, docs/swarm.md: tasks of the services
<project>_<service>, labelled com.docker.stack.namespace and
com.docker.swarm.service.name). scripts/lib/swarm.bash is the shell's
side of the same lookup.
"""

import subprocess


def run_quiet(args, timeout=20):
    """A docker command's CompletedProcess, or None if it could not run
    or timed out: callers treat both as 'not there'."""
    try:
        return subprocess.run(args, capture_output=True, text=True,
                              check=False, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None


def controller_id(project):
    """The running slurmctld container's id on this Docker, or None. On a
    stack it runs on the manager, where make up ran (compose/swarm.jq)."""
    for filters in ([f"label=com.docker.compose.project={project}",
                     "label=com.docker.compose.service=slurmctld"],
                    [f"label=com.docker.stack.namespace={project}",
                     f"label=com.docker.swarm.service.name={project}_slurmctld"]):
        argv = ["docker", "ps", "-q"]
        for f in filters:
            argv += ["--filter", f]
        r = run_quiet(argv)
        ids = r.stdout.split() if r is not None and r.returncode == 0 else []
        if ids:
            return ids[0]
    return None


def service_states(project):
    """{service: (state, id)}, or None when Docker does not answer. For a
    Compose project, its containers' states and ids; for a stack, each
    service's current task on any node of the swarm (a dead task's
    successor is 'preparing' or 'starting' until it runs), with the task's
    id: Swarm itself starts a dead task again."""
    r = run_quiet(["docker", "ps", "-a", "--filter",
              f"label=com.docker.compose.project={project}",
              "--format", '{{.Label "com.docker.compose.service"}} {{.State}} {{.ID}}'])
    if r is None or r.returncode != 0:
        return None
    out = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    if out:
        return out
    r = run_quiet(["docker", "stack", "ps", project, "--filter", "desired-state=running",
              "--format", "{{.Name}} {{.CurrentState}} {{.ID}}"])
    if r is None or r.returncode != 0:
        return out  # no such stack: nothing runs
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].startswith(project + "_"):
            service = parts[0][len(project) + 1:].rsplit(".", 1)[0]
            out[service] = (parts[1].lower(), parts[-1])
    return out
