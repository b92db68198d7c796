"""workloads.dbd_messages: slurmctld's saved queue for slurmdbd
(StateSaveLocation/dbd.messages), read and stripped of its node-state
records (docs/results/2026-11-27-startup-analysis.md). The file is built
here as Slurm 24.11.5 writes it (slurmdbd_agent.c, _save_dbd_rec: length
and DBD_MAGIC in host order; the messages as slurmdbd_pack.c packs them)."""

import os
import struct

import pytest

from workloads import dbd_messages as dm


def packstr(s):
    if s is None:
        return struct.pack(">I", 0)
    b = s.encode() + b"\0"
    return struct.pack(">I", len(b)) + b


def node_up(name, when=1795746788):
    # _pack_node_state_msg for 24.11 (>= 23.11): hostlist, extra,
    # instance_id, instance_type, reason, reason_uid, new_state (2: UP),
    # event_time, state, tres_str.
    return (struct.pack(">H", 1432) + packstr(name) + packstr(None) * 4
            + struct.pack(">IHqI", 0xFFFFFFFE, 2, when, 0) + packstr(None))


def job_complete(job_id):
    # Only the type matters here; the rest stands for the packed record.
    return struct.pack(">H", 1424) + struct.pack(">I", job_id) + b"rest"


def saved(messages):
    recs = [packstr("VER10752")] + messages
    return b"".join(struct.pack("=I", len(r)) + r + struct.pack("=I", 0xDEAD3219)
                    for r in recs)


def test_counts_per_type_and_roundtrip():
    data = saved([node_up("nid00001"), job_complete(7), node_up("nid00002")])
    recs = dm.read_records(data)
    assert dm.counts(recs) == {"DBD_NODE_STATE": 2, "DBD_JOB_COMPLETE": 1}
    assert dm.write_records(recs) == data


def test_dropping_node_state_keeps_the_version_and_every_job_record():
    data = saved([node_up("nid00001"), job_complete(7), node_up("nid00002"),
                  job_complete(8)])
    kept = dm.drop_node_state(dm.read_records(data))
    assert kept == dm.read_records(saved([job_complete(7), job_complete(8)]))


def test_an_empty_file_has_no_records():
    # slurmctld truncates the file when its queue is empty at a stop.
    assert dm.read_records(b"") == []
    assert dm.counts([]) == {}


@pytest.mark.parametrize("cut", [3, 20, -2])
def test_a_cut_or_foreign_file_is_refused(cut):
    data = saved([node_up("nid00001")])
    with pytest.raises(dm.DbdMessagesError, match="x.messages"):
        dm.read_records(data[:cut], "x.messages")
    bad = data[:-4] + struct.pack("=I", 0x12345678)
    with pytest.raises(dm.DbdMessagesError, match="DBD_MAGIC"):
        dm.read_records(bad)


def test_the_command_rewrites_in_place_and_refuses_bad_input(tmp_path, capsys):
    f = tmp_path / "dbd.messages"
    f.write_bytes(saved([node_up("nid00001"), job_complete(7)]))
    os.chmod(f, 0o600)
    assert dm.main([str(f), "--drop-node-state"]) == 0
    out = capsys.readouterr().out
    assert "DBD_NODE_STATE\t1" in out and "total\t2\t(VER10752)" in out
    assert "kept\t1" in out
    assert f.read_bytes() == saved([job_complete(7)])
    assert oct(os.stat(f).st_mode & 0o777) == oct(0o600)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dbd.messages"]
    # A cut file: an error naming it, the file unchanged.
    g = tmp_path / "cut.messages"
    g.write_bytes(saved([node_up("nid00001")])[:-3])
    before = g.read_bytes()
    assert dm.main([str(g), "--drop-node-state"]) == 1
    assert "cut.messages" in capsys.readouterr().err
    assert g.read_bytes() == before
