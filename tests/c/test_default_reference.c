/*
 * The default model (policy_default.c) against a leaf-by-leaf reference: the
 * model as it was written first, every leaf through the comparison at every
 * pick and distances by walking the tree, on random trees of uneven depth
 * whose sibling leaves are declared together or interleaved, with random
 * free nodes and job sizes. The nodes and their order must be the same.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "pick.h"
#include "policy_registry.h"
#include "tests.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static int rnd(int n)
{
	return (int)tb_bench_rnd(&rng, (unsigned)n);
}

/* --- the reference ------------------------------------------------------ */

struct ref_state {
	const struct tb_topology *t;
	int *cnt;
	long *dist;
};

/* Links between two switches along the tree (tree's switches_dist). */
static int ref_switch_distance(const struct tb_topology *t, int x, int y)
{
	int d = 0;

	while (x != y) {
		if (x == TB_NO_PARENT || y == TB_NO_PARENT)
			return 1 << 20;
		if (t->switches[x].level <= t->switches[y].level)
			x = t->switches[x].parent;
		else
			y = t->switches[y].parent;
		d++;
	}
	return d;
}

static int ref_compare(const struct ref_state *st, int i, int j, int rem,
		       int *i_fit_out)
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

static void ref_choose(const struct ref_state *st, int rem, int i, int *best)
{
	int i_fit = 0, tcs;

	if (*best == -1 || !st->cnt[i]) {
		if (st->cnt[i])
			*best = i;
		return;
	}
	tcs = ref_compare(st, i, *best, rem, &i_fit);
	if ((st->dist[i] < st->dist[*best] && i_fit) ||
	    (st->dist[i] == st->dist[*best] && tcs > 0))
		*best = i;
}

static enum tb_status ref_default(const struct tb_topology *t,
				  const struct tb_occupancy *o, int nodes,
				  int *alloc)
{
	struct tb_switch_counts c;
	struct ref_state st = { t, NULL, NULL };
	struct tb_pick pk;
	int top = -1, rem = nodes;

	if (tb_counts_init(&c, t, o))
		return TB_ENOMEM;
	for (int s = 0; s < t->n_switches; s++)
		if (c.free_nodes[s] >= nodes &&
		    (top == -1 || t->switches[s].level >= t->switches[top].level))
			top = s;
	tb_counts_fini(&c);
	if (top < 0)
		return TB_ENOSPACE;
	st.cnt = calloc((size_t)t->n_switches, sizeof(int));
	st.dist = calloc((size_t)t->n_switches, sizeof(long));
	if (!st.cnt || !st.dist || tb_pick_init(&pk, t, o, alloc))
		abort();
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
			ref_choose(&st, rem, t->leaves[i], &best);
		if (best == -1)
			break;
		for (int i = 0; i < t->n_leaves; i++)
			st.dist[t->leaves[i]] +=
				ref_switch_distance(t, best, t->leaves[i]);
		rem -= tb_pick_from_leaf(&pk, best, rem);
		got = st.cnt[best];
		for (int s = best; s != TB_NO_PARENT; s = t->switches[s].parent)
			st.cnt[s] = st.cnt[s] > got ? st.cnt[s] - got : 0;
		st.cnt[best] = 0;
	}
	tb_pick_fini(&pk);
	free(st.cnt);
	free(st.dist);
	return rem > 0 ? TB_ENOSPACE : TB_OK;
}

/* --- random trees ------------------------------------------------------- */

#define MAX_SW 400

/*
 * Switch k's parent is parent[k] (-1 for the root, switch 0). A switch
 * below max_depth gets 1-5 child switches, or none (a leaf) one time in
 * four below the root, so leaves sit at different depths.
 */
