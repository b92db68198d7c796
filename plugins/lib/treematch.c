/*
 * TreeMatch's options, runtime law and core-level API (see treematch.h);
 * the rest is in the files named at the end. Three steps per decision:
 *
 *  A. Which free slots (cores, or nodes at node level): a candidate is a
 *     subtree with enough free slots and a rule saying how many processes
 *     go under each of its vertices ("the shape"). Under the paper's
 *     constraint extension (Sec. 3.1.3) every unused or unavailable core
 *     holds a dummy process that never communicates; dummies add nothing
 *     to any objective, so we leave them out and keep only the counts
 *     they leave for real processes. Three count rules: compact (Slurm's
 *     best fit), pack (fullest nodes first) and partition (the paper's
 *     recursive k-partitioning, the only one that reads the matrix).
 *     tm-i evaluates candidates over the whole machine, tm-sub only under
 *     the subtree of Sec. 3.2. Ours, optional (refine_max): on small jobs
 *     single-rank moves and swaps inside the candidate after step C.
 *  B. Grouping, bottom-up (Jeannot & Mercier's GroupProcesses and
 *     AggregateComMatrix): at level 1 processes are split into one group
 *     per used node of the sizes the shape asks, maximising the affinity
 *     inside groups; the groups become the units of level 2 with the
 *     aggregated affinity, and so on to the subtree's root. The original
 *     assumes one arity per level and pads with dummies where the arity
 *     does not divide; with free cores the counts differ from node to
 *     node, so a group is typed by the isomorphism class of the subtree it
 *     is made for (a node with 16 free cores is not one with 8) and a
 *     group of level l takes exactly the classes its vertex's children
 *     have. With one class per level this is the original algorithm.
 *     Exact search when the level is small (opts->exact_budget), else the
 *     greedy of group_greedy().
 *  C. Mapping, top-down: the root group on the subtree's root, each
 *     group's members on its vertex's children of the same class.
 *
 * The candidate with the least hop-bytes wins; ties go to the lower, then
 * tighter, then leftmost subtree, so an idle machine is used the way
 * Slurm's best fit would.
 *
 * Files: step A treematch_search.c, B treematch_group.c, B and C on one
 * shape (and the refinement) treematch_run.c; the affinity graph
 * treematch_graph.c, the machine and the shapes treematch_tree.c; the
 * node-level policies policy_treematch.c; what they share
 * treematch_internal.h.
 */
#include "treematch.h"

#include <stdlib.h>

#include "cost.h"
#include "job.h"
#include "treematch_internal.h"

void tb_tm_opts_default(struct tb_tm_opts *o)
{
	o->strategy = TB_TM_I;
	o->levels_above = 0;
	o->exact_budget = 20000.0;
	o->core_level_max = 16384;
	o->max_candidates = 4;
	o->partition_max = 2048;
	o->refine_max = 64;
}

double tb_treematch_runtime_why(double runtime, double comm_ratio,
				double hop_bytes, double hop_bytes_default,
				enum tb_runtime_fallback *why)
{
	/* T' = R a T + (1 - a) T = (1 + R a - a) T, Sec. 3.2: the law of
	 * ICPP-W's Eq. 7, for a communicating job. */
	struct tb_job job = { .nodes = 1, .comm = 1,
			      .comm_fraction = comm_ratio };

	return tb_scaled_runtime_why(&job, runtime, hop_bytes,
				     hop_bytes_default, why);
}

double tb_treematch_runtime(double runtime, double comm_ratio,
			    double hop_bytes, double hop_bytes_default)
{
	return tb_treematch_runtime_why(runtime, comm_ratio, hop_bytes,
					hop_bytes_default, NULL);
}

/* --- core-level API ----------------------------------------------------- */

struct proc_key {
	int node, slot, proc;
};

static int cmp_proc_key(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;

	if (x->node != y->node)
		return x->node - y->node;
	return x->slot - y->slot;
}

