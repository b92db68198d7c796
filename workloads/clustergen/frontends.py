"""The front ends (fe001..) spread over the emulator containers, and the
Compose services that run them (emulators.yml).
"""

import json

FRONTEND_BASE_PORT = 17000


def frontend_layout(frontends, emulators):
    """fe001.. spread round-robin-free: consecutive blocks per container."""
    names = [f"fe{i + 1:03d}" for i in range(frontends)]
    per = -(-frontends // emulators)
    return [names[k * per:(k + 1) * per] for k in range(emulators)
            if names[k * per:(k + 1) * per]]


def write_emulators_yml(f, layout):
    f.write("# Generated: one container per block of front-end slurmd daemons.\n")
    f.write("services:\n")
    for b, block in enumerate(layout):
        f.write(f"""  emu{b + 1}:
    image: testbed-slurm:${{TESTBED_TAG:-latest}}
    hostname: emu{b + 1}
    networks: [slurm]
    init: true
    command: ["emulator", {", ".join(json.dumps(fe) for fe in block)}]
    secrets: [munge_key]
    environment:
      LD_PRELOAD: /usr/local/lib/libtbvclock.so
      TB_VCLOCK_FILE: /run/testbed-vclock/clock
    volumes:
      - ${{CLUSTER_DIR}}:/etc/testbed/cluster:ro
      - ${{VCLOCK_DIR}}:/run/testbed-vclock
    depends_on: [slurmctld]
""")
