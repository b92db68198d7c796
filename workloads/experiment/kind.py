"""What an experiment kind is: its hooks and traits (Kind), with the
defaults a kind that needs nothing of its own gets. Each kind's module
declares one (KIND); kinds.py lists them; the generic code (definition,
planning, results) calls the hooks and never names a kind.

Hooks (each optional but table):
  table(d, runs, t)        the kind's table: t.md lines, t.csv_header and
                           t.csv_rows, t.more_csv (tables.Table)
  validate(d, where)       the kind's own checks of a parsed definition,
                           after the common ones; raise ExperimentError
  plan(d)                  the replays: [{log, cluster, pattern, policy,
                           params}]; default: per log x pattern (traits)
  run_key(d, r)            a finished run's key in the table's runs;
                           default (log, pattern, policy)
  header(d, runs)          the table's "Ours:" paragraph (when runs were
                           read); default: the runs, jobs, window, pace
  skipped(d, runs)         "what differs" lines for jobs larger than the
                           cluster; default: one per log
  plots(d, runs, out)      table --plots's section; default: none, the
                           runs' own plots are in their directories
  load(run_dir)            a finished run as the table reads it; default
                           results.Run (a replay). A kind whose runs are
                           not replays plans them with RUNNER=<command of
                           scripts/testbed> in their params
Traits:
  lists                    {definition key: default}: word lists only
                           this kind takes (`key = a b c`, overridden by
                           KEY='a b' on the command line); another kind's
                           definition that sets one is refused
  default_patterns         the patterns when the definition gives none
  uses_metrics             the definition's `metrics` are checked against
                           make report's (the table shows them)
  runs_every_policy        default plan: every policy runs per log x
                           pattern; false: the baseline alone (the
                           same-state kinds read every policy's cost from
                           its run)
  baseline_once            default plan: the baseline runs once per log,
                           not per pattern, unless baseline_per_pattern
"""

from .tables import pace_text


class Kind:
    def __init__(self, name, table, *, validate=None, plan=None, run_key=None,
                 header=None, skipped=None, plots=None, load=None, lists=None,
                 default_patterns=None, uses_metrics=False, runs_every_policy=True,
                 baseline_once=False):
        self.name = name
        self.table = table
        self.validate = validate or (lambda d, where: None)
        self.plan = plan or self.plan_per_pattern
        self.run_key = run_key or key_per_pattern
        self.header = header or header_runs
        self.skipped = skipped or skipped_per_log
        self.plots = plots or plots_in_runs
        self.load = load
        self.lists = dict(lists or {})
        self.default_patterns = list(default_patterns or [])
        self.uses_metrics = uses_metrics
        self.runs_every_policy = runs_every_policy
        self.baseline_once = baseline_once

    def __repr__(self):
        return f"Kind({self.name!r})"

    def plan_per_pattern(self, d):
        """One replay per log x pattern x policy (runs_every_policy; the
        baseline once per log when baseline_once, unless
        baseline_per_pattern), or the baseline's alone per log x pattern."""
        runs = []
        for log in d.logs:
            for i, pattern in enumerate(d.patterns):
                policies = d.policies if self.runs_every_policy else [d.baseline]
                for policy in policies:
                    if (self.baseline_once and policy == d.baseline and i > 0
                            and not d.baseline_per_pattern):
                        continue
                    runs.append({"log": log, "cluster": d.cluster_of(log), "pattern": pattern,
                                 "policy": policy, "params": d.params_of(log)})
        return runs


def key_per_pattern(d, r):
    return (r.log, r.pattern, r.policy)


def header_runs(d, runs):
    """The runs, the log's window and the pace, from the first run's
    manifest."""
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    return [f"Ours: {len(rs)} replays, {m['jobs']} jobs each of `{m.get('log_file', m['log'])}`"
            f"{' (and others)' if len(d.logs) > 1 else ''} from job {m['first']}, "
            f"{pace_text(m, [r.manifest for r in rs[1:]])}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
            f"Paper: {d.citation}. Times are log time.", ""]


def skipped_per_log(d, runs):
    """The jobs of each log's window larger than the cluster."""
    skipped = sorted({(r.log, r.manifest.get("skipped_too_big", 0)) for r in runs.values()
                      if r.manifest.get("skipped_too_big")})
    return [f"- {n} jobs of the {lg} window larger than the cluster were skipped"
            for lg, n in skipped]


def plots_in_runs(d, runs, out):
    return ["No plot: each run's own plots (utilization over time, wait CDF) are in "
            "its directory.", ""]


def no_cost_plot(d, runs, out):
    """The same-state kinds: their figures are costs, which report.py does
    not plot."""
    return ["No plot: report.py has no plot of same-state costs to reuse.", ""]
