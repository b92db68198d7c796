/*
 * tb-sim: the emulation's twin (plugins/sim/sim.h). Runs a replay's plan
 * on a cluster's topology under a policy, as the emulated Slurm would
 * schedule it, and prints each job's start, end and nodes with the
 * plugin's record (plugins/sim/sim_out.c):
 *
 *   tb-sim --topology topology.json --plan plan.tsv [--matrices file]
 *          [--speedup S] [--policy p] [--options "<words>"]
 *          [--backfill slurm|easy|none] [--bf-interval s] [--bf-window s]
 *          [--bf-resolution s] [--bf-max-job-test n] [--queue-depth n]
 *          [--lag s] [--bf-cost s] [--bf-max-time s]
 *          [--costs p1,p2,...] [--wait-trials policy|plugin] [--out file]
 *
 * --wait-trials: who answers backfill's trials of a wait-trait policy's
 * job (isolated): policy (the default) lets the policy decide every trial,
 * as Algorithm 1 asks, and as the plugin does since its fix (_must_wait);
 * plugin models the plugin before that fix, whose refusal in a trial
 * offering a node busy now was taken for a test-only eval and fell back to
 * tree's choice (ours, to compare with the emulations run before it:
 * docs/results/2026-11-27-sc18-twin-gap.md).
 * --tick: eligible times rounded to this many log seconds (Slurm's clock's
 * whole second: SPEEDUP under CLOCK=scaled; 0, none, by default). The
 * --bf-* times are log seconds too.
 * --lag: log seconds every job runs past its modelled runtime (ours: the
 * emulation's launch lag, to compare with it; 0 by default).
 * --bf-cost: log seconds one tested job costs a backfill cycle (ours: the
 * emulated slurmctld's CPU per test times the clock's rate; 0, a cycle
 * taking no time, by default); --bf-max-time: Slurm's bf_max_time in log
 * seconds, which cuts such a cycle (0: none). docs/simulator.md.
 * --costs: policies whose own choice's cost is recorded at every start on
 * the same state, as the plugin's cost_<policy> (the "costs" column).
 * --speedup: the plan's log seconds per Slurm second (its limits are
 * Slurm minutes): 1 for a virtual-clock plan (the default). On stderr, one
 * line: jobs, makespan, the run's CPU time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: tb-sim --topology <json> --plan <plan.tsv> "
		"[--matrices <file>]\n"
		"              [--speedup <S>] [--policy <p>] "
		"[--options <words>]\n"
		"              [--backfill slurm|easy|none] [--bf-interval <s>]\n"
		"              [--bf-window <s>] [--bf-resolution <s>]\n"
		"              [--bf-max-job-test <n>] [--queue-depth <n>] "
		"[--tick <s>] [--lag <s>]\n"
		"              [--bf-cost <s>] [--bf-max-time <s>] "
		"[--costs <p1,p2,...>] [--out <file>]\n"
		"              [--wait-trials policy|plugin]\n");
}

/* --costs: policy names, ',' between them, each once. */
static int costed(const char *v, struct sim_params *p)
{
	char buf[1024], *save = NULL;

	if (strlen(v) >= sizeof(buf)) {
		fprintf(stderr, "tb-sim: --costs: too long\n");
		return -1;
	}
	strcpy(buf, v);
	p->n_costed = 0;
	for (char *w = strtok_r(buf, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		enum tb_policy q;

		if (tb_policy_parse(w, &q)) {
			fprintf(stderr, "tb-sim: --costs '%s': unknown policy "
				"(tb-alloc --list-policies)\n", w);
			return -1;
		}
		for (int k = 0; k < p->n_costed; k++)
			if (p->costed[k] == q) {
				fprintf(stderr, "tb-sim: --costs: '%s' named "
					"twice\n", w);
				return -1;
			}
		p->costed[p->n_costed++] = q;
	}
	return 0;
}

static int num(const char *opt, const char *v, double lo, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || *end || end == v || !isfinite(*out) || *out < lo) {
		fprintf(stderr, "tb-sim: %s '%s': expected a number >= %g\n",
			opt, v, lo);
		return -1;
	}
	return 0;
}

struct num_opt {
	const char *name;
	double lo;
	double *to;
};