enum tb_status tb_treematch_allocate(const struct tb_topology *t,
				     const struct tb_occupancy *o,
				     const struct tb_matrix *m,
				     const struct tb_tm_opts *opts,
				     int *cores, int *map, double *hop_bytes)
{
	struct tm_machine mc = { 0 };
	struct tm_graph g = { 0 };
	struct tm_result res = { -1.0, NULL, NULL };
	struct proc_key *keys = NULL;
	int *cap = NULL, n = m->ranks, S;
	long total = 0;
	enum tb_status rc = TB_ENOMEM;

	if (n < 1 || o->n_nodes != t->n_nodes)
		return TB_EINVAL;
	cap = malloc((size_t)t->n_nodes * sizeof(int));
	if (!cap)
		return TB_ENOMEM;
	for (int v = 0; v < t->n_nodes; v++) {
		cap[v] = tb_free_cores(t, o, v);
		total += t->nodes[v].cores;
	}
	if (n > total) {
		free(cap);
		return TB_ETOOBIG;
	}
	res.bin = malloc((size_t)n * sizeof(int));
	res.slot = malloc((size_t)n * sizeof(int));
	keys = malloc((size_t)n * sizeof(*keys));
	if (!res.bin || !res.slot || !keys ||
	    tb_tm_machine_build(&mc, t, 0, cap) ||
	    tb_tm_graph_from_matrix(&g, m, n))
		goto out;
	S = tb_tm_scope_of(&mc, n, opts);
	if (S < 0) {
		rc = TB_ENOSPACE;
		goto out;
	}
	rc = tb_tm_search(&mc, &g, opts, S, 0, &res);
	if (rc != TB_OK)
		goto out;
	for (int p = 0; p < n; p++) {
		keys[p].node = res.bin[p];
		keys[p].slot = res.slot[p];
		keys[p].proc = p;
	}
	qsort(keys, (size_t)n, sizeof(*keys), cmp_proc_key);
	for (int k = 0; k < n; k++) {
		cores[k] = keys[k].node;
		map[keys[k].proc] = k;
	}
	if (hop_bytes)
		*hop_bytes = res.hb;
out:
	free(cap);
	free(keys);
	free(res.bin);
	free(res.slot);
	tb_tm_graph_free(&g);
	tb_tm_machine_free(&mc);
	return rc;
}

enum tb_status tb_treematch_map(const struct tb_topology *t,
				const struct tb_matrix *m, const int *cores,
				const struct tb_tm_opts *opts, int *map,
				double *hop_bytes)
{
	struct tm_machine mc = { 0 };
	struct tm_graph g = { 0 };
	struct tm_result res = { -1.0, NULL, NULL };
	int *cap = calloc((size_t)t->n_nodes, sizeof(int));
	int *first = NULL, *at = NULL, n = m->ranks;
	enum tb_status rc = TB_ENOMEM;

	if (!cap)
		return TB_ENOMEM;
	for (int k = 0; k < n; k++) {
		if (cores[k] < 0 || cores[k] >= t->n_nodes ||
		    ++cap[cores[k]] > t->nodes[cores[k]].cores) {
			free(cap);
			return TB_EINVAL;
		}
	}
	res.bin = malloc((size_t)n * sizeof(int));
	res.slot = malloc((size_t)n * sizeof(int));
	first = malloc((size_t)t->n_nodes * sizeof(int));
	at = malloc((size_t)n * sizeof(int));
	if (!res.bin || !res.slot || !first || !at ||
	    tb_tm_machine_build(&mc, t, 0, cap) ||
	    tb_tm_graph_from_matrix(&g, m, n))
		goto out;
	rc = tb_tm_search(&mc, &g, opts, mc.root, 1, &res);
	if (rc != TB_OK)
		goto out;
	/* Slot j of a node is the j-th of its cores in the given list. */
	for (int v = 0, sum = 0; v < t->n_nodes; v++) {
		first[v] = sum;
		sum += cap[v];
		cap[v] = first[v];
	}
	for (int k = 0; k < n; k++)
		at[cap[cores[k]]++] = k;
	for (int p = 0; p < n; p++)
		map[p] = at[first[res.bin[p]] + res.slot[p]];
	if (hop_bytes)
		*hop_bytes = res.hb;
out:
	free(cap);
	free(first);
	free(at);
	free(res.bin);
	free(res.slot);
	tb_tm_graph_free(&g);
	tb_tm_machine_free(&mc);
	return rc;
}
