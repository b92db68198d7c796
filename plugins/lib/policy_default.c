/*
 * A model of what Slurm 24.11's topology/tree (_eval_nodes_topo) chooses for
 * whole-node jobs on nodes of equal weight, written from reading its code:
 *
 *  - the top switch is the highest-level switch with enough free nodes (the
 *    last one in topology.conf order on a tie); only nodes below it count;
 *  - leaves are then picked one at a time; each candidate carries the summed
 *    switch-graph distance to the leaves already picked; a leaf replaces the
 *    best so far when it is closer and fits the remainder, or equally close
 *    and better by the fit comparison below;
 *  - fit comparison: a leaf that fits the remainder beats one that does not;
 *    of two that fit, the smaller wins; if neither fits, both move up to
 *    their parents and compare again until the parents coincide; then the
 *    larger count wins, then the lower level;
 *  - a picked leaf gives its free nodes in index order, and its count is
 *    subtracted from every switch above it.
 *
 * CPU counts are not modelled: with whole nodes, node counts decide.
 */
#include "policy.h"

#include <stdlib.h>

struct tree_state {
	const struct tb_topology *t;
	int *cnt;		/* free nodes below each switch, under top */
	long *dist;		/* summed distance to picked leaves */
};

/*
 * Edges between two leaves along the tree: twice the level of their lowest
 * common switch, from the topology's leaf table (tree walks the switch
 * graph; on a tree the two agree). Leaves under no common switch are far.
 */
static long leaf_distance(const struct tb_topology *t, int x, int y)
{
	size_t a = (size_t)t->leaf_rank[x], b = (size_t)t->leaf_rank[y];
	int lvl = t->lca_level[a * (size_t)t->n_leaves + b];

	return lvl >= t->n_levels ? 1L << 20 : 2L * lvl;
}

static int compare_switches(const struct tree_state *st, int i, int j,
			    int rem, int *i_fit_out)
{
	const struct tb_switch *sw = st->t->switches;

	while (1) {
		int i_fit = st->cnt[i] >= rem;
		int j_fit = st->cnt[j] >= rem;

		*i_fit_out = i_fit;
		if (i_fit && j_fit) {
			if (st->cnt[i] < st->cnt[j])
				return 1;
			if (st->cnt[i] > st->cnt[j])
				return -1;
			break;
		} else if (i_fit) {
			return 1;
		} else if (j_fit) {
			return -1;
		}
		if (sw[i].parent != sw[j].parent &&
		    sw[i].parent != TB_NO_PARENT && sw[j].parent != TB_NO_PARENT) {
			i = sw[i].parent;
			j = sw[j].parent;
			continue;
		}
		break;
	}
	if (st->cnt[i] > st->cnt[j])
		return 1;
	if (st->cnt[i] < st->cnt[j])
		return -1;
	if (sw[i].level < sw[j].level)
		return 1;
	if (sw[i].level > sw[j].level)
		return -1;
	return 0;
}

static void choose_best(const struct tree_state *st, int rem, int i, int *best)
{
	int i_fit = 0, tcs;

	if (*best == -1 || !st->cnt[i]) {
		if (st->cnt[i])
			*best = i;
		return;
	}
	tcs = compare_switches(st, i, *best, rem, &i_fit);
	if ((st->dist[i] < st->dist[*best] && i_fit) ||
	    (st->dist[i] == st->dist[*best] && tcs > 0))
		*best = i;
}

static int top_switch(const struct tb_topology *t,
		      const struct tb_switch_counts *c, int n)
{
	int top = -1;

	for (int s = 0; s < t->n_switches; s++) {
		if (c->free_nodes[s] < n)
			continue;
		if (top == -1 || t->switches[s].level >= t->switches[top].level)
			top = s;
	}
	return top;
}

enum tb_status tb_policy_default(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job, int *alloc)
{
	struct tb_switch_counts c;
	struct tree_state st = { t, NULL, NULL };
	struct tb_pick pk;
	enum tb_status rc = TB_ENOMEM;
	int top, rem = job->nodes;

	if (tb_counts_init(&c, t, o))
		return TB_ENOMEM;
	top = top_switch(t, &c, job->nodes);
	if (top < 0) {
		tb_counts_fini(&c);
		return TB_ENOSPACE;
	}
	st.cnt = calloc((size_t)t->n_switches, sizeof(int));
	st.dist = calloc((size_t)t->n_switches, sizeof(long));
	if (!st.cnt || !st.dist || tb_pick_init(&pk, t, o, alloc))
		goto out;
	/* Counts restricted to the top switch's nodes. */
	for (int k = 0; k < t->switches[top].n_nodes; k++) {
		int node = t->switches[top].nodes[k];
		if (o->state[node] != TB_NODE_FREE)
			continue;
		for (int s = t->nodes[node].leaf; s != TB_NO_PARENT;
		     s = t->switches[s].parent)
			st.cnt[s]++;
	}
	while (rem > 0) {
		int best = -1, got;

		for (int i = 0; i < t->n_leaves; i++)
			choose_best(&st, rem, t->leaves[i], &best);
		if (best == -1)
			break;
		for (int i = 0; i < t->n_leaves; i++)
			st.dist[t->leaves[i]] +=
				leaf_distance(t, best, t->leaves[i]);
		got = tb_pick_from_leaf(&pk, best, rem);
		rem -= got;
		/* The whole leaf counts as used, as in Slurm. */
		got = st.cnt[best];
		for (int s = best; s != TB_NO_PARENT; s = t->switches[s].parent)
			st.cnt[s] = st.cnt[s] > got ? st.cnt[s] - got : 0;
		st.cnt[best] = 0;
	}
	rc = rem > 0 ? TB_ENOSPACE : TB_OK;
	tb_pick_fini(&pk);
out:
	free(st.cnt);
	free(st.dist);
	tb_counts_fini(&c);
	return rc;
}
