"""The policy library's registry, as its build wrote it: the one list of
policies every Python program reads (plugins/lib/policy_registry.def ->
`tb-alloc --list-policies` -> policies.tsv in the build; `make -C plugins
registry` writes it, scripts/testbed makes it first)."""

import functools
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class RegistryError(Exception):
    pass


def build_dir(root=ROOT):
    """The policy library's build: its tools and policies.tsv ($TB_BUILD,
    default build/c in the clone)."""
    return os.environ.get("TB_BUILD") or os.path.join(root, "build", "c")


@functools.lru_cache(maxsize=None)
def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError as e:
        raise RegistryError(f"{path}: {e.strerror}; make -C plugins registry "
                            "writes it") from None
    if not rows or any(len(r) != 4 for r in rows):
        raise RegistryError(f"{path}: expected lines of name, family, traits "
                            "and paper, tab-separated")
    return tuple((n, fam, frozenset() if tr == "-" else frozenset(tr.split(",")), paper)
                 for n, fam, tr, paper in rows)


def policy_registry(root=ROOT):
    """(name, family, traits, paper) per policy, in the library's order,
    traits a frozenset."""
    return _read(os.path.join(build_dir(root), "policies.tsv"))


def policy_names(root=ROOT):
    """The policies' names, in the library's order."""
    return [p[0] for p in policy_registry(root)]
