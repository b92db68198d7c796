#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tb_contention_init(struct tb_contention *c, const struct tb_topology *t,
		       const struct tb_occupancy *o, const int *alloc, int n)
{
	int *comm = calloc((size_t)t->n_switches, sizeof(int));

	c->topo = t;
	c->eq3 = TB_EQ3_PAIR;
	c->comm = comm;
	c->ratio = calloc((size_t)t->n_switches, sizeof(double));
	if (!comm || !c->ratio) {
		tb_contention_fini(c);
		return -1;
	}
	if (o->counts && o->counts->n_switches == t->n_switches) {
		memcpy(comm, o->counts->comm_nodes,
		       sizeof(int) * (size_t)t->n_switches);
	} else {
		/* Into each leaf, then up the tree (tb_counts_propagate). */
		for (int i = 0; i < t->n_nodes && i < o->n_nodes; i++)
			if (o->state[i] == TB_NODE_BUSY_COMM &&
			    t->nodes[i].leaf != TB_NO_PARENT)
				comm[t->nodes[i].leaf]++;
		tb_counts_propagate(t, comm);
	}
	/* The job's own nodes communicate too (reproduces Figure 5). */
	for (int k = 0; k < n; k++)
		for (int s = t->nodes[alloc[k]].leaf; s != TB_NO_PARENT;
		     s = t->switches[s].parent)
			comm[s]++;
	for (int s = 0; s < t->n_switches; s++)
		if (t->switches[s].n_nodes)
			c->ratio[s] = (double)comm[s] / t->switches[s].n_nodes;
	return 0;
}

void tb_contention_fini(struct tb_contention *c)
{
	free(c->comm);
	free(c->ratio);
	c->comm = NULL;
	c->ratio = NULL;
}

double tb_contention_factor(const struct tb_contention *c, int a, int b)
{
	const struct tb_topology *t = c->topo;
	int x = t->nodes[a].leaf, y = t->nodes[b].leaf;
	double sum = 0.0;

	if (x == y)	/* Eq. 2 */
		return c->ratio[x];
	if (c->eq3 == TB_EQ3_PAIR) {
		/* Eq. 3 as printed: the lowest common switch is charged the
		 * two leaves' pooled share, halved for the doubled links. */
		int nodes = t->switches[x].n_nodes + t->switches[y].n_nodes;
		return c->ratio[x] + c->ratio[y] +
		       0.5 * (c->comm[x] + c->comm[y]) / nodes;
	}

	/* Up both sides until they meet; the meeting switch counts once. */
	while (x != y) {
		if (x == TB_NO_PARENT || y == TB_NO_PARENT)
			return sum;
		if (t->switches[x].level <= t->switches[y].level) {
			sum += ldexp(c->ratio[x], -t->switches[x].level);
			x = t->switches[x].parent;
		} else {
			sum += ldexp(c->ratio[y], -t->switches[y].level);
			y = t->switches[y].parent;
		}
	}
	return sum + ldexp(c->ratio[x], -t->switches[x].level);
}

double tb_hops(const struct tb_contention *c, int a, int b)
{
	return tb_pair_distance(c->topo, a, b) *
	       (1.0 + tb_contention_factor(c, a, b));
}

static int ceil_log2(int p)
{
	int l = 0;

	while ((1 << l) < p)
		l++;
	return l;
}

/* Largest Hops over the pairs (r, r ^ dist) of one butterfly step. */
static double xor_step(const struct tb_contention *c, const int *alloc, int p,
		       int dist)
{
	double worst = 0.0;

	for (int r = 0; r < p; r++) {
		int q = r ^ dist;
		if (q > r && q < p) {
			double h = tb_hops(c, alloc[r], alloc[q]);
			if (h > worst)
				worst = h;
		}
	}
	return worst;
}

static double cost_rd(const struct tb_contention *c, const int *alloc, int p)
{
	double cost = 0.0;

	for (int k = 0; k < ceil_log2(p); k++)
		cost += xor_step(c, alloc, p, 1 << k);
	return cost;
}

