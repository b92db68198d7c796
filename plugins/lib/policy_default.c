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
 *
 * Tree scans every leaf at every pick, and a large job picks most leaves:
 * O(leaves^2) comparisons, each walking up the tree (an 8,000-node job on
 * Cori with router leaves: 2,000 picks over 3,054 leaves). The same choice
 * is computed here from runs of sibling leaves, see choose_best().
 */
#include "pick.h"
#include "policy_registry.h"

#include <stdlib.h>

struct tree_state {
	const struct tb_topology *t;
	int *cnt;		/* free nodes below each switch, under top */
	/*
	 * Summed distance to the picked leaves, kept per switch above the
	 * leaves. Every candidate leaf carries the sum, over the leaves
	 * picked so far, of tree's switch-graph distance to each: the links
	 * between the two along the tree (switches_dist). Where every leaf
	 * is as deep as every other that is twice the level of their lowest
	 * common switch; a leaf hanging higher up (under the root, next to
	 * pods) is nearer than that. Neither is the papers' d of Eq. 4,
	 * which counts leaves as level 1. For a leaf x not yet picked and a
	 * picked leaf y != x, the path from x to y is the link to x's parent
	 * p and the path from p to y, so all the leaves under one parent
	 * carry the same sum, dist[p]. A picked leaf is never a candidate
	 * again (its count is 0).
	 */
	long *dist;
	int *order;		/* switches above the leaves, parents first */
	int n_order;
	int *hops;		/* per switch: links to the leaf just picked, -1
				 * if no path */
	/*
	 * Runs: maximal sequences of consecutive leaves (in leaf order) under
	 * one parent. Per run, the number of free nodes of its fullest leaf
	 * and the first such leaf (-1 and 0 when none is free).
	 */
	int n_runs;
	int *run_start;		/* index in t->leaves; run r ends where r+1
				 * starts */
	int *run_of;		/* leaf rank -> run */
	int *run_max;
	int *run_fullest;
};

/* Leaves under no common switch are far (tree walks the switch graph; on
 * a tree there is always one, as the topology has a single root). */
#define FAR_DISTANCE (1L << 20)

/* The summed distance of the leaves of a run. A leaf without a parent is
 * the whole tree, and the only candidate. */
static long run_dist(const struct tree_state *st, int r)
{
	int leaf = st->t->leaves[st->run_start[r]];
	int p = st->t->switches[leaf].parent;

	return p == TB_NO_PARENT ? 0 : st->dist[p];
}

/* Adds, for each switch p, the distance from a leaf under p to the leaf
 * just picked: one link up to p, then p's path to it. */
