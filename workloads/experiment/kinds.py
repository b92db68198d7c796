"""The registry of experiment kinds: ONE LINE per kind below, the module
that declares it (its KIND, a kind.Kind with its hooks and traits). A new
kind is that module and its line; the definition's parser, the plan and
the table learn of it from here (`kind = <name>` in a definition).
"""

import importlib

from .errors import ExperimentError

# In the order `kind = ` lists them; the first is the default kind.
MODULES = (
    "continuous",
    "shadow",
    "individual",
    "cost_by_size",
    "sc18",
    "treematch",
    "readings",
    "nedd",
    "tofa",
    "tofa_resilience",
)


def _load():
    kinds = {}
    for name in MODULES:
        k = importlib.import_module(f".{name}", __package__).KIND
        if k.name in kinds:
            raise ImportError(f"workloads/experiment/{name}.py: kind '{k.name}' twice")
        kinds[k.name] = k
    return kinds


# {name: Kind}. A test may add a kind to it.
KINDS = _load()
DEFAULT = next(iter(KINDS))


def kind_of(d):
    """The definition's kind."""
    return KINDS[d.kind]


def list_keys():
    """{definition key: (kind, default)}: the word lists a kind takes."""
    out = {}
    for k in KINDS.values():
        for key, default in k.lists.items():
            if key in out:
                raise ExperimentError(f"definition key '{key}' claimed by kinds "
                                      f"{out[key][0].name} and {k.name}")
            out[key] = (k, default)
    return out
