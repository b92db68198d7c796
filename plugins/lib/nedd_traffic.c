/*
 * NeDD's observations, synthesized (nedd.h): the traffic intensity T of
 * each router over the window (L67-72: flits per second between a router
 * and its nodes, summed over its nodes and averaged over a window; L104:
 * the last two minutes) and the Ntile stall count S (L115, L166-174).
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

int tb_nedd_traffic(const struct tb_topology *t,
		    const struct tb_nedd_run *runs, int n_runs, double now,
		    const struct tb_nedd_options *o, double *T)
{
	for (int r = 0; r < t->n_routers; r++)
		T[r] = 0;
	for (int j = 0; j < n_runs; j++) {
		const struct tb_nedd_run *run = &runs[j];
		int app = tb_nedd_app_find(run->app);
		const struct tb_nedd_app *a = tb_nedd_app_at(app);
		double share = overlap(run, now, o->window) / o->window;
		unsigned char *kernel = NULL;

		if (share <= 0 || run->n <= 0)
			continue;
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

			if (node < 0 || node >= t->n_nodes)
				continue;
			if (run->inj >= 0)
				inj = run->inj;
			else if (kernel)
				inj = kernel[k] ? o->inj_kernel : o->inj_canary;
			else
				inj = app >= 0 ? o->inj[app] : 0;
			T[t->router_of[node]] += inj * share;
		}
		free(kernel);
	}
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
