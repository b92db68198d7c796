"""No Python file of the repository edits sys.path, nor does the Python
the bats suites run: the packages are found through PYTHONPATH (the
clone's root), never by a file patching the import path for itself."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SKIP = {".git", "build", "results", ".state", "__pycache__"}
EDIT = re.compile(r"sys\.path\s*(\[[^\]]*\]\s*=|\.(insert|append|extend|remove|pop|clear)\b|\+=|=)")


def python_files():
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith(".")]
        for f in files:
            if f.endswith((".py", ".bats", ".bash")):
                yield os.path.join(top, f)


def test_no_python_file_or_bats_suite_edits_sys_path():
    found = []
    for path in python_files():
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if EDIT.search(line) and path != os.path.abspath(__file__):
                    found.append(f"{os.path.relpath(path, ROOT)}:{n}: {line.strip()}")
    assert not found, "sys.path edited:\n" + "\n".join(found)


def test_the_check_finds_an_edit():
    for line in ("sys.path.insert(0, HERE)", "sys.path[:0] = [a, b]", "sys.path.append(x)",
                 "sys.path = [x] + sys.path", "sys.path += [x]"):
        assert EDIT.search(line), line
    assert not EDIT.search("print(sys.path)")
