"""workloads/params.tsv is the one declaration of every parameter: the
replay's parser, the experiment definitions, make help, the shell driver
and the Makefile's exports all take it from there; and the clock page's
layout in workloads/vclock.py is the C header's."""

import os
import re
import subprocess
import textwrap

import pytest

from workloads import params, vclock
from workloads.experiment import definition
from workloads.replay import cli
from workloads.replay.errors import ReplayError
from workloads.replay.plan import PATTERNS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def replay_parser_actions():
    """The replay parser's options, by flag, as parse_args builds them."""
    seen = {}
    real = cli._Parser.parse_args

    def spy(self, argv=None, namespace=None):
        for a in self._actions:
            for s in a.option_strings:
                seen[s] = a
        raise SystemExit(0)
    cli._Parser.parse_args = spy
    try:
        with pytest.raises(SystemExit):
            cli.parse_args([])
    finally:
        cli._Parser.parse_args = real
    return seen


def test_the_table_is_well_formed():
    rows = params.load()
    names = [p.name for p in rows]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*", n) for n in names)
    flags = [p.flag for p in rows if p.flag]
    assert len(flags) == len(set(flags))
    for p in rows:
        assert p.help and p.section in ("cluster", "replay", "experiment")
        if p.default and p.type in ("int", "float", "word"):
            assert p.parse(p.default) is not None


def test_the_replay_parser_takes_every_flag_of_the_table_with_its_default_and_choices():
    actions = replay_parser_actions()
    own = {"--check", "--report-every", "--workloads-dir", "--results", "--root",
           "--state-dir", "-h", "--help"}
    declared = {p.flag: p for p in params.replay_params()}
    assert set(actions) - own == set(declared)
    conv = {"int": int, "float": float}
    for flag, p in declared.items():
        a = actions[flag]
        want = conv.get(p.type, str)(p.default) if p.default else None
        assert a.default == want, flag
        if p.choices and p.choices[0] not in params.LISTS:
            assert tuple(a.choices) == p.choices, flag
        assert a.help.replace("%%", "%") == p.help


