/* Ranks onto cores or nodes under every policy, for make alloc
 * (place_cores.h). */
#include "place_cores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

double tb_hop_bytes_nodes(const struct tb_topology *t,
			  const struct tb_matrix *m, const int *node_of_rank)
{
	double sum = 0.0;

	for (size_t k = 0; k < m->n; k++) {
		int a = node_of_rank[m->entries[k].from];
		int b = node_of_rank[m->entries[k].to];

		if (a != b)
			sum += m->entries[k].volume * tb_pair_distance(t, a, b);
	}
	return sum;
}

/* TreeMatch at core level: tm-a maps onto default's cores, the others
 * choose among the free cores. */
static enum tb_status treematch_cores(enum tb_policy p,
				      const struct tb_topology *t,
				      const struct tb_occupancy *o,
				      const struct tb_job *job,
				      int *node_of_rank)
{
	int r = job->matrix->ranks;
	int *cores = malloc(sizeof(int) * (size_t)r);
	int *map = malloc(sizeof(int) * (size_t)r);
	struct tb_tm_opts tm;
	enum tb_status rc = TB_ENOMEM;

	if (!cores || !map)
		goto out;
	tb_tm_opts_default(&tm);
	tm.strategy = p == TB_POLICY_TM_I ? TB_TM_I : TB_TM_SUB;
	tm.levels_above = p == TB_POLICY_TM_SUB3 ? 3 : 0;
	if (p == TB_POLICY_TM_A) {
		rc = tb_tree_cores(t, o, r, cores);
		if (rc == TB_OK)
			rc = tb_treematch_map(t, job->matrix, cores, &tm, map,
					      NULL);
	} else {
		rc = tb_treematch_allocate(t, o, job->matrix, &tm, cores, map,
					   NULL);
	}
	for (int k = 0; rc == TB_OK && k < r; k++)
		node_of_rank[k] = cores[map[k]];
out:
	free(cores);
	free(map);
	return rc;
}

enum tb_status tb_place_ranks(enum tb_policy p, const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job,
			      const struct tb_options *opts, int *node_of_rank,
			      char *why, size_t whylen)
{
	struct tb_job nj = *job;
	int r = job->matrix ? job->matrix->ranks : 0, *alloc, *count;
	enum tb_status rc;

	if (r < 1 || !t->n_nodes)
		return TB_EINVAL;
	if (!job->nodes && tb_policy_has(p, TB_TRAIT_CORES)) {
		long free_cores = 0;

		/* A scenario's job always has a matrix, so the TreeMatch
		 * policies are never the default here (end of Sec. 4.3). */
		rc = p == TB_POLICY_DEFAULT ?
		     tb_tree_cores(t, o, r, node_of_rank) :
		     treematch_cores(p, t, o, job, node_of_rank);
		for (int v = 0; rc == TB_ENOSPACE && v < t->n_nodes; v++)
			free_cores += tb_free_cores(t, o, v);
		if (rc == TB_ENOSPACE && why && whylen)
			snprintf(why, whylen, "not enough free cores: %ld for %d ranks",
				 free_cores, r);
		return rc;
	}
	if (!nj.nodes) {
		/* Whole nodes, as many as the ranks fill: ceil(R / cores),
		 * the cores of the first node (a scenario's are all alike). */
		int c = t->nodes[0].cores > 0 ? t->nodes[0].cores : 1;

		nj.nodes = (r + c - 1) / c;
	}
	if (nj.nodes > r)
		return TB_EINVAL;
	alloc = malloc(sizeof(int) * (size_t)t->n_nodes);
	count = calloc((size_t)t->n_nodes, sizeof(int));
	if (!alloc || !count) {
		free(alloc);
		free(count);
		return TB_ENOMEM;
	}
	rc = tb_allocate_why(p, t, o, &nj, opts, alloc, why, whylen);
	if (rc == TB_ENOSPACE && !job->nodes && why && whylen)
		snprintf(why, whylen, "not enough free nodes: %s places whole nodes, %d for %d ranks",
			 tb_policy_name(p), nj.nodes, r);
	for (int k = 0; rc == TB_OK && k < r; k++) {
		int v = alloc[(long long)k * nj.nodes / r];

		node_of_rank[k] = v;
		if (++count[v] > t->nodes[v].cores) {
			if (why && whylen)
				snprintf(why, whylen, "ranks=%d in blocks over nodes=%d put more ranks on %s than its %d cores",
					 r, nj.nodes, t->nodes[v].name,
					 t->nodes[v].cores);
			rc = TB_EINVAL;
		}
	}
	free(alloc);
	free(count);
	return rc;
}
