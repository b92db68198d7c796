/* TOFA's scenario lines (torus, busy, risky, pf, edge; scenario.h) and
 * their build steps: the torus' nodes, then busy nodes, outage
 * probabilities and the job's matrix (scenario_internal.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "isolation.h"
#include "scenario_internal.h"
#include "textfile.h"

/* torus X Y Z */
int tb_scn_torus_line(struct builder *b, char **w, int n)
{
	if (b->torus[0])
		return tb_scn_fail(b, "a second 'torus' line");
	if (n != 4)
		return tb_scn_fail(b, "expected 'torus <X> <Y> <Z>'");
	for (int d = 0; d < 3; d++)
		if (tb_parse_int(w[d + 1], 1, 4096, &b->torus[d]))
			return tb_scn_fail(b, "torus: '%s' is not a number from 1 to 4096",
					   w[d + 1]);
	if ((long)b->torus[0] * b->torus[1] * b->torus[2] > TB_SCENARIO_MAX_NODES)
		return tb_scn_fail(b, "more than %d nodes in all", TB_SCENARIO_MAX_NODES);
	b->torus_line = b->line;
	return 0;
}

/* busy <ids>, risky <ids>: node indexes, checked in tb_scn_build(). */
int tb_scn_id_list_line(struct builder *b, char **w, int n, int risky)
{
	int *ids, count;

	if (n != 2)
		return tb_scn_fail(b,
				   "expected '%s <node ids like 4,5,11>'", w[0]);
	if (tb_parse_index_list(w[1], TB_SCENARIO_MAX_NODES, &ids, &count))
		return tb_scn_fail(b, "%s: '%s': expected node ids like 0-3,9", w[0], w[1]);
	for (int k = 0; k < count; k++) {
		if (risky) {
			struct pf_item *np = realloc(b->pf, sizeof(*np) *
						     (size_t)(b->n_pf + 1));
			if (!np) {
				free(ids);
				return tb_scn_fail(b, "out of memory");
			}
			b->pf = np;
			/* L705: the paper's outage probability, 2 %. */
			b->pf[b->n_pf++] = (struct pf_item){ ids[k], 0.02, b->line };
		} else {
			int *nb = realloc(b->busy, sizeof(int) * (size_t)(b->n_busy + 1));
			int *nl = nb ? realloc(b->busy_line, sizeof(int) *
					       (size_t)(b->n_busy + 1)) : NULL;
			if (nb)
				b->busy = nb;
			if (!nb || !nl) {
				free(ids);
				return tb_scn_fail(b, "out of memory");
			}
			b->busy_line = nl;
			b->busy[b->n_busy] = ids[k];
			b->busy_line[b->n_busy++] = b->line;
		}
	}
	free(ids);
	return 0;
}

/* pf <id> <probability> */
int tb_scn_pf_line(struct builder *b, char **w, int n)
{
	struct pf_item *np;
	char *end;
	double v;
	int node;

	if (n != 3)
		return tb_scn_fail(b, "expected 'pf <node id> <probability>'");
	if (tb_parse_int(w[1], 0, TB_SCENARIO_MAX_NODES - 1, &node))
		return tb_scn_fail(b, "pf: '%s' is not a node id", w[1]);
	errno = 0;
	v = strtod(w[2], &end);
	if (errno || *end || end == w[2] || !isfinite(v) || v < 0 || v > 1)
		return tb_scn_fail(b, "pf: '%s': expected a probability from 0 to 1", w[2]);
	np = realloc(b->pf, sizeof(*np) * (size_t)(b->n_pf + 1));
	if (!np)
		return tb_scn_fail(b, "out of memory");
	b->pf = np;
	b->pf[b->n_pf++] = (struct pf_item){ node, v, b->line };
	return 0;
}

/* edge <process> <process> <weight> */
int tb_scn_edge_line(struct builder *b, char **w, int n)
{
	int from, to;
	char *end;
	double v;

	if (n != 4)
		return tb_scn_fail(b,
				   "expected 'edge <process> <process> <weight>'");
	if (tb_parse_int(w[1], 0, TB_SCENARIO_MAX_NODES - 1, &from) ||
	    tb_parse_int(w[2], 0, TB_SCENARIO_MAX_NODES - 1, &to))
		return tb_scn_fail(b, "edge: '%s %s': expected two process numbers", w[1], w[2]);
	if (from == to)
		return tb_scn_fail(b, "edge: a process with itself (%d)", from);
	errno = 0;
	v = strtod(w[3], &end);
	if (errno || *end || end == w[3] || !isfinite(v) || v <= 0)
		return tb_scn_fail(b, "edge: weight '%s': expected a number above 0", w[3]);
	return tb_scn_add_entry(b, &b->edges, from, to, v);
}

/* The torus' nodes under one leaf switch, coordinates from the id. */
int tb_scn_build_torus_nodes(struct builder *b)
{
	struct tb_topology *t = b->s->topo;
	int X = b->torus[0], Y = b->torus[1], Z = b->torus[2];
	char name[32], why[200];

	b->line = b->torus_line;
	if (t->n_switches)
		return tb_scn_fail(b, "a 'torus' line and 'leaf' or 'switch' lines: one machine or the other");
	if (tb_topology_add_switch(t, "torus", NULL))
		return tb_scn_fail(b, "out of memory");
	for (int id = 0; id < X * Y * Z; id++) {
		struct tb_node *nd;

		snprintf(name, sizeof(name), "n%d", id);
		if (tb_topology_add_node(t, name, 0, 1))
			return tb_scn_fail(b, "out of memory");
		nd = &t->nodes[id];
		nd->coord[0] = id % X;
		nd->coord[1] = id / X % Y;
		nd->coord[2] = id / (X * Y);
	}
	if (tb_topology_finish(t, why, sizeof(why)) ||
	    tb_topology_set_torus(t, X, Y, Z, why, sizeof(why)))
		return tb_scn_fail(b, "%s", why);
	return 0;
}

/* busy, pf and edge lines onto the built machine and job. */
int tb_scn_build_torus_state(struct builder *b)
{
	struct tb_scenario *s = b->s;
	struct tb_occupancy *o = s->occ;

	for (int k = 0; k < b->n_busy; k++) {
		b->line = b->busy_line[k];
		if (b->busy[k] >= o->n_nodes)
			return tb_scn_fail(b,
					   "busy: node %d, the machine has %d",
					   b->busy[k], o->n_nodes);
		if (o->state[b->busy[k]] != TB_NODE_FREE)
			return tb_scn_fail(b, "busy: node %d is busy already", b->busy[k]);
		o->state[b->busy[k]] = TB_NODE_BUSY;
	}
	if (b->n_pf) {
		o->failure_prob = calloc((size_t)o->n_nodes, sizeof(double));
		if (!o->failure_prob)
			return tb_scn_fail(b, "out of memory");
	}
	for (int k = 0; k < b->n_pf; k++) {
		b->line = b->pf[k].line;
		if (b->pf[k].node >= o->n_nodes)
			return tb_scn_fail(b, "node %d, the machine has %d",
					   b->pf[k].node, o->n_nodes);
		o->failure_prob[b->pf[k].node] = b->pf[k].pf;
	}
	if (!b->edges.n)
		return 0;
	return tb_scn_entries_to_matrix(b, &b->edges, s->job.nodes, "edge",
					"process");
}
