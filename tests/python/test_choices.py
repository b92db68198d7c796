"""metrics.choices: the classes of a start's choice (worked by hand on
leaves of 4 nodes) and the occupancy rebuilt from a small twin run."""

import csv
import json

import pytest

from metrics import choices
from metrics.run_dir import ReportError

S4 = [4, 4, 4, 4]


@pytest.mark.parametrize("nodes,comm,free,cls", [
    # a leaf has 2 free: Alg. 1-2 l. 2-5, the same lines in both
    (2, 1, [4, 1, 0, 2], "one leaf"),
    # 8 free for 8 nodes: no choice at all
    (8, 1, [4, 4, 0, 0], "exact"),
    # 2 whole leaves needed, 3 free: greedy and balanced take the first two
    (8, 1, [4, 4, 4, 1], "whole tie"),
    # one whole leaf and two of 3: greedy by ratio, balanced by free / 2^k
    (8, 1, [4, 3, 3, 0], "open"),
    # 12 = 3 leaves: balanced's chunk halves 12 -> 6 -> 3, not a leaf
    (12, 1, [4, 4, 4, 4], "open"),
    # compute: both take the partly free leaves (3 nodes) first, then 5 of
    # the whole leaves in topology order
    (8, 0, [4, 4, 2, 1], "whole tie"),
    (6, 0, [4, 3, 3, 0], "whole tie"),
    # compute, 4 of 7 partly free nodes: greedy takes the highest ratio,
    # balanced the fewest free (the leaf of 1) first
    (4, 0, [3, 3, 1, 0], "open"),
])
def test_classify(nodes, comm, free, cls):
    assert choices.classify(nodes, comm, free, S4) == cls


def test_classify_unequal_leaves_are_open():
    # whole leaves of 4 and 5 free: ordered by free count, not tied
    assert choices.classify(8, 1, [4, 5, 4, 0], [4, 5, 4, 4]) == "open"


# Two leaves of 2: cn1-cn2 (L0), cn3-cn4 (L1). (log id, nodes, comm,
# start, end, nodes taken), in sim.tsv's order.
JOBS = [("A", 2, 1, 0, 10, "cn1,cn2"),
        ("B", 1, 0, 5, 20, "cn3"),
        ("C", 2, 1, 10, 30, "cn1,cn2"),
        ("D", 1, 1, 10, 40, "cn4")]


def run_dir(tmp_path, levels=("leaf", "top")):
    d = tmp_path / "run"
    d.mkdir()
    (d / "topology.json").write_text(json.dumps({
        "levels": list(levels),
        "nodes": [{"name": f"cn{i}"} for i in range(1, 5)],
        "switches": [{"name": "L0", "level": 0, "parent": "top",
                      "nodes": [0, 1]},
                     {"name": "L1", "level": 0, "parent": "top",
                      "nodes": [2, 3]},
                     {"name": "top", "level": 1}]}))
    with open(d / "plan.tsv", "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["log_id", "nodes", "comm", "pattern"])
        for log_id, nodes, comm, *_ in JOBS:
            w.writerow([log_id, nodes, comm, "rd"])
    with open(d / "sim.tsv", "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["log_id", "start", "end", "nodes", "policy",
                    "backfilled"])
        for log_id, _, _, start, end, taken in JOBS:
            # D was backfilled in the same second as C: taken after it
            w.writerow([log_id, start, end, taken, "greedy",
                        int(log_id == "D")])
    return d


def test_states_rebuild_each_start(tmp_path):
    got = [(job["log_id"], free, busy, busy_comm)
           for job, _, _, free, busy, busy_comm
           in choices.states(str(run_dir(tmp_path)))]
    assert got == [
        ("A", [2, 2], [], []),
        ("B", [0, 2], [], ["cn1", "cn2"]),
        # A ended at C's start: its nodes are free again
        ("C", [2, 1], ["cn3"], []),
        ("D", [0, 1], ["cn3"], ["cn1", "cn2"]),
    ]


def test_survey_counts_classes(tmp_path):
    counts, facts, differ, own_ok, total = choices.survey(
        str(run_dir(tmp_path)))
    assert total == 4 and (own_ok, dict(differ)) == (0, {})
    assert counts == {"one leaf": 4} and facts == {}


@pytest.mark.parametrize("nodes,free,sizes,facts", [
    (2, [4, 1, 0, 2], S4, ()),
    (8, [4, 4, 0, 0], S4, ["spans", "no partly free leaf",
                           "whole leaves exactly"]),
    (8, [4, 4, 4, 0], S4, ["spans", "no partly free leaf"]),
    (8, [4, 4, 3, 0], S4, ["spans", "whole leaves exactly"]),
    (8, [4, 5, 0, 0], [4, 5, 4, 4], ["spans", "no partly free leaf"]),
])
def test_span_facts(nodes, free, sizes, facts):
    assert choices.span_facts(nodes, free, sizes) == facts


def test_deeper_tree_refused(tmp_path):
    with pytest.raises(ReportError, match="two levels"):
        list(choices.states(str(run_dir(tmp_path, ("leaf", "mid", "top")))))
