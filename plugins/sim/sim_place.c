/*
 * A placement as the plugin makes it (plugins/slurm/commtree_eval.c,
 * commtree_eval and _record), on the twin's state:
 *
 *   the snapshot: the nodes offered are free, the others busy; nodes of a
 *   running communication-intensive job are busy-comm; every running job's
 *   nodes carry its id (occupancy `job`, for the isolated policy);
 *   the choice: the run's policy; a policy with the wait trait that
 *   refuses makes the job wait; any other refusal falls back to default
 *   (the plugin: tree's own choice, here the library's model of it); a
 *   job with a node list (INDIVIDUAL's occupying jobs) gets those nodes
 *   and no record, as the plugin returns tree's eval for it;
 *   the record at the start: the costs of the policy's, default's and the
 *   denominator's choices on that snapshot (and of the policies asked for,
 *   sim_params.costed, as the plugin's cost_<policy>), hop-bytes with a
 *   matrix, and
 *   the runtime from the library's model (TreeMatch's law for the matrix
 *   policies with a matrix, Eq. 7 otherwise).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/runtime_law.h"
#include "../lib/treematch.h"

/* A leaf's nodes as masks over the words they span: a leaf of contiguous
 * nodes (every generated machine) spans few words, so a snapshot's
 * tallies cost about one pass over the bitmap instead of one over the
 * nodes. Leaves scattered over the bitmap (more mask words than 4 x the
 * bitmap's) leave the counting to the library. */
int sim_counts_init(struct sim *s)
{
	const struct tb_topology *t = s->t;
	int nl = t->n_leaves, total = 0, words = (t->n_nodes + 63) / 64;

	if (sim_bits_init(&s->comm, t->n_nodes, 0))
		return -1;
	s->counts.n_switches = t->n_switches;
	s->counts.free_nodes = calloc((size_t)t->n_switches + 1, sizeof(int));
	s->counts.comm_nodes = calloc((size_t)t->n_switches + 1, sizeof(int));
	s->counts.busy_nodes = calloc((size_t)t->n_switches + 1, sizeof(int));
	s->leaf_w0 = calloc((size_t)nl + 1, sizeof(int));
	s->leaf_w1 = calloc((size_t)nl + 1, sizeof(int));
	s->leaf_off = calloc((size_t)nl + 1, sizeof(int));
	if (!s->counts.free_nodes || !s->counts.comm_nodes ||
	    !s->counts.busy_nodes || !s->leaf_w0 || !s->leaf_w1 ||
	    !s->leaf_off)
		return -1;
	for (int i = 0; i < nl; i++) {
		const struct tb_switch *sw = &t->switches[t->leaves[i]];
		int lo = t->n_nodes, hi = -1;

		for (int k = 0; k < sw->n_nodes; k++) {
			lo = sw->nodes[k] < lo ? sw->nodes[k] : lo;
			hi = sw->nodes[k] > hi ? sw->nodes[k] : hi;
		}
		s->leaf_w0[i] = hi < 0 ? 0 : lo >> 6;
		s->leaf_w1[i] = hi < 0 ? -1 : hi >> 6;
		s->leaf_off[i] = total;
		total += s->leaf_w1[i] - s->leaf_w0[i] + 1;
	}
	if (total > 4 * words + nl)
		return 0;
	s->leaf_mask = calloc((size_t)total + 1, sizeof(uint64_t));
	if (!s->leaf_mask)
		return -1;
	for (int i = 0; i < nl; i++) {
		const struct tb_switch *sw = &t->switches[t->leaves[i]];

		uint64_t *m = &s->leaf_mask[s->leaf_off[i]];

		for (int k = 0; k < sw->n_nodes; k++) {
			int node = sw->nodes[k];

			m[(node >> 6) - s->leaf_w0[i]] |=
				(uint64_t)1 << (node & 63);
		}
	}
	s->use_counts = 1;
	return 0;
}

void sim_counts_fini(struct sim *s)
{
	sim_bits_fini(&s->comm);
	free(s->counts.free_nodes);
	free(s->counts.comm_nodes);
	free(s->counts.busy_nodes);
	free(s->leaf_w0);
	free(s->leaf_w1);
	free(s->leaf_off);
	free(s->leaf_mask);
}

/* The snapshot's tallies, as tb_counts_init makes them of its state: a
 * node is free when offered, else busy, busy-comm when a running
 * comm-intensive job holds it (the twin has no down node). */
