"""bench/window.py (make bench BENCH=window): the window's figures against
the reference and with against without event jumps, on hand-made runs."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "window.py"


def run_dir(tmp, name, jumps, wall_s, makespan_h, util, wait_h):
    d = tmp / name
    d.mkdir()
    (d / "metrics.json").write_text(json.dumps({
        "jobs": 1000, "makespan_s": makespan_h * 3600, "utilization": util,
        "wait_mean_s": wait_h * 3600, "late_launch_all_jobs": 3}))
    (d / "manifest.json").write_text(json.dumps({
        "run_id": name, "event_jumps": {"jumps": 5} if jumps else None,
        "clock_jumps": 5 if jumps else 0,
        "wall_start": "2026-11-26T10:00:00+00:00",
        "wall_end": f"2026-11-26T10:{wall_s // 60:02d}:{wall_s % 60:02d}+00:00"}))
    return str(d)


def reference(tmp):
    p = tmp / "ref.json"
    p.write_text(json.dumps({"what": "hand-made", "runs": [
        {"makespan_h": 100.0, "utilization": 0.9, "wait_mean_h": 50.0},
        {"makespan_h": 100.0, "utilization": 0.9, "wait_mean_h": 50.0}]}))
    return str(p)


def window(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args],
                          capture_output=True, text=True, check=False)


def test_within_targets(tmp_path):
    r = window(reference(tmp_path),
               run_dir(tmp_path, "j", True, 240, 101.0, 0.9, 50.5),
               run_dir(tmp_path, "n", False, 1800, 100.0, 0.9, 50.0))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "jumps vs none   mean wait      +1.0 %  within" in r.stdout
    assert "target 300 s: met" in r.stdout


def test_wait_outside_and_too_slow(tmp_path):
    r = window(reference(tmp_path),
               run_dir(tmp_path, "j", True, 540, 100.0, 0.9, 58.0))
    assert r.returncode == 1
    assert "event jumps     mean wait    vs reference  +16.0 %  OUTSIDE" in r.stdout
    assert "target 300 s: NOT met" in r.stdout


def test_bad_run_is_one_line(tmp_path):
    r = window(reference(tmp_path), str(tmp_path / "missing"))
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0
    assert "metrics.json" in r.stderr and "expected" in r.stderr
