"""What slurmctld saved for slurmdbd: StateSaveLocation/dbd.messages.

At every stop or reconfigure, slurmctld writes the messages its slurmdbd
agent has not sent yet, and queues them again at its next start; loading
does not remove the file (Slurm 24.11.5, src/plugins/accounting_storage/
slurmdbd/slurmdbd_agent.c, _save_dbd_state and _load_dbd_state). Each
record is a length (4 bytes, the host's byte order), the packed message
and DBD_MAGIC (4 bytes, host order); the first record is the protocol
version string ("VER10752" for 24.11), and every message begins with its
type (pack16, network order).

    python3 -m workloads.dbd_messages FILE                    counts per type
    python3 -m workloads.dbd_messages --drop-node-state FILE  rewrites FILE

--drop-node-state keeps every record but DBD_NODE_STATE ones. Those only
close or open a node's event rows (sreport, sacctmgr show event; sacct
never reads them) and slurmctld sends each node's UP again at its first
registration after a start (node_mgr.c, validate_nodes_via_front_end).
Job and step records are kept: a job purged from the controller's state
(MinJobAge) reaches the database only through this file.
docs/results/2026-11-27-startup-analysis.md says when to use it."""

import argparse
import os
import struct
import sys

DBD_MAGIC = 0xDEAD3219
# src/common/slurmdbd_defs.h, slurmdbd_msg_type_t (SLURM_DBD_MESSAGES_START
# = 1400, then one by one): the types slurmctld's agent queues.
TYPES = {
    1407: "DBD_CLUSTER_TRES",
    1424: "DBD_JOB_COMPLETE",
    1425: "DBD_JOB_START",
    1427: "DBD_JOB_SUSPEND",
    1432: "DBD_NODE_STATE",
    1434: "DBD_REGISTER_CTLD",
    1441: "DBD_STEP_COMPLETE",
    1442: "DBD_STEP_START",
}
DBD_NODE_STATE = 1432
_WORD = struct.Struct("=I")


class DbdMessagesError(Exception):
    pass


def read_records(data, name="dbd.messages"):
    """The file's records as bytes, the version record first. An empty file
    (slurmctld saved an empty queue) has none."""
    records, at = [], 0
    while at < len(data):
        if at + 4 > len(data):
            raise DbdMessagesError(f"{name}: a record's length is cut off at byte {at}")
        (size,) = _WORD.unpack_from(data, at)
        end = at + 4 + size
        if end + 4 > len(data):
            raise DbdMessagesError(f"{name}: the record at byte {at} claims {size} bytes, "
                                   f"more than the file holds")
        (magic,) = _WORD.unpack_from(data, end)
        if magic != DBD_MAGIC:
            raise DbdMessagesError(f"{name}: the record at byte {at} does not end with "
                                   f"DBD_MAGIC (0x{DBD_MAGIC:08X}); not a dbd.messages file")
        records.append(data[at + 4:end])
        at = end + 4
    return records


def message_type(record):
    return struct.unpack_from(">H", record)[0] if len(record) >= 2 else None


def write_records(records):
    return b"".join(_WORD.pack(len(r)) + r + _WORD.pack(DBD_MAGIC) for r in records)


def counts(records):
    """{type name: count} of the messages (the version record left out)."""
    out = {}
    for r in records[1:]:
        t = message_type(r)
        name = TYPES.get(t, f"type {t}")
        out[name] = out.get(name, 0) + 1
    return out


def drop_node_state(records):
    return records[:1] + [r for r in records[1:] if message_type(r) != DBD_NODE_STATE]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m workloads.dbd_messages",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="slurmctld's StateSaveLocation/dbd.messages")
    ap.add_argument("--drop-node-state", action="store_true",
                    help="rewrite FILE without its DBD_NODE_STATE records")
    a = ap.parse_args(argv)
    try:
        with open(a.file, "rb") as f:
            records = read_records(f.read(), a.file)
    except OSError as e:
        print(f"error: {a.file}: {e.strerror}", file=sys.stderr)
        return 1
    except DbdMessagesError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    version = records[0][4:-1].decode("ascii", "replace") if records else "none"
    for name, n in sorted(counts(records).items()):
        print(f"{name}\t{n}")
    print(f"total\t{max(0, len(records) - 1)}\t({version})")
    if a.drop_node_state and records:
        kept = drop_node_state(records)
        tmp = a.file + ".testbed"
        with open(tmp, "wb") as f:
            f.write(write_records(kept))
        os.chmod(tmp, os.stat(a.file).st_mode & 0o7777)
        os.replace(tmp, a.file)
        print(f"kept\t{len(kept) - 1}\t(DBD_NODE_STATE records dropped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
