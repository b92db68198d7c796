/* TreeMatch's scenario lines (cores, busycores, pair; scenario.h): cores
 * per node, partly busy nodes and the job's rank matrix
 * (scenario_internal.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"
#include "textfile.h"

/* cores <c> */
int tb_scn_cores_line(struct builder *b, char **w, int n)
{
	if (b->cores_line)
		return tb_scn_fail(b, "a second 'cores' line");
	if (n != 2 || tb_parse_int(w[1], 1, TB_SCENARIO_MAX_CORES, &b->cores))
		return tb_scn_fail(b, "expected 'cores <cores per node, 1 to %d>'",
				   TB_SCENARIO_MAX_CORES);
	b->cores_line = b->line;
	return 0;
}

/* busycores <node>:<count> ... */
int tb_scn_busycores_line(struct builder *b, char **w, int n)
{
	if (n < 2)
		return tb_scn_fail(b, "expected 'busycores <node>:<busy cores> ...'");
	for (int i = 1; i < n; i++) {
		struct busycores_item *ni, *it;
		char *colon = strchr(w[i], ':');

		if (!colon)
			return tb_scn_fail(b, "busycores: expected <node>:<busy cores>, got '%s'", w[i]);
		*colon++ = '\0';
		ni = realloc(b->busycores, sizeof(*ni) * (size_t)(b->n_busycores + 1));
		if (!ni)
			return tb_scn_fail(b, "out of memory");
		b->busycores = ni;
		it = &b->busycores[b->n_busycores];
		if (tb_parse_int(w[i], 0, TB_SCENARIO_MAX_NODES - 1, &it->node))
			return tb_scn_fail(b, "busycores: node '%s' is not a node index", w[i]);
		if (tb_parse_int(colon, 1, TB_SCENARIO_MAX_CORES, &it->count))
			return tb_scn_fail(b, "busycores: node %d: '%s' busy cores: expected a number from 1 to the node's cores",
					   it->node, colon);
		it->line = b->line;
		b->n_busycores++;
	}
	return 0;
}

/* pair <rank> <rank> <volume> */
int tb_scn_pair_line(struct builder *b, char **w, int n)
{
	int from, to;
	double v;

	if (n != 4)
		return tb_scn_fail(b, "expected 'pair <rank> <rank> <volume>'");
	if (tb_parse_int(w[1], 0, TB_MATRIX_MAX_RANKS - 1, &from) ||
	    tb_parse_int(w[2], 0, TB_MATRIX_MAX_RANKS - 1, &to))
		return tb_scn_fail(b, "pair: '%s %s': expected two rank numbers", w[1], w[2]);
	if (from == to)
		return tb_scn_fail(b, "pair: a rank with itself (%d)", from);
	if (tb_scn_parse_num(w[3], 0, INFINITY, &v) || v <= 0)
		return tb_scn_fail(b, "pair: volume '%s': expected a number above 0", w[3]);
	for (int k = 0; k < b->pairs.n; k++) {
		const struct tb_matrix_entry *e = &b->pairs.v[k];

		if ((e->from == from && e->to == to) ||
		    (e->from == to && e->to == from))
			return tb_scn_fail(b, "pair %d %d given twice (line %d): each pair once",
					   from, to, b->pairs.line[k]);
	}
	return tb_scn_add_entry(b, &b->pairs, from, to, v);
}

/* The job's ranks, its matrix from the pair lines and the partly busy
 * nodes, once the machine and its occupancy are built. */
int tb_scn_build_cores(struct builder *b)
{
	struct tb_scenario *s = b->s;
	struct tb_occupancy *o = s->occ;

	if (b->cores_line && b->torus[0]) {
		b->line = b->cores_line;
		return tb_scn_fail(b, "'cores' is for 'leaf' or 'router' machines, not a torus");
	}
	if (s->ranks && s->has_job && s->job.nodes > s->ranks) {
		b->line = s->job_line;
		return tb_scn_fail(b, "job: nodes=%d is more than ranks=%d",
				   s->job.nodes, s->ranks);
	}
	if ((s->ranks || b->pairs.n) && (b->torus[0] || b->edges.n)) {
		b->line = s->job_line;
		return tb_scn_fail(b, "ranks= and 'pair' lines are TreeMatch's, on a tree; a torus job's matrix is its 'edge' lines");
	}
	if ((s->ranks || b->pairs.n) && b->eval) {
		b->line = b->eval[0].line;
		return tb_scn_fail(b, "'eval' takes a node job ('job nodes=<n>'), not ranks= or 'pair' lines");
	}
	if (b->n_busycores) {
		o->free_cores = malloc(sizeof(int) * (size_t)o->n_nodes);
		if (!o->free_cores)
			return tb_scn_fail(b, "out of memory");
		for (int k = 0; k < o->n_nodes; k++)
			o->free_cores[k] = o->state[k] == TB_NODE_FREE ?
					   s->topo->nodes[k].cores : 0;
	}
	for (int i = 0; i < b->n_busycores; i++) {
		const struct busycores_item *it = &b->busycores[i];

		b->line = it->line;
		if (it->node >= o->n_nodes)
			return tb_scn_fail(b, "busycores: node %d, the machine has %d",
					   it->node, o->n_nodes);
		if (it->count > s->topo->nodes[it->node].cores)
			return tb_scn_fail(b, "busycores: node %d has %d cores, not %d to be busy",
					   it->node, s->topo->nodes[it->node].cores,
					   it->count);
		if (o->free_cores[it->node] != s->topo->nodes[it->node].cores)
			return tb_scn_fail(b, "busycores: node %d is busy already (its leaf line, a running line or an earlier busycores)",
					   it->node);
		o->free_cores[it->node] -= it->count;
		/* occupancy.h: a node with a busy core is busy to the
		 * node-level policies. */
		o->state[it->node] = TB_NODE_BUSY;
	}
	if (!s->ranks && !b->pairs.n)
		return 0;
	if (s->has_job && !s->ranks)
		s->ranks = s->job.nodes;	/* one rank per node */
	return tb_scn_entries_to_matrix(b, &b->pairs, s->ranks, "pair",
					"rank");
}
