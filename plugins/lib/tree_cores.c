/*
 * Slurm 24.11's own choice of cores for a job of one-CPU tasks (sbatch -n R
 * in the shared partition `cores`, select/cons_tres with CR_Core, then
 * topology/tree's _eval_nodes_topo), modelled from reading
 * src/plugins/topology/tree/eval_nodes_tree.c and
 * src/plugins/topology/common/eval_nodes.c (eval_nodes_cpus_to_use) of
 * 24.11.5; no code of theirs. It is our model of Slurm's choice, checked by
 * hand-worked cases (tests/c/test_place_cores.c, test_sim_cores.c), not
 * against a running Slurm at core level. Nodes of equal weight, no
 * required nodes, no GRES, one thread per core, -n R without -N (so the job
 * needs one node and R CPUs):
 *
 *  - a node is offered with its free cores (avail_cpus); one with none is
 *    not offered. Each switch counts the offered nodes and their free cores
 *    below it;
 *  - the top switch is the highest-level switch with at least one offered
 *    node and R free cores (the last in topology.conf order on a tie); only
 *    the leaves under it are candidates;
 *  - leaves are picked one at a time. A candidate "fits" when it has the
 *    nodes still needed (1, then none) and the CPUs still needed. The first
 *    candidate with an offered node is the best so far; a later one replaces
 *    it when it is closer (the summed switch-graph distance to the leaves
 *    picked, 0 before the first pick) and fits, or equally close and better
 *    by the comparison: of two that fit, fewer offered nodes wins (not fewer
 *    cores: tree compares node counts); of two that do not, both move up to
 *    their parents until the parents coincide, then more offered nodes wins,
 *    then the lower level; the fit found last in that walk is the one the
 *    distance test uses, as in tree's code;
 *  - a picked leaf gives its offered nodes in index order, each all its free
 *    cores, the last only the CPUs still needed (eval_nodes_cpus_to_use);
 *    the leaf's node count is then taken from it and every switch above
 *    (its CPU counts are not: tree leaves them as they were).
 *
 * Where Slurm may differ: node weights, memory per CPU (a node short of
 * memory offers fewer CPUs), cons_tres's choice of which cores of a node
 * (no matter here: a node's cores are one hop apart in the model), and
 * anything the select plugin does before tree (GRES, specialised cores).
 */
#include "place_cores.h"

#include <stdlib.h>
#include <string.h>

struct tc {
	const struct tb_topology *t;
	int *nodes;		/* offered nodes below each switch */
	long *cpus;		/* their free cores (not decremented) */
	long *dist;		/* summed distance to the picked leaves */
	int *up;		/* scratch: links from the picked leaf, -1 */
};

/* The fit comparison of two leaves (1: i better, -1: j, 0: neither), and
 * whether i (or the ancestor it was compared as) fits. */
static int compare(const struct tc *c, int i, int j, int rem_nodes,
		   long rem_cpus, int *i_fit_out)
{
	const struct tb_switch *sw = c->t->switches;

	for (;;) {
		int i_fit = c->nodes[i] >= rem_nodes && c->cpus[i] >= rem_cpus;
		int j_fit = c->nodes[j] >= rem_nodes && c->cpus[j] >= rem_cpus;

		*i_fit_out = i_fit;
		if (i_fit && j_fit) {
			if (c->nodes[i] != c->nodes[j])
				return c->nodes[i] < c->nodes[j] ? 1 : -1;
			break;
		}
		if (i_fit)
			return 1;
		if (j_fit)
			return -1;
		if (sw[i].parent != TB_NO_PARENT &&
		    sw[j].parent != TB_NO_PARENT &&
		    sw[i].parent != sw[j].parent) {
			i = sw[i].parent;
			j = sw[j].parent;
			continue;
		}
		break;
	}
	if (c->nodes[i] != c->nodes[j])
		return c->nodes[i] > c->nodes[j] ? 1 : -1;
	if (sw[i].level != sw[j].level)
		return sw[i].level < sw[j].level ? 1 : -1;
	return 0;
}

/* Adds each leaf's switch-graph distance (links along the tree) to the
 * leaf just picked. */