static void tally(struct sim *s, const struct sim_bits *free)
{
	const struct tb_topology *t = s->t;
	struct tb_switch_counts *c = &s->counts;
	size_t b = sizeof(int) * (size_t)t->n_switches;

	memset(c->free_nodes, 0, b);
	memset(c->comm_nodes, 0, b);
	memset(c->busy_nodes, 0, b);
	for (int i = 0; i < t->n_leaves; i++) {
		const uint64_t *m = &s->leaf_mask[s->leaf_off[i]];
		int leaf = t->leaves[i], f = 0, cm = 0, w0 = s->leaf_w0[i];

		for (int w = w0; w <= s->leaf_w1[i]; w++) {
			uint64_t x = m[w - w0];

			f += sim_popcount(free->w[w] & x);
			cm += sim_popcount(s->comm.w[w] & ~free->w[w] & x);
		}
		c->free_nodes[leaf] = f;
		c->busy_nodes[leaf] = t->switches[leaf].n_nodes - f;
		c->comm_nodes[leaf] = cm;
	}
	tb_counts_propagate(t, c->free_nodes);
	tb_counts_propagate(t, c->busy_nodes);
	tb_counts_propagate(t, c->comm_nodes);
}

/* The running jobs' part (occupancy `job` ids and busy-comm) is kept by
 * sim_hold / sim_release as jobs start and end; a snapshot only lays the
 * offered nodes over it, 64 nodes at a time where a word is uniform. */
static void snapshot(struct sim *s, const struct sim_bits *free)
{
	struct tb_occupancy *o = s->occ;
	int n = s->t->n_nodes;

	for (int w = 0; w < free->words; w++) {
		int lo = w * 64, hi = lo + 64 < n ? lo + 64 : n;
		uint64_t x = free->w[w];

		if (x == 0) {
			memcpy(&o->state[lo], &s->held[lo], (size_t)(hi - lo));
			continue;
		}
		if (hi - lo == 64 && x == ~(uint64_t)0) {
			memset(&o->state[lo], TB_NODE_FREE, 64);
			continue;
		}
		for (int k = lo; k < hi; k++)
			o->state[k] = (x >> (k - lo)) & 1 ? TB_NODE_FREE :
				      s->held[k];
	}
	o->n_jobs = s->n_running;
	o->counts = NULL;
	if (s->use_counts) {
		tally(s, free);
		o->counts = &s->counts;
	}
}

void sim_hold(struct sim *s, int idx)
{
	const struct sim_job *j = &s->plan->jobs[idx];
	int id = s->n_running - 1;	/* its place in s->running */

	for (int k = 0; k < j->nodes; k++) {
		s->held[j->alloc[k]] = j->job.comm ? TB_NODE_BUSY_COMM :
						     TB_NODE_BUSY;
		s->held_job[j->alloc[k]] = id;
		if (j->job.comm)
			sim_bit_set(&s->comm, j->alloc[k]);
	}
}

void sim_release(struct sim *s, int idx, int moved)
{
	const struct sim_job *j = &s->plan->jobs[idx];

	/* A job of ranks (sim_cores.c) holds no node's id. */
	for (int k = 0; !j->ranks && k < j->nodes; k++) {
		s->held[j->alloc[k]] = TB_NODE_BUSY;
		s->held_job[j->alloc[k]] = -1;
		sim_bit_clear(&s->comm, j->alloc[k]);
	}
	/* The job that took its place in s->running takes its id. */
	if (moved >= 0) {
		const struct sim_job *m = &s->plan->jobs[s->running[moved]];

		for (int k = 0; !m->ranks && k < m->nodes; k++)
			s->held_job[m->alloc[k]] = moved;
	}
}

enum sim_try sim_place(struct sim *s, struct sim_job *j,
		       const struct sim_bits *free, int *alloc,
		       enum tb_policy *used, const char **fallback)
{
	const struct sim_params *p = s->p;
	enum tb_status st;

