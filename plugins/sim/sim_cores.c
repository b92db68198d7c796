/*
 * Core level (GRANULARITY=core): the replay submits each workload job as
 * `ranks` one-CPU tasks in the partition `cores`, which shares nodes core
 * by core; whole-node jobs (PREFILL's first set) stay in the partition
 * main, OverSubscribe=EXCLUSIVE, so a node with a core job in use is not
 * free to them. The twin keeps free cores per node as jobs start and end,
 * and places a job of ranks as topology/commtree's core path does
 * (plugins/slurm/commtree_cores.c):
 *
 *   1. Slurm's own choice on the cores offered (select/cons_tres then
 *      topology/tree): here tb_tree_cores, our model of it (tree_cores.c
 *      says what is modelled and where Slurm may differ). When it cannot
 *      place the job, the job waits, under every policy;
 *   2. a TreeMatch policy (matrix and core traits) with the job's matrix:
 *      the library's choice as `make alloc` makes it (tb_place_ranks: tm-a
 *      maps onto Slurm's cores, tm-i, tm-sub, tm-sub3 choose among the free
 *      cores), Slurm's on a refusal (fallback policy_refused); any other
 *      policy, or a job without a matrix, keeps Slurm's (shared_nodes, as
 *      the plugin's record says);
 *   3. the record: hop-bytes at core level of the policy's and Slurm's
 *      choices on that state, the runtime by TreeMatch's law
 *      (tb_treematch_runtime_why), as the plugin's _record.
 *
 * Backfill's plan at core level (sim_cspace): slices of free cores per
 * node. Running jobs hold their cores to start + limit (Slurm: whole-node
 * jobs in its node_space map, core jobs through cons_tres's will-run test,
 * which lets running jobs end in the order of their end times); a job
 * started by backfill takes its cores; a job planned for later takes its
 * nodes whole, as Slurm's _add_reservation clears the planned nodes from
 * node_space's bitmaps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/place_cores.h"
#include "../lib/treematch.h"

int sim_cores_init(struct sim *s)
{
	int n = s->t->n_nodes;

	s->cores = malloc(sizeof(int) * (size_t)(n ? n : 1));
	s->core_comm = calloc((size_t)(n ? n : 1), sizeof(int));
	s->core_offer = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!s->cores || !s->core_comm || !s->core_offer)
		return -1;
	for (int k = 0; k < n; k++)
		s->cores[k] = s->t->nodes[k].cores;
	return 0;
}

void sim_cores_fini(struct sim *s)
{
	free(s->cores);
	free(s->core_comm);
	free(s->core_offer);
	s->cores = s->core_comm = s->core_offer = NULL;
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int sim_cores_take(struct sim *s, struct sim_job *j)
{
	int *cnt = calloc((size_t)s->t->n_nodes, sizeof(int));

	free(j->on);
	free(j->on_cores);
	j->on = malloc(sizeof(int) * (size_t)j->ranks);
	j->on_cores = malloc(sizeof(int) * (size_t)j->ranks);
	j->n_on = 0;
	if (!cnt || !j->on || !j->on_cores) {
		free(cnt);
		return -1;
	}
	for (int r = 0; r < j->ranks; r++)
		if (cnt[j->alloc[r]]++ == 0)
			j->on[j->n_on++] = j->alloc[r];
	qsort(j->on, (size_t)j->n_on, sizeof(int), by_int);
	for (int i = 0; i < j->n_on; i++) {
		int k = j->on[i];

		j->on_cores[i] = cnt[k];
		s->cores[k] -= cnt[k];
		sim_bit_clear(&s->free, k);
		s->held_job[k] = -1;
		if (j->job.comm && s->core_comm[k]++ == 0)
			sim_bit_set(&s->comm, k);
		s->held[k] = s->core_comm[k] ? TB_NODE_BUSY_COMM :
					       TB_NODE_BUSY;
	}
	free(cnt);
	return 0;
}

void sim_cores_give(struct sim *s, const struct sim_job *j)
{
	for (int i = 0; i < j->n_on; i++) {
		int k = j->on[i];

		s->cores[k] += j->on_cores[i];
		if (s->cores[k] >= s->t->nodes[k].cores)
			sim_bit_set(&s->free, k);
		if (j->job.comm && --s->core_comm[k] == 0)
			sim_bit_clear(&s->comm, k);
		s->held[k] = s->core_comm[k] ? TB_NODE_BUSY_COMM :
					       TB_NODE_BUSY;
	}
}

void sim_cores_hold_nodes(struct sim *s, const struct sim_job *j, int hold)
{
	for (int k = 0; k < j->nodes; k++)
		s->cores[j->alloc[k]] = hold ? 0 :
					s->t->nodes[j->alloc[k]].cores;
}

/* The plugin's snapshot at core level (commtree_cores.c, _fill_cores): a
 * node offered with all its cores is free, any other carries what runs
 * on it (busy, busy-comm); free_cores are the cores offered. */
