/*
 * The NeDD family (../shared/papers/nedd.txt): the paper's strategy and its
 * four baselines, all at router level (Aries routers of 4 nodes, L67, L94).
 * The paper prints no pseudo-code; each strategy is its sentence:
 *
 *   ltr           Low-Traffic-Router (L76, L112): free nodes by their
 *                 router's traffic intensity T, lowest first
 *   htr           High-Traffic-Router (L113): the same, highest first
 *   nedd          NeDD (L76-82, L146): ltr for a network-sensitive job,
 *                 htr for an insensitive one, the unprofiled= strategy
 *                 for an application without a profile (nedd.h)
 *   random        Random (L114): a uniform random subset of the free
 *                 nodes, seeded by the job's seed (TOFA L578 compares
 *                 with the same)
 *   low-stall     Low-Stall-Router (L115): free nodes by their router's
 *                 Ntile stall count S, lowest first
 *   fewer-router  Fewer-Router (L116): routers by free nodes, most first,
 *                 each taken whole until the job is placed
 *
 * Ties (the paper is silent): by router id, then node id; within a router
 * nodes are taken lowest index first. A router's T and S come from the
 * occupancy (occupancy.h) or the models of nedd.h. The allocation lists
 * the routers in the order taken, nodes ascending within each.
 */
#include <math.h>
#include <stdlib.h>

#include "nedd.h"
#include "pick.h"
#include "policy_registry.h"

struct router_key {
	int r;			/* router index */
	double key;		/* lower first */
	int free_nodes;
};

static int by_key(const void *a, const void *b)
{
	const struct router_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);	/* router id order */
}

enum order { LOW_TRAFFIC, HIGH_TRAFFIC, LOW_STALL, MOST_FREE };

static int free_in(const struct tb_router *rt, const struct tb_occupancy *o)
{
	int n = 0;

	for (int k = 0; k < rt->n_nodes; k++)
		n += o->state[rt->nodes[k]] == TB_NODE_FREE;
	return n;
}

/* The stall count of every router: the observed one, else the model's
 * (stall=chassis from T; stall=routed from the occupancy's routed load L,
 * 0 everywhere when none was computed). */
static int stalls(const struct tb_topology *t, const struct tb_occupancy *o,
		  const double *T, const struct tb_job *job,
		  const struct tb_options *opts, double *S)
{
	if (opts->nedd.stall != TB_NEDD_STALL_ROUTED) {
		if (tb_nedd_stall_model(t, T, &opts->nedd, job->seed, S))
			return -1;
	} else if (o->router_routed) {
		tb_nedd_stall_routed(t, o->router_routed, &opts->nedd,
				     job->seed, S);
	} else {
		for (int r = 0; r < t->n_routers; r++)
			S[r] = 0;
	}
	for (int r = 0; o->router_stall && r < t->n_routers; r++)
		if (!isnan(o->router_stall[r]))
			S[r] = o->router_stall[r];
	return 0;
}

/* Routers in the order's sense, then their free nodes until the job's. */
static enum tb_status by_routers(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job,
				 const struct tb_options *opts,
				 enum order order, int *alloc)
{
	int nr = t->n_routers, got = 0, free_total = 0;
	struct router_key *keys;
	double *S = NULL;

	if (!t->routers || (o->router_traffic && o->n_routers != nr) ||
	    (o->router_stall && o->n_routers != nr) ||
	    (o->router_routed && o->n_routers != nr))
		return TB_EINVAL;
	keys = malloc(sizeof(*keys) * (size_t)(nr ? nr : 1));
	if (!keys)
		return TB_ENOMEM;
	if (order == LOW_STALL) {
		double *T = calloc((size_t)(nr ? nr : 1), sizeof(double));

		S = malloc(sizeof(double) * (size_t)(nr ? nr : 1));
		if (!T || !S || stalls(t, o, o->router_traffic ?
					     o->router_traffic : T,
				       job, opts, S)) {
			free(T);
			free(S);
			free(keys);
			return TB_ENOMEM;
		}
		free(T);
	}
	for (int r = 0; r < nr; r++) {
		double traffic = o->router_traffic ? o->router_traffic[r] : 0;

		keys[r].r = r;
		keys[r].free_nodes = free_in(&t->routers[r], o);
		free_total += keys[r].free_nodes;
		switch (order) {
		case LOW_TRAFFIC:
			keys[r].key = traffic;
			break;
		case HIGH_TRAFFIC:
			keys[r].key = -traffic;
			break;
		case LOW_STALL:
			keys[r].key = S[r];
			break;
		default:
			keys[r].key = -keys[r].free_nodes;
			break;
		}
	}
	free(S);
	if (free_total < job->nodes) {
		free(keys);
		return TB_ENOSPACE;
	}
	qsort(keys, (size_t)nr, sizeof(*keys), by_key);
	for (int i = 0; i < nr && got < job->nodes; i++) {
		const struct tb_router *rt = &t->routers[keys[i].r];

		for (int k = 0; k < rt->n_nodes && got < job->nodes; k++)
			if (o->state[rt->nodes[k]] == TB_NODE_FREE)
				alloc[got++] = rt->nodes[k];
	}
	free(keys);
	return TB_OK;
}