/* Partners at p/2, p/4, ... while the message doubles each step. */
static double cost_rhvd(const struct tb_contention *c, const int *alloc, int p)
{
	int steps = ceil_log2(p);
	double cost = 0.0;

	for (int k = 0; k < steps; k++)
		cost += ldexp(xor_step(c, alloc, p, 1 << (steps - 1 - k)), k);
	return cost;
}

/* Broadcast from rank 0: in step k ranks below 2^k send to rank + 2^k. */
static double cost_binomial(const struct tb_contention *c, const int *alloc,
			    int p)
{
	double cost = 0.0;

	for (int k = 0; k < ceil_log2(p); k++) {
		double worst = 0.0;
		for (int r = 0; r < (1 << k) && r + (1 << k) < p; r++) {
			double h = tb_hops(c, alloc[r], alloc[r + (1 << k)]);
			if (h > worst)
				worst = h;
		}
		cost += worst;
	}
	return cost;
}

/* p - 1 identical steps, each rank sending to the next. */
static double cost_ring(const struct tb_contention *c, const int *alloc, int p)
{
	double worst = 0.0;

	if (p < 2)
		return 0.0;
	for (int r = 0; r < p; r++) {
		double h = tb_hops(c, alloc[r], alloc[(r + 1) % p]);
		if (h > worst)
			worst = h;
	}
	return worst * (p - 1);
}

int tb_allocation_cost(const struct tb_topology *t,
		       const struct tb_occupancy *o, const struct tb_job *job,
		       const int *alloc, double *cost)
{
	return tb_allocation_cost_with(t, o, job, NULL, alloc, cost);
}

int tb_allocation_cost_with(const struct tb_topology *t,
			    const struct tb_occupancy *o,
			    const struct tb_job *job,
			    const struct tb_options *opts, const int *alloc,
			    double *cost)
{
	struct tb_contention c;
	int p = job->nodes;

	/* L_comm counts nodes of communication-intensive jobs (Table 1):
	 * the job's own only when it is one. */
	if (tb_contention_init(&c, t, o, alloc, job->comm ? p : 0))
		return -1;
	if (opts)
		c.eq3 = opts->eq3;
	switch (job->pattern) {
	case TB_PATTERN_RD:
		*cost = cost_rd(&c, alloc, p);
		break;
	case TB_PATTERN_RHVD:
		*cost = cost_rhvd(&c, alloc, p);
		break;
	case TB_PATTERN_BINOMIAL:
		*cost = cost_binomial(&c, alloc, p);
		break;
	case TB_PATTERN_RING:
		*cost = cost_ring(&c, alloc, p);
		break;
	case TB_PATTERN_CMC:
		*cost = 0.7 * cost_binomial(&c, alloc, p) +
			0.3 * cost_rd(&c, alloc, p);
		break;
	default:
		tb_contention_fini(&c);
		return -1;
	}
	tb_contention_fini(&c);
	return 0;
}

const char *tb_runtime_fallback_name(enum tb_runtime_fallback f)
{
	switch (f) {
	case TB_RUNTIME_NO_COST: return "no_cost";
	case TB_RUNTIME_NO_DENOMINATOR: return "no_denominator";
	case TB_RUNTIME_MODELLED: break;
	}
	return NULL;
}

double tb_scaled_runtime_why(const struct tb_job *job, double runtime,
			     double cost, double cost_default,
			     enum tb_runtime_fallback *why)
{
	double f = job->comm_fraction, ratio;

	if (why)
		*why = TB_RUNTIME_MODELLED;
	/* P:275: "The runtime of a compute-intensive job is not affected." */
	if (!job->comm)
		return runtime;
	/* A missing cost is not "no change": it is said, and the job runs
	 * for its log runtime rather than for NaN seconds. */
	if (isnan(cost) || isnan(cost_default)) {
		if (why)
			*why = isnan(cost) ? TB_RUNTIME_NO_COST :
					     TB_RUNTIME_NO_DENOMINATOR;
		return runtime;
	}
	ratio = cost_default > 0.0 ? cost / cost_default : 1.0;
	return runtime * (1.0 - f) + runtime * f * ratio;
}

double tb_scaled_runtime(const struct tb_job *job, double runtime,
			 double cost, double cost_default)
{
	return tb_scaled_runtime_why(job, runtime, cost, cost_default, NULL);
}