static void snapshot(struct sim *s, const int *offer)
{
	struct tb_occupancy *o = s->occ;

	for (int k = 0; k < s->t->n_nodes; k++) {
		o->state[k] = offer[k] > 0 && offer[k] >= s->t->nodes[k].cores ?
			      TB_NODE_FREE : s->held[k];
		s->core_offer[k] = offer[k];
	}
	o->free_cores = s->core_offer;
	o->n_jobs = s->n_running;
	o->counts = NULL;
}

enum sim_try sim_place_cores(struct sim *s, struct sim_job *j,
			     const int *offer, int *node_of_rank,
			     enum tb_policy *used, const char **fallback,
			     double *hop_bytes, double *hop_bytes_default)
{
	const struct tb_topology *t = s->t;
	enum tb_policy p = s->p->policy;
	enum sim_try rc = SIM_ERROR;
	enum tb_status st;
	long total = 0;
	int *slots;

	*used = TB_POLICY_DEFAULT;
	*fallback = NULL;
	*hop_bytes = *hop_bytes_default = NAN;
	for (int k = 0; k < t->n_nodes; k++)
		total += offer[k];
	if (total < j->ranks)
		return SIM_NO_ROOM;
	if (!(slots = malloc(sizeof(int) * (size_t)j->ranks)))
		return SIM_ERROR;
	snapshot(s, offer);
	st = tb_tree_cores(t, s->occ, j->ranks, slots);
	if (st != TB_OK) {
		rc = st == TB_ENOMEM ? SIM_ERROR : SIM_NO_ROOM;
		goto out;
	}
	if (j->matrix)
		*hop_bytes_default = tb_hop_bytes_cores(t, j->matrix, slots);
	if (p != TB_POLICY_DEFAULT && j->matrix &&
	    tb_policy_has(p, TB_TRAIT_MATRIX) &&
	    tb_policy_has(p, TB_TRAIT_CORES)) {
		struct tb_job nj = j->job;

		nj.nodes = 0;
		nj.matrix = j->matrix;
		st = tb_place_ranks(p, t, s->occ, &nj, &s->p->opts,
				    node_of_rank, NULL, 0);
		if (st == TB_ENOMEM)
			goto out;
		if (st == TB_OK) {
			*used = p;
			*hop_bytes = tb_hop_bytes_cores(t, j->matrix,
							node_of_rank);
			rc = SIM_PLACED;
			goto out;
		}
		*fallback = "policy_refused";
	} else if (p != TB_POLICY_DEFAULT) {
		*fallback = "shared_nodes";
	}
	memcpy(node_of_rank, slots, sizeof(int) * (size_t)j->ranks);
	*hop_bytes = *hop_bytes_default;
	rc = SIM_PLACED;
out:
	s->occ->free_cores = NULL;
	free(slots);
	return rc;
}

void sim_record_cores(struct sim_job *j, double hop_bytes,
		      double hop_bytes_default)
{
	j->cost = j->cost_default = j->cost_denominator = NAN;
	j->hop_bytes = hop_bytes;
	j->hop_bytes_default = hop_bytes_default;
	j->runtime_why = TB_RUNTIME_MODELLED;
	/* As the plugin: a compute-intensive job keeps its runtime, and so
	 * does one without a matrix (the plugin places it with tree and
	 * records Eq. 7 on default's cost over default's, 1, under
	 * OPTIONS=denominator=default; against default1905 it would not be
	 * 1: not modelled). */
	j->runtime_scaled = j->job.comm && j->matrix ?
		tb_treematch_runtime_why(j->runtime, j->job.comm_fraction,
					 hop_bytes, hop_bytes_default,
					 &j->runtime_why) :
		j->runtime;
}

/* --- backfill's plan of free cores --------------------------------------- */

