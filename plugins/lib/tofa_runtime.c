/*
 * TOFA's runtime model (ours; the paper simulates its runs in SimGrid,
 * L546-570, and gives no model): a sleep job of base runtime T0 runs
 *
 *     T = T0 ((1 - f) + f C / C0)
 *
 * with C the job's plain hop-bytes under its mapping (tb_tofa_evaluate's
 * hops: each pair's volume times the hops of its route, not Eq. 1's
 * penalised cost) and C0 those of Slurm's default on the EMPTY torus (the
 * lowest node ids, ranks in node order), so that a job's runtime depends on
 * its own placement only, not on what else ran. f, the share of T0 that
 * scales with hop-bytes, is the job's communication share (the profile's
 * percent, as ICPP-W's Eq. 7 and TreeMatch's a): a named value per graph
 * (experiments/graphs/tofa-f.tsv), fitted on one figure of the paper.
 * The law is ICPP-W's Eq. 7 / TreeMatch's Sec. 3.2, so it goes through
 * tb_scaled_runtime_why (a missing cost runs T0 and says so).
 */
#include "cost.h"
#include "policy.h"
#include "tofa.h"

#include <math.h>
#include <stdlib.h>

int tb_tofa_c0(const struct tb_topology *t, const struct tb_tofa_graph *g,
	       const struct tb_options *opts, double *c0)
{
	struct tb_occupancy *empty;
	struct tb_job job = { .nodes = g->n };
	struct tb_tofa_eval ev;
	int *alloc, rc = -1;

	*c0 = NAN;
	if (!t->torus_node || g->n < 1 || g->n > t->n_nodes)
		return -1;
	empty = tb_occupancy_new(t->n_nodes);
	alloc = malloc(sizeof(int) * (size_t)g->n);
	if (empty && alloc &&
	    tb_allocate_with(TB_POLICY_DEFAULT, t, empty, &job, opts,
			     alloc) == TB_OK &&
	    !tb_tofa_evaluate(t, NULL, g, alloc, opts->penalty,
			      opts->exposure, &ev)) {
		*c0 = ev.hops;
		rc = 0;
	}
	free(alloc);
	tb_occupancy_free(empty);
	return rc;
}

double tb_tofa_runtime_why(double t0, double f, double c, double c0,
			   enum tb_runtime_fallback *why)
{
	struct tb_job job = { .nodes = 1, .comm = 1, .comm_fraction = f };

	return tb_scaled_runtime_why(&job, t0, c, c0, why);
}