static void add_distances(struct tc *c, int picked)
{
	const struct tb_topology *t = c->t;
	int hops = 0;

	for (int s = 0; s < t->n_switches; s++)
		c->up[s] = -1;
	for (int s = picked; s != TB_NO_PARENT; s = t->switches[s].parent)
		c->up[s] = hops++;
	for (int k = 0; k < t->n_leaves; k++) {
		int leaf = t->leaves[k], s = leaf, d = 0;

		while (s != TB_NO_PARENT && c->up[s] < 0) {
			s = t->switches[s].parent;
			d++;
		}
		/* Leaves under no common switch: far (one tree has one). */
		c->dist[leaf] += s == TB_NO_PARENT ? (1L << 20) : d + c->up[s];
	}
}

static int below(const struct tb_topology *t, int s, int top)
{
	for (; s != TB_NO_PARENT; s = t->switches[s].parent)
		if (s == top)
			return 1;
	return 0;
}

enum tb_status tb_tree_cores(const struct tb_topology *t,
			     const struct tb_occupancy *o, int ranks,
			     int *slot_node)
{
	struct tc c = { t, NULL, NULL, NULL, NULL };
	int *take = NULL, top = -1, rem_nodes = 1, n = 0;
	long rem_cpus = ranks;
	enum tb_status rc = TB_ENOMEM;

	if (ranks < 1)
		return TB_EINVAL;
	c.nodes = calloc((size_t)t->n_switches + 1, sizeof(int));
	c.cpus = calloc((size_t)t->n_switches + 1, sizeof(long));
	c.dist = calloc((size_t)t->n_switches + 1, sizeof(long));
	c.up = calloc((size_t)t->n_switches + 1, sizeof(int));
	take = calloc((size_t)t->n_nodes + 1, sizeof(int));
	if (!c.nodes || !c.cpus || !c.dist || !c.up || !take)
		goto out;
	for (int v = 0; v < t->n_nodes; v++) {
		int f = tb_free_cores(t, o, v);

		if (f <= 0)
			continue;
		for (int s = t->nodes[v].leaf; s != TB_NO_PARENT;
		     s = t->switches[s].parent) {
			c.nodes[s]++;
			c.cpus[s] += f;
		}
	}
	for (int s = 0; s < t->n_switches; s++)
		if (c.nodes[s] >= 1 && c.cpus[s] >= rem_cpus &&
		    (top < 0 || t->switches[s].level >= t->switches[top].level))
			top = s;
	if (top < 0) {
		rc = TB_ENOSPACE;
		goto out;
	}
	/* Only the top switch's nodes count: the leaves elsewhere have
	 * none, the switches above it its own. */
	for (int k = 0; k < t->n_leaves; k++)
		if (!below(t, t->leaves[k], top))
			c.nodes[t->leaves[k]] = 0;
	for (int s = t->switches[top].parent; s != TB_NO_PARENT;
	     s = t->switches[s].parent)
		c.nodes[s] = c.nodes[top];
	while (rem_cpus > 0) {
		int best = -1;

		for (int k = 0; k < t->n_leaves; k++) {
			int i = t->leaves[k], i_fit, cmp;

			if (!c.nodes[i])
				continue;
			if (best < 0) {
				best = i;
				continue;
			}
			cmp = compare(&c, i, best, rem_nodes, rem_cpus, &i_fit);
			if ((c.dist[i] < c.dist[best] && i_fit) ||
			    (c.dist[i] == c.dist[best] && cmp > 0))
				best = i;
		}
		if (best < 0)
			break;
		add_distances(&c, best);
		for (int k = 0; k < t->switches[best].n_nodes && rem_cpus > 0;
		     k++) {
			int v = t->switches[best].nodes[k];
			long f = tb_free_cores(t, o, v);

			if (f <= 0 || take[v])
				continue;
			take[v] = (int)(f < rem_cpus ? f : rem_cpus);
			rem_cpus -= take[v];
			rem_nodes--;
		}
		for (int s = t->switches[best].parent, g = c.nodes[best];
		     s != TB_NO_PARENT; s = t->switches[s].parent)
			c.nodes[s] -= g;
		c.nodes[best] = 0;
	}
	if (rem_cpus > 0) {
		rc = TB_ENOSPACE;
		goto out;
	}
	/* Ranks in blocks over the nodes in index order (topology/commtree
	 * reads tree's node_map in bit order). */
	for (int v = 0; v < t->n_nodes; v++)
		for (int k = 0; k < take[v]; k++)
			slot_node[n++] = v;
	rc = TB_OK;
out:
	free(c.nodes);
	free(c.cpus);
	free(c.dist);
	free(c.up);
	free(take);
	return rc;
}
