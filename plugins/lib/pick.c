#include "pick.h"

#include <stdlib.h>
#include <string.h>

static int by_index(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void tb_rank_order(const struct tb_options *opts, enum tb_rank_order authors,
		   int *alloc, int n)
{
	enum tb_rank_order r = opts ? opts->ranks : TB_RANKS_TAKEN;

	if (r == TB_RANKS_AUTHORS)
		r = authors;
	if (r == TB_RANKS_INDEX)
		qsort(alloc, (size_t)n, sizeof(*alloc), by_index);
}

int tb_pick_init(struct tb_pick *pk, const struct tb_topology *t,
		 const struct tb_occupancy *o, int *alloc)
{
	pk->topo = t;
	pk->occ = o;
	pk->alloc = alloc;
	pk->n = 0;
	pk->taken = calloc((size_t)t->n_nodes, 1);
	return pk->taken ? 0 : -1;
}

void tb_pick_fini(struct tb_pick *pk)
{
	free(pk->taken);
	pk->taken = NULL;
}

int tb_pick_from_leaf(struct tb_pick *pk, int leaf, int want)
{
	const struct tb_switch *s = &pk->topo->switches[leaf];
	int got = 0;

	for (int k = 0; k < s->n_nodes && got < want; k++) {
		int node = s->nodes[k];
		if (pk->occ->state[node] != TB_NODE_FREE || pk->taken[node])
			continue;
		pk->taken[node] = 1;
		pk->alloc[pk->n++] = node;
		got++;
	}
	return got;
}

int tb_group_by_leaf(const struct tb_topology *t, int *alloc, int n)
{
	/* A counting sort keyed by each leaf's first appearance: stable, so a
	 * leaf's nodes keep their order, and linear in n and the leaves. */
	int *start, *order, *out, used = 0, pos = 0;

	if (n < 2)
		return 0;
	start = calloc((size_t)t->n_leaves, sizeof(int));
	order = malloc(sizeof(int) * 2 * (size_t)n);
	if (!start || !order) {
		free(start);
		free(order);
		return -1;
	}
	out = order + n;
	for (int k = 0; k < n; k++) {
		int l = t->leaf_rank[t->nodes[alloc[k]].leaf];
		if (!start[l]++)
			order[used++] = l;
	}
	for (int i = 0; i < used; i++) {
		int count = start[order[i]];
		start[order[i]] = pos;
		pos += count;
	}
	for (int k = 0; k < n; k++)
		out[start[t->leaf_rank[t->nodes[alloc[k]].leaf]]++] = alloc[k];
	memcpy(alloc, out, sizeof(int) * (size_t)n);
	free(start);
	free(order);
	return 0;
}

int tb_is_below(const struct tb_topology *t, int sw, int ancestor)
{
	for (int s = sw; s != TB_NO_PARENT; s = t->switches[s].parent)
		if (s == ancestor)
			return 1;
	return 0;
}

double tb_leaf_ratio(const struct tb_topology *t,
		     const struct tb_switch_counts *c, int sw,
		     enum tb_ratio_form form)
{
	return form == TB_RATIO_EQ1 ? tb_comm_ratio_eq1(t, c, sw) :
				      tb_comm_ratio(t, c, sw);
}

static int better_fit(const struct tb_topology *t,
		      const struct tb_switch_counts *c, int s, int best,
		      enum tb_fit_order order, enum tb_ratio_form form)
{
	if (t->switches[s].level != t->switches[best].level)
		return t->switches[s].level < t->switches[best].level;
	if (order != TB_FIT_TIGHTEST) {
		double rs = tb_leaf_ratio(t, c, s, form),
		       rb = tb_leaf_ratio(t, c, best, form);
		if (rs != rb)
			return order == TB_FIT_QUIETEST ? rs < rb : rs > rb;
	}
	return c->free_nodes[s] < c->free_nodes[best];
}

int tb_lowest_fitting_switch(const struct tb_topology *t,
			     const struct tb_switch_counts *c, int n,
			     enum tb_fit_order order)
{
	return tb_lowest_fitting_switch_by(t, c, n, order, TB_RATIO_SHARE);
}

int tb_lowest_fitting_switch_by(const struct tb_topology *t,
				const struct tb_switch_counts *c, int n,
				enum tb_fit_order order,
				enum tb_ratio_form form)
{
	int best = -1;

	for (int s = 0; s < t->n_switches; s++) {
		if (c->free_nodes[s] < n)
			continue;
		if (best < 0 || better_fit(t, c, s, best, order, form))
			best = s;
	}
	return best;
}

enum tb_status tb_candidate_leaves(const struct tb_topology *t,
				   const struct tb_occupancy *o, int nodes,
				   enum tb_fit_order order,
				   struct tb_leaf_key **keys, int *n)
{
	return tb_candidate_leaves_by(t, o, nodes, order, TB_RATIO_SHARE,
				      keys, n);
}

enum tb_status tb_candidate_leaves_by(const struct tb_topology *t,
				      const struct tb_occupancy *o, int nodes,
				      enum tb_fit_order order,
				      enum tb_ratio_form form,
				      struct tb_leaf_key **keys, int *n)
{
	struct tb_switch_counts c;
	int top;

	*keys = NULL;
	*n = 0;
	if (tb_counts_init(&c, t, o))
		return TB_ENOMEM;
	top = tb_lowest_fitting_switch_by(t, &c, nodes, order, form);
	if (top < 0) {
		tb_counts_fini(&c);
		return TB_ENOSPACE;
	}
	*keys = malloc(sizeof(**keys) * (size_t)t->n_leaves);
	if (!*keys) {
		tb_counts_fini(&c);
		return TB_ENOMEM;
	}
	for (int i = 0; i < t->n_leaves; i++) {
		int leaf = t->leaves[i];
		if (!c.free_nodes[leaf] || !tb_is_below(t, leaf, top))
			continue;
		(*keys)[*n].leaf = leaf;
		(*keys)[*n].free_nodes = c.free_nodes[leaf];
		(*keys)[*n].ratio = tb_leaf_ratio(t, &c, leaf, form);
		(*n)++;
	}
	tb_counts_fini(&c);
	return TB_OK;
}

enum tb_status tb_fill_leaves(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      struct tb_leaf_key *keys, int n,
			      int (*cmp)(const void *, const void *),
			      int nodes, int *alloc)
{
	struct tb_pick pk;
	int rem = nodes;

	if (tb_pick_init(&pk, t, o, alloc))
		return TB_ENOMEM;
	qsort(keys, (size_t)n, sizeof(*keys), cmp);
	for (int i = 0; i < n && rem > 0; i++)
		rem -= tb_pick_from_leaf(&pk, keys[i].leaf, rem);
	tb_pick_fini(&pk);
	return rem > 0 ? TB_ENOSPACE : TB_OK;
}
