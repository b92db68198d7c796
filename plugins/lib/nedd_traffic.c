/*
 * NeDD's observations, synthesized (nedd.h): the traffic intensity T of
 * each router over the window (L67-72: flits per second between a router
 * and its nodes, summed over its nodes and averaged over a window; L104:
 * the last two minutes) and the Ntile stall count S (L115, L166-174) by
 * either model, stall=chassis or stall=routed (L94: Ntiles carry traffic
 * to/from the router's own Ptiles and other routers' Ntiles; L174: "whose
 * traffics always include communications with some Ntiles in other
 * routers").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nedd.h"
#include "profile.h"

uint64_t tb_nedd_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct ranked {
	uint64_t hash;
	int k;
};

static int by_hash(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* L122: GPCNeT runs its congestor kernels on 80 % of its nodes and the
 * canary test on the other 20 %; which ones the paper does not say. Ours:
 * the round(0.8 n) nodes of lowest hash of (seed, node index). */
int tb_nedd_congestor_roles(const struct tb_nedd_run *run,
			    unsigned char *kernel)
{
	struct ranked *r = malloc(sizeof(*r) * (size_t)(run->n > 0 ?
							run->n : 1));
	int n_kernel = (run->n * 8 + 5) / 10;

	if (!r)
		return -1;
	for (int k = 0; k < run->n; k++)
		r[k] = (struct ranked) {
			tb_nedd_mix(run->seed ^
				    tb_nedd_mix((uint64_t)run->nodes[k])), k };
	qsort(r, (size_t)run->n, sizeof(*r), by_hash);
	for (int k = 0; k < run->n; k++)
		kernel[r[k].k] = k < n_kernel;
	free(r);
	return 0;
}

/* Seconds of [now - W, now] that run ran. */
static double overlap(const struct tb_nedd_run *run, double now, double w)
{
	double lo = fmax(run->start, now - w), hi = fmin(run->end, now);

	return hi > lo ? hi - lo : 0;
}

double tb_nedd_unnamed_injection(const struct tb_nedd_options *o,
				 const char *profile)
{
	struct tb_profile p;

	/* The plain study flag ("0", "1") carries no share: silent. */
	if (o->inj_unnamed <= 0 || !profile || !strchr(profile, ':') ||
	    tb_profile_parse(profile, &p, NULL, 0))
		return 0;
	return o->inj_unnamed * p.comm_fraction;
}

/* Each node's injection x run's window share into x[0..run->n) (0 for a
 * node outside the topology); 1 when the run has no traffic in the
 * window (x untouched), 0, or -1 when out of memory. */
static int injections(const struct tb_topology *t,
		      const struct tb_nedd_run *run, double now,
		      const struct tb_nedd_options *o, double *x)
{
	int app = tb_nedd_app_find(run->app);
	const struct tb_nedd_app *a = tb_nedd_app_at(app);
	double share = overlap(run, now, o->window) / o->window;
	unsigned char *kernel = NULL;

	if (share <= 0 || run->n <= 0)
		return 1;
	if (run->inj < 0 && a && a->congestor) {
		kernel = malloc((size_t)run->n);
		if (!kernel || tb_nedd_congestor_roles(run, kernel)) {
			free(kernel);
			return -1;
		}
	}
	for (int k = 0; k < run->n; k++) {
		int node = run->nodes[k];
		double inj;

		if (node < 0 || node >= t->n_nodes) {
			x[k] = 0;
			continue;
		}
		if (run->inj >= 0)
			inj = run->inj;
		else if (kernel)
			inj = kernel[k] ? o->inj_kernel : o->inj_canary;
		else
			inj = app >= 0 ? o->inj[app] : 0;
		x[k] = inj * share;
	}
	free(kernel);
	return 0;
}

