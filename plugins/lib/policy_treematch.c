/* tm-a, tm-i, tm-sub and tm-sub3 for the registry: TreeMatch on whole nodes. */
#include "treematch_internal.h"

#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "policy_registry.h"

/* --- node-level policies (the registry) --------------------------------- */

/*
 * Nodes are the slots and leaf switches the bins; a process is the block
 * of ranks a node runs (matrix.h's block placement). alloc[k] receives the
 * node of block k. given: NULL to choose among the free nodes, else the
 * nodes to map onto (tm-a).
 */
static enum tb_status node_level(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job,
				 const struct tb_tm_opts *opts,
				 const int *given, int *alloc)
{
	struct tm_machine mc = { 0 };
	struct tm_graph g = { 0 };
	struct tm_result res = { -1.0, NULL, NULL };
	int n = job->nodes, *cap = calloc((size_t)t->n_switches, sizeof(int));
	int *pos = NULL, *slot_node = NULL, S;
	unsigned char *cand = calloc((size_t)t->n_nodes, 1);
	enum tb_status rc = TB_ENOMEM;

	if (!cap || !cand)
		goto out;
	for (int k = 0; given && k < n; k++)
		cand[given[k]] = 1;
	for (int v = 0; !given && v < t->n_nodes; v++)
		cand[v] = o->state[v] == TB_NODE_FREE;
	for (int v = 0; v < t->n_nodes; v++)
		cap[t->nodes[v].leaf] += cand[v];
	res.bin = malloc((size_t)n * sizeof(int));
	res.slot = malloc((size_t)n * sizeof(int));
	pos = calloc((size_t)t->n_switches + 1, sizeof(int));
	slot_node = malloc((size_t)t->n_nodes * sizeof(int));
	if (!res.bin || !res.slot || !pos || !slot_node ||
	    tb_tm_machine_build(&mc, t, 1, cap) ||
	    tb_tm_graph_from_matrix(&g, job->matrix, n))
		goto out;
	S = given ? mc.root : tb_tm_scope_of(&mc, n, opts);
	if (S < 0) {
		rc = TB_ENOSPACE;
		goto out;
	}
	rc = tb_tm_search(&mc, &g, opts, S, given != NULL, &res);
	if (rc != TB_OK)
		goto out;
	/* Slot j of a leaf: its j-th candidate node in index order. */
	for (int s = 0; s < t->n_switches; s++)
		pos[s + 1] = pos[s] + cap[s];
	for (int s = 0; s < t->n_switches; s++)
		cap[s] = pos[s];
	for (int v = 0; v < t->n_nodes; v++)
		if (cand[v])
			slot_node[cap[t->nodes[v].leaf]++] = v;
	for (int p = 0; p < n; p++)
		alloc[p] = slot_node[pos[res.bin[p]] + res.slot[p]];
out:
	free(cap);
	free(cand);
	free(pos);
	free(slot_node);
	free(res.bin);
	free(res.slot);
	tb_tm_graph_free(&g);
	tb_tm_machine_free(&mc);
	return rc;
}

static int has_matrix(const struct tb_job *job)
{
	return job->matrix && job->matrix->ranks >= 1;
}

enum tb_status tb_policy_tm_a(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job,
			      const struct tb_options *opts, int *alloc)
{
	struct tb_tm_opts tm;
	enum tb_status rc = tb_policy_default(t, o, job, opts, alloc);
	int *given;

	if (rc != TB_OK || !has_matrix(job))
		return rc;
	given = malloc((size_t)job->nodes * sizeof(int));
	if (!given)
		return TB_ENOMEM;
	memcpy(given, alloc, (size_t)job->nodes * sizeof(int));
	tb_tm_opts_default(&tm);
	rc = node_level(t, o, job, &tm, given, alloc);
	free(given);
	return rc;
}

static enum tb_status tm_policy(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc,
				enum tb_tm_strategy s, int above)
{
	struct tb_tm_opts tm;

	if (!has_matrix(job))
		return tb_policy_default(t, o, job, opts, alloc);
	tb_tm_opts_default(&tm);
	tm.strategy = s;
	tm.levels_above = above;
	return node_level(t, o, job, &tm, NULL, alloc);
}

enum tb_status tb_policy_tm_i(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job,
			      const struct tb_options *opts, int *alloc)
{
	return tm_policy(t, o, job, opts, alloc, TB_TM_I, 0);
}

enum tb_status tb_policy_tm_sub(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc)
{
	return tm_policy(t, o, job, opts, alloc, TB_TM_SUB, 0);
}

enum tb_status tb_policy_tm_sub3(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job,
				 const struct tb_options *opts, int *alloc)
{
	return tm_policy(t, o, job, opts, alloc, TB_TM_SUB, 3);
}