static const struct num_opt *num_opt(const struct num_opt *v, size_t n,
				     const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(v[k].name, name))
			return &v[k];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *topo_path = NULL, *plan_path = NULL, *matrices = NULL;
	const char *out_path = NULL;
	double speedup = 1, x, tick = 0;
	struct sim_params p;
	struct tb_topology *t = NULL;
	struct sim_plan plan;
	char err[512];
	FILE *out = stdout;
	clock_t c0 = clock();
	int rc = 1;
	/* The options that take a number >= lo (seconds but --speedup). */
	const struct num_opt nums[] = {
		{ "--speedup", 1e-9, &speedup },
		{ "--tick", 0, &tick },
		{ "--lag", 0, &p.lag },
		{ "--bf-cost", 0, &p.bf_cost },
		{ "--bf-max-time", 0, &p.bf_max_time },
		{ "--bf-interval", 0, &p.bf_interval },
		{ "--bf-window", 0, &p.bf_window },
		{ "--bf-resolution", 0, &p.bf_resolution },
	};
	const struct num_opt *n;

	sim_params_default(&p);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			usage();
			return 2;
		}
		i++;
		if (!strcmp(a, "--topology")) {
			topo_path = v;
		} else if (!strcmp(a, "--plan")) {
			plan_path = v;
		} else if (!strcmp(a, "--matrices")) {
			matrices = v;
		} else if (!strcmp(a, "--out")) {
			out_path = v;
		} else if ((n = num_opt(nums, sizeof(nums) / sizeof(nums[0]),
					 a))) {
			if (num(a, v, n->lo, n->to))
				return 2;
		} else if (!strcmp(a, "--policy")) {
			if (tb_policy_parse(v, &p.policy)) {
				fprintf(stderr, "tb-sim: --policy '%s': unknown "
					"(tb-alloc --list-policies)\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--options")) {
			if (tb_options_parse(v, &p.opts, err, sizeof(err))) {
				fprintf(stderr, "tb-sim: --options: %s\n", err);
				return 2;
			}
		} else if (!strcmp(a, "--backfill")) {
			if (!strcmp(v, "slurm"))
				p.backfill = SIM_BF_SLURM;
			else if (!strcmp(v, "easy"))
				p.backfill = SIM_BF_EASY;
			else if (!strcmp(v, "none"))
				p.backfill = SIM_BF_NONE;
			else {
				fprintf(stderr, "tb-sim: --backfill '%s': "
					"expected slurm, easy or none\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--wait-trials")) {
			if (!strcmp(v, "policy"))
				p.wait_trials = 0;
			else if (!strcmp(v, "plugin"))
				p.wait_trials = 1;
			else {
				fprintf(stderr, "tb-sim: --wait-trials '%s': "
					"expected policy or plugin\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--costs")) {
			if (costed(v, &p))
				return 2;
		} else if (!strcmp(a, "--bf-max-job-test") ||
			   !strcmp(a, "--queue-depth")) {
			if (num(a, v, 1, &x) || x != floor(x) || x > 1e9) {
				fprintf(stderr, "tb-sim: %s '%s': expected a "
					"whole number >= 1\n", a, v);
				return 2;
			}
			if (a[2] == 'b')
				p.bf_max_job_test = (int)x;
			else
				p.default_queue_depth = (int)x;
		} else {
			fprintf(stderr, "tb-sim: unknown option '%s'\n", a);
			usage();
			return 2;
		}
	}
	if (!topo_path || !plan_path) {
		usage();
		return 2;
	}
	if (tb_topology_load(topo_path, &t, err, sizeof(err))) {
		fprintf(stderr, "tb-sim: %s\n", err);
		return 1;
	}
	if (sim_plan_load(plan_path, matrices, speedup, t, &plan, err,
			  sizeof(err))) {
		fprintf(stderr, "tb-sim: %s\n", err);
		tb_topology_free(t);
		return 1;
	}
	/* Slurm's BeginTime has whole seconds of its clock: tick log s. */
	for (int i = 0; tick > 0 && i < plan.n; i++)
		plan.jobs[i].offset = floor(plan.jobs[i].offset / tick + 0.5) * tick;
	if (sim_run(t, &plan, &p, err, sizeof(err))) {
		fprintf(stderr, "tb-sim: %s\n", err);
		goto done;
	}
	/* Written whole or not at all. */
	if (out_path) {
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s.tmp", out_path);
		if (!(out = fopen(tmp, "w"))) {
			fprintf(stderr, "tb-sim: %s: %s\n", tmp, strerror(errno));
			goto done;
		}
		if (sim_write(out, t, &plan, &p) | fclose(out) ||
		    rename(tmp, out_path)) {
			fprintf(stderr, "tb-sim: %s: %s\n", out_path,
				strerror(errno));
			remove(tmp);
			goto done;
		}
	} else if (sim_write(stdout, t, &plan, &p)) {
		fprintf(stderr, "tb-sim: writing the result failed\n");
		goto done;
	}
	{
		double first = INFINITY, last = -INFINITY;

		for (int i = 0; i < plan.n; i++) {
			const struct sim_job *j = &plan.jobs[i];
			if (j->prefill)
				continue;
			first = fmin(first, j->eligible);
			last = fmax(last, j->end);
		}
		/* max_reserved: whether Slurm's plan of a cycle, 1 + 2 x
		 * reservations records, could fill bf_node_space_size. */
		fprintf(stderr, "tb-sim: %d jobs under %s, makespan %.0f s, "
			"at most %d reservations in one backfill cycle, "
			"%.2f s CPU\n", plan.n, tb_policy_name(p.policy),
			plan.n ? last - first : 0, plan.max_reserved,
			(double)(clock() - c0) / CLOCKS_PER_SEC);
	}
	rc = 0;
done:
	sim_plan_free(&plan);
	tb_topology_free(t);
	return rc;
}