/* The most nodes of any run (at least 1): the size of injections' x. */
static int most_nodes(const struct tb_nedd_run *runs, int n_runs)
{
	int most = 1;

	for (int j = 0; j < n_runs; j++)
		if (runs[j].n > most)
			most = runs[j].n;
	return most;
}

int tb_nedd_traffic(const struct tb_topology *t,
		    const struct tb_nedd_run *runs, int n_runs, double now,
		    const struct tb_nedd_options *o, double *T)
{
	double *x = malloc(sizeof(double) * (size_t)most_nodes(runs, n_runs));

	if (!x)
		return -1;
	for (int r = 0; r < t->n_routers; r++)
		T[r] = 0;
	for (int j = 0; j < n_runs; j++) {
		const struct tb_nedd_run *run = &runs[j];
		int rc = injections(t, run, now, o, x);

		if (rc < 0) {
			free(x);
			return -1;
		}
		for (int k = 0; !rc && k < run->n; k++) {
			int node = run->nodes[k];

			if (node >= 0 && node < t->n_nodes)
				T[t->router_of[node]] += x[k];
		}
	}
	free(x);
	return 0;
}

struct by_chassis_key {
	int chassis;
	int r;
};

static int by_chassis(const void *a, const void *b)
{
	const struct by_chassis_key *x = a, *y = b;

	if (x->chassis != y->chassis)
		return x->chassis < y->chassis ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);
}

/* e uniform in [-noise, noise] from 53 bits of hash(seed, router id). */
static double noise(const struct tb_nedd_options *o, uint64_t seed, int id)
{
	double u = (double)(tb_nedd_mix(seed ^ tb_nedd_mix((uint64_t)(int64_t)id
							   + 0x5851f42dULL))
			    >> 11) * 0x1.0p-53;

	return (2 * u - 1) * o->stall_noise;
}

int tb_nedd_stall_model(const struct tb_topology *t, const double *T,
			const struct tb_nedd_options *o, uint64_t seed,
			double *S)
{
	int n = t->n_routers;
	struct by_chassis_key *key = malloc(sizeof(*key) * (size_t)(n ? n : 1));

	if (!key)
		return -1;
	for (int r = 0; r < n; r++)
		key[r] = (struct by_chassis_key) { t->routers[r].chassis, r };
	qsort(key, (size_t)n, sizeof(*key), by_chassis);
	for (int i = 0; i < n;) {
		int j = i;
		double sum = 0;

		while (j < n && key[j].chassis == key[i].chassis)
			sum += T[key[j++].r];
		for (int k = i; k < j; k++) {
			int r = key[k].r;
			/* The mean of the chassis' other routers; a router
			 * alone in its chassis (or of no chassis) has only
			 * its own traffic. */
			double mean = key[i].chassis >= 0 && j - i > 1 ?
				      (sum - T[r]) / (j - i - 1) : T[r];

			S[r] = (o->stall_g * T[r] + (1 - o->stall_g) * mean) *
			       (1 + noise(o, seed, t->routers[r].id));
		}
		i = j;
	}
	free(key);
	return 0;
}

/* --- stall=routed (nedd.h) ---------------------------------------------- */

/* A group's routers as rows (chassis) and columns (slots): the routers by
 * chassis then index (the index order is the id order), and per router
 * its chassis' first key, its chassis' router count and its slot. */
struct grid {
	struct by_chassis_key *key;
	int *first;
	int *size;
	int *slot;
};

static void grid_free(struct grid *g)
{
	free(g->key);
	free(g->first);
	free(g->size);
	free(g->slot);
}