int sim_cspace_init(struct sim_cspace *c, const int *free_now, int n_nodes,
		    double now)
{
	size_t row = sizeof(int) * (size_t)(n_nodes ? n_nodes : 1);

	memset(c, 0, sizeof(*c));
	c->cap = 16;
	c->n_nodes = n_nodes;
	c->begin = malloc(sizeof(double) * (size_t)c->cap);
	c->free = calloc((size_t)c->cap, sizeof(int *));
	c->total = malloc(sizeof(long) * (size_t)c->cap);
	if (!c->begin || !c->free || !c->total ||
	    !(c->free[0] = malloc(row))) {
		sim_cspace_fini(c);
		return -1;
	}
	memcpy(c->free[0], free_now, sizeof(int) * (size_t)n_nodes);
	c->total[0] = 0;
	for (int k = 0; k < n_nodes; k++)
		c->total[0] += free_now[k];
	c->begin[0] = now;
	c->n = 1;
	return 0;
}

void sim_cspace_fini(struct sim_cspace *c)
{
	for (int i = 0; c->free && i < c->n; i++)
		free(c->free[i]);
	free(c->free);
	free(c->begin);
	free(c->total);
	memset(c, 0, sizeof(*c));
}

int sim_cspace_at(struct sim_cspace *c, double t)
{
	int i = c->n - 1;
	int *copy;

	while (i > 0 && c->begin[i] > t)
		i--;
	if (c->begin[i] >= t)
		return i;
	if (c->n == c->cap) {
		int cap = 2 * c->cap;
		double *b = realloc(c->begin, sizeof(double) * (size_t)cap);
		int **f;
		long *tot;

		if (!b)
			return -1;
		c->begin = b;
		if (!(f = realloc(c->free, sizeof(int *) * (size_t)cap)))
			return -1;
		c->free = f;
		if (!(tot = realloc(c->total, sizeof(long) * (size_t)cap)))
			return -1;
		c->total = tot;
		c->cap = cap;
	}
	copy = malloc(sizeof(int) * (size_t)(c->n_nodes ? c->n_nodes : 1));
	if (!copy)
		return -1;
	memcpy(copy, c->free[i], sizeof(int) * (size_t)c->n_nodes);
	memmove(&c->begin[i + 2], &c->begin[i + 1],
		sizeof(double) * (size_t)(c->n - i - 1));
	memmove(&c->free[i + 2], &c->free[i + 1],
		sizeof(int *) * (size_t)(c->n - i - 1));
	memmove(&c->total[i + 2], &c->total[i + 1],
		sizeof(long) * (size_t)(c->n - i - 1));
	c->begin[i + 1] = t;
	c->free[i + 1] = copy;
	c->total[i + 1] = c->total[i];
	c->n++;
	return i + 1;
}

void sim_cspace_give(struct sim_cspace *c, int i, const int *nodes,
		     const int *cores, int n)
{
	for (int k = 0; k < n; k++) {
		c->free[i][nodes[k]] += cores[k];
		c->total[i] += cores[k];
	}
}

int sim_cspace_take(struct sim_cspace *c, double begin, double end,
		    const int *nodes, const int *cores, int n)
{
	int first = sim_cspace_at(c, begin);

	if (first < 0 || sim_cspace_at(c, end) < 0)
		return -1;
	for (int i = first; i < c->n && c->begin[i] < end; i++)
		for (int k = 0; k < n; k++) {
			int *f = &c->free[i][nodes[k]];
			int x = cores ? cores[k] : *f;

			x = x < *f ? x : *f;
			*f -= x;
			c->total[i] -= x;
		}
	return 0;
}

long sim_cspace_free_during(const struct sim_cspace *c, int from, double end,
			    long need, int *out)
{
	int last = from;
	long sum = 0;

	if (c->total[from] < need)
		return c->total[from];
	while (last + 1 < c->n && c->begin[last + 1] < end) {
		last++;
		if (c->total[last] < need)
			return c->total[last];
	}
	memcpy(out, c->free[from], sizeof(int) * (size_t)c->n_nodes);
	for (int i = from + 1; i <= last; i++) {
		const int *f = c->free[i];

		for (int k = 0; k < c->n_nodes; k++)
			out[k] = f[k] < out[k] ? f[k] : out[k];
	}
	for (int k = 0; k < c->n_nodes; k++)
		sum += out[k];
	return sum;
}