static int random_shape(int *parent, int max_depth)
{
	int depth[MAX_SW], n = 1;

	parent[0] = -1;
	depth[0] = 0;
	for (int k = 0; k < n; k++) {
		int kids;

		if (depth[k] == max_depth || (k && !rnd(4)))
			continue;
		kids = 1 + rnd(5);
		for (int c = 0; c < kids && n < MAX_SW; c++) {
			parent[n] = k;
			depth[n++] = depth[k] + 1;
		}
	}
	return n;
}

static struct tb_topology *random_tree(int interleave)
{
	struct tb_topology *t = tb_topology_new();
	int parent[MAX_SW], order[MAX_SW], is_parent[MAX_SW] = { 0 };
	int leaves[MAX_SW], n_leaves = 0, nodes = 0;
	int n = random_shape(parent, rnd(5));
	char name[32], pname[32];

	/* Declared breadth first (siblings together) or shuffled. */
	for (int k = 0; k < n; k++)
		order[k] = k;
	for (int k = n - 1; interleave && k > 0; k--) {
		int j = rnd(k + 1), x = order[k];

		order[k] = order[j];
		order[j] = x;
	}
	for (int k = 0; k < n; k++) {
		int s = order[k];

		snprintf(name, sizeof(name), "s%d", s);
		snprintf(pname, sizeof(pname), "s%d", parent[s]);
		if (tb_topology_add_switch(t, name, parent[s] < 0 ? NULL : pname))
			abort();
		if (parent[s] >= 0)
			is_parent[parent[s]] = 1;
	}
	for (int k = 0; k < n; k++)
		if (!is_parent[order[k]])
			leaves[n_leaves++] = k;	/* switch index = position */
	/* 0-6 nodes per leaf, handed out in random leaf order. */
	for (int round = 0; round < 6 * n_leaves; round++) {
		int leaf = leaves[rnd(n_leaves)];

		if (rnd(7) == 0 && round)
			continue;
		snprintf(name, sizeof(name), "n%d", nodes++);
		if (tb_topology_add_node(t, name, leaf, 4))
			abort();
	}
	if (tb_topology_finish(t, name, sizeof(name)))
		abort();
	return t;
}

void test_default_matches_leaf_by_leaf(void)
{
	struct tb_options paper = tb_options_default();
	int cases = 0, placed = 0;

	for (int round = 0; round < 600; round++) {
		struct tb_topology *t = random_tree(round % 2);
		struct tb_occupancy *o = tb_occupancy_new(t->n_nodes);
		int *got = malloc(sizeof(int) * (size_t)t->n_nodes);
		int *want = malloc(sizeof(int) * (size_t)t->n_nodes);
		int busy = rnd(100), free_nodes = 0;

		if (!o || !got || !want)
			abort();
		for (int k = 0; k < t->n_nodes; k++) {
			if (rnd(100) < busy)
				o->state[k] = rnd(2) ? TB_NODE_BUSY_COMM : TB_NODE_BUSY;
			else
				free_nodes++;
		}
		for (int q = 0; q < 8; q++) {
			struct tb_job job = { .nodes = 1, .comm = 1,
					      .pattern = TB_PATTERN_RD,
					      .comm_fraction = 0.5 };
			enum tb_status rc, ref;

			job.nodes = q == 0 ? (free_nodes ? free_nodes : 1) :
				    1 + rnd(free_nodes + 2);
			rc = tb_policy_default(t, o, &job, &paper, got);
			ref = ref_default(t, o, job.nodes, want);
			cases++;
			CHECK_EQ(rc, ref);
			if (rc != TB_OK || ref != TB_OK)
				continue;
			placed++;
			for (int k = 0; k < job.nodes; k++) {
				if (got[k] == want[k])
					continue;
				fprintf(stderr, "  round %d, %d nodes: node %d is %d, "
					"expected %d\n", round, job.nodes, k,
					got[k], want[k]);
				tb_check_failures++;
				break;
			}
		}
		free(got);
		free(want);
		tb_occupancy_free(o);
		tb_topology_free(t);
	}
	/* Most cases must place a job, or the comparison says little. */
	CHECK(placed > cases / 2);
}