static void add_distances(struct tree_state *st, int picked)
{
	const struct tb_switch *sw = st->t->switches;
	int up = 0;

	for (int k = 0; k < st->n_order; k++)
		st->hops[st->order[k]] = -1;
	for (int s = sw[picked].parent; s != TB_NO_PARENT; s = sw[s].parent)
		st->hops[s] = ++up;
	for (int k = 0; k < st->n_order; k++) {
		int s = st->order[k], p = sw[s].parent;

		if (st->hops[s] < 0 && p != TB_NO_PARENT && st->hops[p] >= 0)
			st->hops[s] = st->hops[p] + 1;
		st->dist[s] += st->hops[s] < 0 ? FAR_DISTANCE : st->hops[s] + 1L;
	}
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

/* Tree's step for one candidate leaf i at distance d: returns whether i
 * replaces the best so far. */
static int replaces(const struct tree_state *st, int rem, int i, long d,
		    int best, long best_dist)
{
	int i_fit = 0, tcs;

	if (best == -1)
		return 1;
	if (d > best_dist)	/* neither condition below can hold */
		return 0;
	tcs = compare_switches(st, i, best, rem, &i_fit);
	return (d < best_dist && i_fit) || (d == best_dist && tcs > 0);
}

/* Ranks sibling leaves as compare_switches does: one that fits the
 * remainder above one that does not, the smaller of two that fit, the
 * larger of two that do not. */
static long long sibling_key(int cnt, int rem)
{
	return cnt >= rem ? (1LL << 40) - cnt : cnt;
}

/* The first leaf of run r with the highest sibling_key, -1 if none is free. */
static int run_champion(const struct tree_state *st, int r, int rem)
{
	int end = r + 1 < st->n_runs ? st->run_start[r + 1] : st->t->n_leaves;
	int champ = -1;
	long long key = -1;

	if (rem > st->run_max[r])	/* none fits: the fullest, first */
		return st->run_fullest[r];
	for (int k = st->run_start[r]; k < end; k++) {
		int leaf = st->t->leaves[k];

		if (st->cnt[leaf] && sibling_key(st->cnt[leaf], rem) > key) {
			champ = leaf;
			key = sibling_key(st->cnt[leaf], rem);
		}
	}
	return champ;
}

/* Recounts run r's fullest leaf (after one of its leaves was picked). */
static void run_update(struct tree_state *st, int r)
{
	int end = r + 1 < st->n_runs ? st->run_start[r + 1] : st->t->n_leaves;

	st->run_max[r] = 0;
	st->run_fullest[r] = -1;
	for (int k = st->run_start[r]; k < end; k++) {
		int leaf = st->t->leaves[k];

		if (st->cnt[leaf] > st->run_max[r]) {
			st->run_max[r] = st->cnt[leaf];
			st->run_fullest[r] = leaf;
		}
	}
}

/*
 * Tree's pass: every leaf with free nodes, in leaf order, through
 * replaces(). A run of sibling leaves R (same parent p, same distance)
 * gives the same result as its champion c alone (run_champion):
 *  - once the best is in R, the rest of R are compared as siblings
 *    (compare_switches stops at the leaves: parents coincide) at equal
 *    distance, so the best ends as the first highest-ranked leaf after it;
 *  - before, the best b is elsewhere. If b fits, only a fitting leaf can
 *    replace it (closer, or as close and smaller), and c fits if any does
 *    and is the smallest; if b does not fit, a fitting leaf always replaces
 *    it, and for leaves that do not fit compare_switches moves to p and b's
 *    parent at once, so all of R's answer alike (and as c's). Either way,
 *    some leaf of R replaces b exactly when c does, and c is at or after
 *    the first that does, so the pass ends R on c;
 *  - b a sibling from an earlier run under p: sibling comparisons only.
 * So the pass visits one leaf per run (on Cori with router leaves, 204
 * runs of up to 16 leaves instead of 3,054 leaves).
 */
static int choose_best(const struct tree_state *st, int rem)
{
	int best = -1;
	long best_dist = 0;

	for (int r = 0; r < st->n_runs; r++) {
		long d;
		int c;

		if (!st->run_max[r])
			continue;
		d = run_dist(st, r);
		if (best != -1 && d > best_dist)
			continue;
		c = run_champion(st, r, rem);
		if (replaces(st, rem, c, d, best, best_dist)) {
			best = c;
			best_dist = d;
		}
	}
	return best;
}

/* Runs of sibling leaves and the switches above leaves, parents first
 * (levels rise strictly towards the root). */
static void build_runs(struct tree_state *st)
{
	const struct tb_topology *t = st->t;
	int prev = TB_NO_PARENT - 1;

	st->n_runs = 0;
	for (int k = 0; k < t->n_leaves; k++) {
		int p = t->switches[t->leaves[k]].parent;

		if (k == 0 || p != prev || p == TB_NO_PARENT)
			st->run_start[st->n_runs++] = k;
		st->run_of[k] = st->n_runs - 1;
		prev = p;
	}
	for (int r = 0; r < st->n_runs; r++)
		run_update(st, r);
	st->n_order = 0;
	for (int lvl = t->n_levels - 1; lvl >= 1; lvl--)
		for (int s = 0; s < t->n_switches; s++)
			if (t->switches[s].level == lvl)
				st->order[st->n_order++] = s;
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
				 const struct tb_job *job,
				 const struct tb_options *opts, int *alloc)
{
	struct tb_switch_counts c;
	struct tree_state st = { .t = t };
	struct tb_pick pk;
	enum tb_status rc = TB_ENOMEM;
	int top, rem = job->nodes;
	size_t ns = (size_t)t->n_switches;
	size_t nl = (size_t)(t->n_leaves ? t->n_leaves : 1);

	(void)opts;		/* tree has no readings */
	if (tb_counts_init(&c, t, o))
		return TB_ENOMEM;
	top = top_switch(t, &c, job->nodes);
	if (top < 0) {
		tb_counts_fini(&c);
		return TB_ENOSPACE;
	}
	st.cnt = calloc(ns, sizeof(int));
	st.dist = calloc(ns, sizeof(long));
	st.order = malloc(ns * sizeof(int));
	st.hops = malloc(ns * sizeof(int));
	st.run_start = malloc(nl * sizeof(int));
	st.run_of = malloc(nl * sizeof(int));
	st.run_max = malloc(nl * sizeof(int));
	st.run_fullest = malloc(nl * sizeof(int));
	if (!st.cnt || !st.dist || !st.order || !st.hops || !st.run_start ||
	    !st.run_of || !st.run_max || !st.run_fullest ||
	    tb_pick_init(&pk, t, o, alloc))
		goto out;
	/* Counts restricted to the top switch's nodes: its leaves' free
	 * nodes (the node tallies' own, c), summed up the tree. */
	for (int i = 0; i < t->n_leaves; i++) {
		int leaf = t->leaves[i];

		if (tb_is_below(t, leaf, top))
			st.cnt[leaf] = c.free_nodes[leaf];
	}
	tb_counts_propagate(t, st.cnt);
	build_runs(&st);
	while (rem > 0) {
		int best = choose_best(&st, rem), got;

		if (best == -1)
			break;
		add_distances(&st, best);
		got = tb_pick_from_leaf(&pk, best, rem);
		rem -= got;
		/* The whole leaf counts as used, as in Slurm. */
		got = st.cnt[best];
		for (int s = best; s != TB_NO_PARENT; s = t->switches[s].parent)
			st.cnt[s] = st.cnt[s] > got ? st.cnt[s] - got : 0;
		st.cnt[best] = 0;
		run_update(&st, st.run_of[t->leaf_rank[best]]);
	}
	rc = rem > 0 ? TB_ENOSPACE : TB_OK;
	tb_pick_fini(&pk);
out:
	free(st.cnt);
	free(st.dist);
	free(st.order);
	free(st.hops);
	free(st.run_start);
	free(st.run_of);
	free(st.run_max);
	free(st.run_fullest);
	tb_counts_fini(&c);
	return rc;
}