static int grid_init(const struct tb_topology *t, struct grid *g)
{
	size_t n = (size_t)(t->n_routers ? t->n_routers : 1);

	g->key = malloc(sizeof(*g->key) * n);
	g->first = malloc(sizeof(int) * n);
	g->size = malloc(sizeof(int) * n);
	g->slot = malloc(sizeof(int) * n);
	if (!g->key || !g->first || !g->size || !g->slot)
		return -1;	/* the caller frees what was made */
	for (int r = 0; r < t->n_routers; r++)
		g->key[r] = (struct by_chassis_key) { t->routers[r].chassis, r };
	qsort(g->key, (size_t)t->n_routers, sizeof(*g->key), by_chassis);
	for (int i = 0; i < t->n_routers;) {
		int j = i;

		while (j < t->n_routers && g->key[j].chassis == g->key[i].chassis)
			j++;
		for (int k = i; k < j; k++) {
			g->first[g->key[k].r] = i;
			g->size[g->key[k].r] = j - i;
			g->slot[g->key[k].r] = k - i;
		}
		i = j;
	}
	return 0;
}

/* Adds v at every router of the minimal route from a to b (nedd.h): a and
 * b; between two routers of one group in neither one chassis nor one
 * slot, the row then column hop's middle router (a's chassis, b's slot)
 * too, when the topology has it (a slot with no nodes has no router
 * here: the flow crosses it unseen). */
static void route(const struct tb_topology *t, const struct grid *g, int a,
		  int b, double v, double *L)
{
	const struct tb_router *ra = &t->routers[a], *rb = &t->routers[b];
	int m;

	L[a] += v;
	L[b] += v;
	if (ra->group < 0 || ra->group != rb->group || ra->chassis < 0 ||
	    rb->chassis < 0 || ra->chassis == rb->chassis ||
	    g->slot[a] == g->slot[b] || g->slot[b] >= g->size[a])
		return;
	m = g->key[g->first[a] + g->slot[b]].r;
	if (t->routers[m].group == ra->group)
		L[m] += v;
}

int tb_nedd_routed_load(const struct tb_topology *t,
			const struct tb_nedd_run *runs, int n_runs, double now,
			const struct tb_nedd_options *o, double *L)
{
	size_t nr = (size_t)(t->n_routers ? t->n_routers : 1);
	double *x = malloc(sizeof(double) * (size_t)most_nodes(runs, n_runs));
	double *W = calloc(nr, sizeof(double));
	int *count = calloc(nr, sizeof(int)), *list = malloc(sizeof(int) * nr);
	struct grid g = { 0 };
	int rc = -1;

	if (!x || !W || !count || !list || grid_init(t, &g))
		goto out;
	for (int r = 0; r < t->n_routers; r++)
		L[r] = 0;
	for (int j = 0; j < n_runs; j++) {
		const struct tb_nedd_run *run = &runs[j];
		int got = injections(t, run, now, o, x), m = 0, nl = 0;

		if (got < 0)
			goto out;
		if (got)
			continue;
		/* W(a) and n(a) of the job's routers, in the order met. */
		for (int k = 0; k < run->n; k++) {
			int node = run->nodes[k], r;

			if (node < 0 || node >= t->n_nodes)
				continue;
			r = t->router_of[node];
			if (!count[r])
				list[nl++] = r;
			count[r]++;
			W[r] += x[k];
			m++;
		}
		/* Flow a -> b: W(a) n(b) / (n - 1) (all-to-all, nedd.h). */
		for (int p = 0; m > 1 && p < nl; p++)
			for (int q = 0; q < nl; q++) {
				int a = list[p], b = list[q];
				double v = W[a] * count[b] / (m - 1);

				if (a != b && v > 0)
					route(t, &g, a, b, v, L);
			}
		for (int p = 0; p < nl; p++) {
			W[list[p]] = 0;
			count[list[p]] = 0;
		}
	}
	rc = 0;
out:
	grid_free(&g);
	free(x);
	free(W);
	free(count);
	free(list);
	return rc;
}

void tb_nedd_stall_routed(const struct tb_topology *t, const double *L,
			  const struct tb_nedd_options *o, uint64_t seed,
			  double *S)
{
	for (int r = 0; r < t->n_routers; r++)
		S[r] = L[r] * (1 + noise(o, seed, t->routers[r].id));
}
