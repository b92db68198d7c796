#include "occupancy.h"

#include <stdlib.h>
#include <string.h>

struct tb_occupancy *tb_occupancy_new(int n_nodes)
{
	struct tb_occupancy *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->n_nodes = n_nodes;
	o->state = calloc((size_t)(n_nodes > 0 ? n_nodes : 1), 1);
	if (!o->state) {
		free(o);
		return NULL;
	}
	return o;
}

void tb_occupancy_free(struct tb_occupancy *o)
{
	if (!o)
		return;
	free(o->state);
	free(o->failure_prob);
	free(o->router_traffic);
	free(o->router_stall);
	free(o->router_routed);
	free(o->job);
	free(o->free_cores);
	free(o);
}

int tb_free_cores(const struct tb_topology *t, const struct tb_occupancy *o,
		  int node)
{
	int c = t->nodes[node].cores;

	if (o->state[node] == TB_NODE_DOWN)
		return 0;
	if (!o->free_cores)
		return o->state[node] == TB_NODE_FREE ? c : 0;
	if (o->free_cores[node] < 0)
		return 0;
	return o->free_cores[node] < c ? o->free_cores[node] : c;
}

int tb_counts_init(struct tb_switch_counts *c, const struct tb_topology *t,
		   const struct tb_occupancy *o)
{
	c->n_switches = t->n_switches;
	c->free_nodes = calloc((size_t)t->n_switches, sizeof(int));
	c->comm_nodes = calloc((size_t)t->n_switches, sizeof(int));
	c->busy_nodes = calloc((size_t)t->n_switches, sizeof(int));
	if (!c->free_nodes || !c->comm_nodes || !c->busy_nodes) {
		tb_counts_fini(c);
		return -1;
	}
	if (o->counts && o->counts->n_switches == t->n_switches) {
		size_t b = sizeof(int) * (size_t)t->n_switches;

		memcpy(c->free_nodes, o->counts->free_nodes, b);
		memcpy(c->comm_nodes, o->counts->comm_nodes, b);
		memcpy(c->busy_nodes, o->counts->busy_nodes, b);
		return 0;
	}
	/* Each node once, into its leaf; then each switch into its parent,
	 * lower levels first (a parent's level is above its children's,
	 * topology.c's assign_levels): the same tallies as walking every
	 * node's path to the root, in O(nodes + levels x switches) instead of
	 * O(nodes x levels), as the twin calls this ~10 times a job. */
	for (int n = 0; n < t->n_nodes && n < o->n_nodes; n++) {
		int st = o->state[n], leaf = t->nodes[n].leaf;

		if (st == TB_NODE_DOWN || leaf == TB_NO_PARENT)
			continue;
		if (st == TB_NODE_FREE) {
			c->free_nodes[leaf]++;
			continue;
		}
		c->busy_nodes[leaf]++;
		if (st == TB_NODE_BUSY_COMM)
			c->comm_nodes[leaf]++;
	}
	tb_counts_propagate(t, c->free_nodes);
	tb_counts_propagate(t, c->busy_nodes);
	tb_counts_propagate(t, c->comm_nodes);
	return 0;
}

void tb_counts_propagate(const struct tb_topology *t, int *v)
{
	for (int lvl = 0; lvl + 1 < t->n_levels; lvl++)
		for (int s = 0; s < t->n_switches; s++) {
			int p = t->switches[s].parent;

			if (t->switches[s].level == lvl && p != TB_NO_PARENT)
				v[p] += v[s];
		}
}

void tb_counts_fini(struct tb_switch_counts *c)
{
	free(c->free_nodes);
	free(c->comm_nodes);
	free(c->busy_nodes);
	c->free_nodes = c->comm_nodes = c->busy_nodes = NULL;
}

double tb_comm_ratio(const struct tb_topology *t,
		     const struct tb_switch_counts *c, int sw)
{
	int n = t->switches[sw].n_nodes;

	return n ? (double)c->comm_nodes[sw] / n : 0.0;
}

double tb_comm_ratio_eq1(const struct tb_topology *t,
			 const struct tb_switch_counts *c, int sw)
{
	int n = t->switches[sw].n_nodes, busy = c->busy_nodes[sw];

	if (!n)
		return 0.0;
	return (busy ? (double)c->comm_nodes[sw] / busy : 0.0) +
	       (double)busy / n;
}