enum tb_status tb_policy_ltr(const struct tb_topology *t,
			     const struct tb_occupancy *o,
			     const struct tb_job *job,
			     const struct tb_options *opts, int *alloc)
{
	return by_routers(t, o, job, opts, LOW_TRAFFIC, alloc);
}

enum tb_status tb_policy_htr(const struct tb_topology *t,
			     const struct tb_occupancy *o,
			     const struct tb_job *job,
			     const struct tb_options *opts, int *alloc)
{
	return by_routers(t, o, job, opts, HIGH_TRAFFIC, alloc);
}

enum tb_status tb_policy_low_stall(const struct tb_topology *t,
				   const struct tb_occupancy *o,
				   const struct tb_job *job,
				   const struct tb_options *opts, int *alloc)
{
	return by_routers(t, o, job, opts, LOW_STALL, alloc);
}

enum tb_status tb_policy_fewer_router(const struct tb_topology *t,
				      const struct tb_occupancy *o,
				      const struct tb_job *job,
				      const struct tb_options *opts,
				      int *alloc)
{
	return by_routers(t, o, job, opts, MOST_FREE, alloc);
}

enum tb_status tb_policy_nedd(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job,
			      const struct tb_options *opts, int *alloc)
{
	struct tb_nedd_choice c;
	const struct tb_policy_info *pi;

	tb_nedd_decide(job, opts, &c);
	pi = tb_policy_info(c.strategy);
	/* unprofiled= names only the family's router strategies. */
	if (!pi || c.strategy == TB_POLICY_NEDD)
		return TB_EINVAL;
	return pi->fn(t, o, job, opts, alloc);
}

/* A uniform draw in [0, n) from the state, without modulo bias. */
static uint64_t draw(uint64_t *state, uint64_t n)
{
	uint64_t limit = -n % n, x;

	do {
		*state += 0x9e3779b97f4a7c15ULL;
		x = tb_nedd_mix(*state);
	} while (x < limit);
	return x % n;
}

/* A node and its router index, to list a pick router by router. */
struct routed {
	int r;
	int node;
};

static int by_router_node(const void *a, const void *b)
{
	const struct routed *x = a, *y = b;

	if (x->r != y->r)
		return (x->r > y->r) - (x->r < y->r);
	return (x->node > y->node) - (x->node < y->node);
}

/* L114 "places a job randomly": the first M of a Fisher-Yates shuffle of
 * the free nodes (every M-subset equally likely), seeded by job->seed,
 * then listed router by router (nodes ascending). */
enum tb_status tb_policy_random(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc)
{
	int n_free = 0, *v;
	struct routed *pick;
	uint64_t state = tb_nedd_mix(job->seed);

	(void)opts;
	if (!t->routers)
		return TB_EINVAL;
	v = malloc(sizeof(int) * (size_t)t->n_nodes);
	if (!v)
		return TB_ENOMEM;
	for (int k = 0; k < t->n_nodes; k++)
		if (o->state[k] == TB_NODE_FREE)
			v[n_free++] = k;
	if (n_free < job->nodes) {
		free(v);
		return TB_ENOSPACE;
	}
	for (int i = 0; i < job->nodes; i++) {
		int j = i + (int)draw(&state, (uint64_t)(n_free - i)), tmp = v[i];

		v[i] = v[j];
		v[j] = tmp;
	}
	/* Router by router, nodes ascending within each. */
	pick = malloc(sizeof(*pick) * (size_t)job->nodes);
	if (!pick) {
		free(v);
		return TB_ENOMEM;
	}
	for (int i = 0; i < job->nodes; i++)
		pick[i] = (struct routed) { t->router_of[v[i]], v[i] };
	qsort(pick, (size_t)job->nodes, sizeof(*pick), by_router_node);
	for (int i = 0; i < job->nodes; i++)
		alloc[i] = pick[i].node;
	free(pick);
	free(v);
	return TB_OK;
}
