"""The testbed's parameters, declared once in workloads/params.tsv (name,
section, type, default, choices, the replay's flag, whether an experiment
definition may set it, one line of help): the replay's argument parser,
the experiment definitions' typed settings, `make help` and the shell
driver all read that table, so a parameter is declared, defaulted and
checked in one place.

    python3 -m workloads.params check NAME=VALUE ...   check values, one
                                                      line per bad one
"""

import os
import sys
from dataclasses import dataclass

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "params.tsv")
TYPES = ("int", "float", "word", "text", "path")
# Choices kept where they are defined (checked there, not here).
LISTS = ("policies", "clusters", "patterns")


class ParamError(Exception):
    pass


@dataclass(frozen=True)
class Param:
    name: str
    section: str
    type: str
    default: str      # "" when none
    choices: tuple    # () when free; one of LISTS: a list kept elsewhere
    flag: str         # the replay's option, "" when the replay does not take it
    experiment: bool  # an experiment definition may set it (and a command line override)
    help: str

    def parse(self, value):
        """value (a string) as the parameter's type; ParamError naming the
        parameter and what was expected."""
        if self.type == "int":
            try:
                return int(value)
            except ValueError:
                raise ParamError(f"{self.name}={value}: expected a whole number") from None
        if self.type == "float":
            try:
                return float(value)
            except ValueError:
                raise ParamError(f"{self.name}={value}: expected a number") from None
        if self.choices and self.choices[0] not in LISTS and value not in self.choices:
            raise ParamError(f"{self.name}={value}: expected {' or '.join(self.choices)}")
        return value


def load(path=TABLE):
    """The table's rows, in order; ParamError for a malformed line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 8 or cols[2] not in TYPES or cols[6] not in ("0", "1"):
                raise ParamError(f"{path}:{n}: expected name, section, type ({', '.join(TYPES)}), "
                                 "default, choices, flag, exp (0 or 1) and help, tab-separated")
            name, section, typ, default, choices, flag, exp, text = cols
            out.append(Param(name, section, typ, "" if default == "-" else default,
                             () if choices == "-" else tuple(choices.split("|")),
                             "" if flag == "-" else flag, exp == "1", text))
    return out


def by_name(path=TABLE):
    return {p.name: p for p in load(path)}


def replay_params(path=TABLE):
    """The parameters the replay's parser takes, in the table's order."""
    return [p for p in load(path) if p.flag]


def definition_params(path=TABLE):
    """The UPPERCASE settings an experiment definition may give (and a
    command line override), by name."""
    return {p.name: p for p in load(path) if p.experiment}


def add_arguments(ap, params):
    """One option per parameter: its flag, its default (None when the
    table has none), its type and choices, its help."""
    conv = {"int": int, "float": float}
    for p in params:
        # argparse formats help with %: the table's "%" is a plain one.
        kw = {"help": p.help.replace("%", "%%"), "default": None}
        if p.type in conv:
            kw["type"] = conv[p.type]
            if p.default:
                kw["default"] = conv[p.type](p.default)
        elif p.default:
            kw["default"] = p.default
        if p.choices and p.choices[0] not in LISTS:
            kw["choices"] = p.choices
        ap.add_argument(p.flag, **kw)


def main(argv):
    if len(argv) >= 1 and argv[0] == "check":
        table = by_name()
        bad = 0
        for kv in argv[1:]:
            name, sep, value = kv.partition("=")
            try:
                if not sep or name not in table:
                    raise ParamError(f"{kv}: expected NAME=VALUE with a parameter of "
                                     "workloads/params.tsv")
                table[name].parse(value)
            except ParamError as e:
                print(f"error: {e}", file=sys.stderr)
                bad = 1
        return bad
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