@pytest.mark.parametrize("module", ["workloads.replay", "workloads.simulate"])
def test_help_prints_every_parameter_even_with_a_percent_sign_in_its_help(module):
    # argparse formats help texts with %: a bare one (END_GUARD's,
    # TA_SPEEDUP's) made --help raise ValueError.
    out = subprocess.run(["python3", "-m", module, "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "--ta-speedup" in out.stdout and "% faster" in out.stdout


def test_a_bad_value_is_one_line_naming_the_variable():
    with pytest.raises(ReplayError, match=r"^JOBS=many: expected a whole number$"):
        cli.parse_args(["--jobs", "many"])
    with pytest.raises(ReplayError, match=r"^GRANULARITY=atom: expected node or core$"):
        cli.parse_args(["--granularity", "atom"])
    with pytest.raises(ReplayError, match=r"^SPEEDUP=2e\+06: expected the virtual clock's rate"):
        cli.parse_args(["--speedup", "2000000"])
    # The scaled clock has no such bound.
    assert cli.parse_args(["--speedup", "2000000", "--clock", "scaled"]).speedup == 2e6


def test_patterns_named_in_the_help_are_the_plans():
    p = params.by_name()["PATTERN"]
    for name in PATTERNS + ["mix"]:
        assert name in p.help


def test_experiment_settings_are_the_tables_exp_rows_with_their_types():
    table = params.definition_params()
    assert set(definition.PARAMS) == set(table)
    for name, p in table.items():
        if p.type == "int":
            assert name in definition.INT_PARAMS
        elif p.type == "float":
            assert name in definition.FLOAT_PARAMS
        elif p.type == "word":
            assert definition.WORD_PARAMS[name] == p.choices


def test_every_kinds_list_is_declared_in_the_experiment_section():
    """A kind's lists (LOADS=, APPS=, ...) are overrides scripts/experiment
    passes on (workloads.experiment overrides): each is declared once."""
    table = params.by_name()
    for name in definition.override_names():
        if name in ("CLUSTER", "POLICY", "PATTERN"):
            continue
        assert name in table and table[name].section == "experiment", name


def test_make_help_prints_every_parameter_and_its_default():
    out = subprocess.run(["make", "-s", "-C", ROOT, "help"], capture_output=True,
                         text=True, check=True).stdout
    # Entries: a line "  NAME=<shape> help", its folded lines indented more.
    entries = {}
    name = None
    for line in out.splitlines():
        m = re.match(r"^  ([A-Z][A-Z0-9_]*)=\S+ +(.*)$", line)
        if m:
            name = m.group(1)
            entries[name] = m.group(2)
        elif name and re.match(r"^   +\S", line):
            entries[name] += " " + line.strip()
        else:
            name = None
    for p in params.load():
        assert p.name in entries, p.name
        assert " ".join(p.help.split()) in entries[p.name], p.name
        if p.default:
            assert f"(default {p.default})" in entries[p.name], p.name


def test_the_shell_driver_and_the_makefile_read_the_table():
    with open(os.path.join(ROOT, "scripts", "lib", "replay.bash"), encoding="utf-8") as f:
        replay = f.read()
    assert "workloads/params.tsv" in replay
    # No make variable of the replay is named there but LOG and RESUME
    # (files on the host), ALLOW_BUSY and the switch's own.
    named = set(re.findall(r"\$\{?([A-Z][A-Z_]+)", replay))
    replay_only = {p.name for p in params.replay_params()} - {"LOG", "RESUME", "INDIVIDUAL"}
    assert not named & replay_only, named & replay_only
    # Every parameter the Makefile defines reaches the scripts' environment
    # (its export line reads the table): set as makefile variables, not on
    # the command line (which make would export anyway).
    names = [p.name for p in params.load() if p.name != "CMD"]
    evals = [x for n in names for x in ("--eval", f"{n} := probe-{n}")]
    probe = subprocess.run(["make", "-s", "-C", ROOT, *evals, "--eval", "probe:\n\t@env",
                            "probe"], capture_output=True, text=True, check=True,
                           env={k: v for k, v in os.environ.items() if k not in names})
    env = dict(line.split("=", 1) for line in probe.stdout.splitlines() if "=" in line)
    assert [n for n in names if env.get(n) != f"probe-{n}"] == []


def test_params_check_names_the_bad_value():
    r = subprocess.run(["python3", "-m", "workloads.params", "check", "AUTO_RECOVER=1",
                        "AUTO_RECOVER=yes", "JOBS=x"], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 1
    assert r.stderr.splitlines() == ["error: AUTO_RECOVER=yes: expected 0 or 1",
                                     "error: JOBS=x: expected a whole number"]


def test_the_clock_pages_layout_is_the_c_headers(tmp_path):
    """workloads/vclock.py reads the page with a struct format of its own:
    its size and field offsets must be plugins/vclock/vclock.h's."""
    src = tmp_path / "layout.c"
    src.write_text(textwrap.dedent("""\
        #include <stddef.h>
        #include <stdio.h>
        #include "vclock.h"
        #define F(f) printf("%zu\\n", offsetof(struct tb_vclock_page, f))
        int main(void)
        {
            printf("%zu\\n", sizeof(struct tb_vclock_page));
            F(magic); F(version); F(seq); F(anchor_mono); F(anchor_wall);
            F(anchor_virtual); F(mono_offset); F(rate_bits); F(check_ns);
            printf("%llu %d\\n", (unsigned long long)TB_VCLOCK_MAGIC,
                   (int)TB_VCLOCK_VERSION);
            return 0;
        }
        """))
    exe = tmp_path / "layout"
    subprocess.run(["cc", "-std=c11", "-I", os.path.join(ROOT, "plugins", "vclock"),
                    "-o", str(exe), str(src)], check=True)
    lines = subprocess.run([str(exe)], capture_output=True, text=True,
                           check=True).stdout.split()
    size, offsets, magic, version = int(lines[0]), [int(x) for x in lines[1:10]], \
        int(lines[10]), int(lines[11])
    assert vclock.PAGE.size == size
    # Offsets of the format's fields, in order.
    fmt, pos, got = vclock.PAGE.format.lstrip("<"), 0, []
    for c in fmt:
        got.append(pos)
        pos += {"Q": 8, "I": 4, "q": 8, "d": 8}[c]
    assert got == offsets
    assert (vclock.MAGIC, vclock.VERSION) == (magic, version)