	*used = TB_POLICY_DEFAULT;
	*fallback = NULL;
	if (j->fixed) {
		for (int k = 0; k < j->n_fixed; k++)
			if (!sim_bit(free, j->fixed[k]))
				return SIM_NO_ROOM;
		memcpy(alloc, j->fixed, sizeof(int) * (size_t)j->nodes);
		return SIM_PLACED;
	}
	if (sim_bits_count(free) < j->nodes)
		return SIM_NO_ROOM;
	snapshot(s, free);
	if (p->policy != TB_POLICY_DEFAULT) {
		char why[256];

		st = tb_allocate_why(p->policy, s->t, s->occ, &j->job,
				     &p->opts, alloc, why, sizeof(why));
		if (tb_policy_has(p->policy, TB_TRAIT_WAIT) &&
		    (st == TB_EWAIT || st == TB_ENOSPACE) &&
		    !s->trial_test_only)
			return SIM_NO_ROOM;
		if (st == TB_ENOMEM)
			return SIM_ERROR;
		if (st == TB_OK) {
			*used = p->policy;
			return SIM_PLACED;
		}
		*fallback = tb_status_fallback(st);
	}
	st = tb_allocate_with(TB_POLICY_DEFAULT, s->t, s->occ, &j->job,
			      &p->opts, alloc);
	if (st == TB_ENOMEM)
		return SIM_ERROR;
	return st == TB_OK ? SIM_PLACED : SIM_NO_ROOM;
}

/* The cost (and hop-bytes) of policy q's own choice on the snapshot, as
 * _record computes every policy's: NaN when it would not place the job. */
static void cost_of(struct sim *s, struct sim_job *j, enum tb_policy q,
		    double *cost, double *hop_bytes)
{
	*cost = *hop_bytes = NAN;
	if (tb_allocate_with(q, s->t, s->occ, &j->job, &s->p->opts,
			     s->scratch) != TB_OK)
		return;
	if (tb_allocation_cost_with(s->t, s->occ, &j->job, &s->p->opts,
				    s->scratch, cost))
		*cost = NAN;
	if (j->matrix)
		*hop_bytes = tb_hop_bytes(s->t, j->matrix, s->scratch,
					  j->nodes);
}

/* The costs of the policies asked for (sim_params.costed) on the same
 * snapshot, each its own choice's, as _record's cost_<policy>: the ones
 * the record has already are taken from it. */
static int record_costed(struct sim *s, struct sim_job *j,
			 enum tb_policy denom)
{
	const struct sim_params *p = s->p;
	double hop;

	if (p->n_costed <= 0)
		return 0;
	free(j->costed);
	j->costed = malloc(sizeof(double) * (size_t)p->n_costed);
	if (!j->costed)
		return -1;
	for (int k = 0; k < p->n_costed; k++) {
		enum tb_policy q = p->costed[k];

		if (q == j->used)
			j->costed[k] = j->cost;
		else if (q == TB_POLICY_DEFAULT)
			j->costed[k] = j->cost_default;
		else if (q == denom)
			j->costed[k] = j->cost_denominator;
		else
			cost_of(s, j, q, &j->costed[k], &hop);
	}
	return 0;
}

int sim_record(struct sim *s, struct sim_job *j, const struct sim_bits *free)
{
	enum tb_policy denom = tb_denominator_policy(&s->p->opts);
	double hop_denom;

	j->cost = j->cost_default = j->cost_denominator = NAN;
	j->hop_bytes = j->hop_bytes_default = NAN;
	j->runtime_why = TB_RUNTIME_MODELLED;
	if (j->fixed) {
		/* No record: the batch script sleeps the log's runtime. */
		j->runtime_scaled = j->runtime;
		return 0;
	}
	snapshot(s, free);
	cost_of(s, j, j->used, &j->cost, &j->hop_bytes);
	if (j->used == TB_POLICY_DEFAULT) {
		j->cost_default = j->cost;
		j->hop_bytes_default = j->hop_bytes;
	} else {
		cost_of(s, j, TB_POLICY_DEFAULT, &j->cost_default,
			&j->hop_bytes_default);
	}
	if (denom == j->used)
		j->cost_denominator = j->cost;
	else if (denom == TB_POLICY_DEFAULT)
		j->cost_denominator = j->cost_default;
	else
		cost_of(s, j, denom, &j->cost_denominator, &hop_denom);
	{
		struct tb_runtime_costs rc = {
			j->cost, j->cost_denominator, j->hop_bytes,
			j->hop_bytes_default
		};

		j->runtime_scaled = tb_tree_runtime_why(
			j->used, &j->job, j->matrix != NULL, j->runtime,
			j->job.comm_fraction, &rc, &j->runtime_why);
	}
	return record_costed(s, j, denom);
}
