/* A scenario's machine, occupancy, running jobs and eval allocation from
 * its lines, once every line is read (scenario_internal.h). */
#include <stdio.h>
#include <stdlib.h>

#include "scenario_internal.h"

/* Running jobs onto the occupancy, once the leaf lines have set it. A job
 * that has ended (end= at or before now) holds no node; it still counts in
 * NeDD's traffic window. */
static int build_running(struct builder *b)
{
	struct tb_occupancy *o = b->s->occ;
	int live = 0;

	tb_scn_default_now(b);
	for (int j = 0; j < b->n_running; j++) {
		struct running_line *r = &b->running[j];

		b->line = r->line;
		if (r->start > b->s->now)
			return tb_scn_fail(b,
					   "running: start=%g is after now (%g)",
					   r->start, b->s->now);
		if (r->has_end && r->end > b->s->now)
			return tb_scn_fail(b, "running: end=%g is after now (%g): leave end out for a job still running",
					   r->end, b->s->now);
		for (int k = 0; k < r->n; k++)
			if (r->nodes[k] >= o->n_nodes)
				return tb_scn_fail(b, "running: node %d, the machine has %d",
						   r->nodes[k], o->n_nodes);
		live += !r->has_end;
	}
	if (!live)
		return 0;
	o->job = malloc(sizeof(int) * (size_t)o->n_nodes);
	if (!o->job)
		return tb_scn_fail(b, "out of memory");
	for (int k = 0; k < o->n_nodes; k++)
		o->job[k] = -1;
	o->n_jobs = 0;
	for (int j = 0; j < b->n_running; j++) {
		struct running_line *r = &b->running[j];
		int id;

		if (r->has_end)
			continue;
		id = o->n_jobs++;
		b->line = r->line;
		for (int k = 0; k < r->n; k++) {
			int node = r->nodes[k];

			if (o->job[node] >= 0)
				return tb_scn_fail(b, "running: node %d is in two running jobs",
						   node);
			if (o->state[node] != TB_NODE_FREE)
				return tb_scn_fail(b, "running: node %d is already busy by its leaf line",
						   node);
			o->job[node] = id;
			o->state[node] = r->comm ? TB_NODE_BUSY_COMM : TB_NODE_BUSY;
		}
	}
	return 0;
}

/* Nodes, occupancy and the eval allocation, once every line is read. */
int tb_scn_build(struct builder *b)
{
	struct tb_scenario *s = b->s;
	int node = 0, *taken_in_leaf;
	char name[96];

	if (b->torus[0]) {
		if (tb_scn_build_torus_nodes(b))
			return -1;
		goto nodes_built;
	}
	for (int i = 0; i < b->n_leaves; i++) {
		int leaf = tb_switch_find(s->topo, b->leaves[i].name);
		for (int k = 0; k < b->leaves[i].nodes; k++) {
			struct tb_node *nd;

			snprintf(name, sizeof(name), "%s-%d", b->leaves[i].name, k);
			if (tb_topology_add_node(s->topo, name, leaf,
						 b->cores ? b->cores : 1))
				return tb_scn_fail(b, "out of memory");
			nd = &s->topo->nodes[s->topo->n_nodes - 1];
			if (b->leaves[i].router) {
				nd->router = i;
				nd->chassis = b->leaves[i].chassis;
				nd->group = b->leaves[i].group;
			}
		}
	}
	if (!b->n_leaves)
		return tb_scn_fail(b, "no 'leaf' or 'router' line");
	if (b->n_router_lines && b->n_router_lines != b->n_leaves)
		return tb_scn_fail(b, "'router' and 'leaf' lines do not mix");
	s->has_routers = b->n_router_lines > 0;
	/* Parents named only in 'parent' become switches of their own. */
	for (int i = 0; i < s->topo->n_switches; i++) {
		const char *p = s->topo->switches[i].parent_name;
		if (p && tb_switch_find(s->topo, p) < 0 &&
		    tb_topology_add_switch(s->topo, p, NULL))
			return tb_scn_fail(b, "out of memory");
	}
	if (tb_topology_finish(s->topo, b->err, b->errlen)) {
		char why[200];
		snprintf(why, sizeof(why), "%s", b->err);
		return tb_scn_fail(b, "%s", why);
	}
nodes_built:
	s->occ = tb_occupancy_new(s->topo->n_nodes);
	if (!s->occ)
		return tb_scn_fail(b, "out of memory");
	for (int i = 0; i < b->n_leaves; i++) {
		for (int k = 0; k < b->leaves[i].nodes; k++, node++) {
			if (k < b->leaves[i].busy_comm)
				s->occ->state[node] = TB_NODE_BUSY_COMM;
			else if (k < b->leaves[i].busy)
				s->occ->state[node] = TB_NODE_BUSY;
		}
	}
	if (build_running(b) || tb_scn_build_torus_state(b) ||
	    tb_scn_build_observations(b) || tb_scn_build_cores(b))
		return -1;
	if (!b->eval)
		return 0;
	taken_in_leaf = calloc((size_t)b->n_leaves, sizeof(int));
	s->eval_alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	if (!taken_in_leaf || !s->eval_alloc) {
		free(taken_in_leaf);
		return tb_scn_fail(b, "out of memory");
	}
	for (int i = 0; i < b->n_eval_items; i++) {
		struct eval_item *e = &b->eval[i];
		struct leaf_line *l = &b->leaves[e->leaf];
		int first = 0;

		for (int k = 0; k < e->leaf; k++)
			first += b->leaves[k].nodes;
		if (taken_in_leaf[e->leaf] + e->count > l->nodes - l->busy) {
			int left = l->nodes - l->busy - taken_in_leaf[e->leaf];
			b->line = e->line;
			free(taken_in_leaf);
			return tb_scn_fail(b, "eval: leaf %s has %d free nodes left", l->name,
					   left);
		}
		for (int k = 0; k < e->count; k++)
			s->eval_alloc[s->n_eval++] =
				first + l->busy + taken_in_leaf[e->leaf] + k;
		taken_in_leaf[e->leaf] += e->count;
	}
	free(taken_in_leaf);
	if (s->has_job && s->n_eval != s->job.nodes) {
		b->line = b->eval[0].line;
		return tb_scn_fail(b,
				   "eval gives %d nodes, the job asks for %d",
				   s->n_eval, s->job.nodes);
	}
	s->job.nodes = s->n_eval;
	return 0;
}
