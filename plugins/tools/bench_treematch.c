/*
 * TreeMatch decision time against job size on Curie (IJHPCA 2018, Figure
 * 3): 5,040 nodes x 16 cores under 280 chassis leaves of 18, pods of 18
 * leaves, one top switch (emulated-clusters/curie.cluster). The job is a
 * 2-D 5-point stencil over its ranks (sparse, as monitored MPI codes
 * are). tm-i with and without the subtree of Sec. 3.2 (tm-sub), on an
 * idle machine and with a share of random nodes busy.
 *
 *   bench-treematch [busy-fraction] [max-ranks]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/treematch.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct tb_topology *curie(void)
{
	struct tb_topology *t = tb_topology_new();
	char name[32], parent[32], err[128];

	if (!t || tb_topology_add_switch(t, "top", NULL))
		return NULL;
	for (int p = 0; p < 16; p++) {
		snprintf(name, sizeof(name), "pod%d", p);
		if (tb_topology_add_switch(t, name, "top"))
			return NULL;
	}
	for (int l = 0; l < 280; l++) {
		snprintf(name, sizeof(name), "chassis%d", l);
		snprintf(parent, sizeof(parent), "pod%d", l / 18);
		if (tb_topology_add_switch(t, name, parent))
			return NULL;
	}
	for (int n = 0; n < 5040; n++) {
		snprintf(name, sizeof(name), "curie%04d", n + 1);
		if (tb_topology_add_node(t, name, 17 + n / 18, 16))
			return NULL;
	}
	return tb_topology_finish(t, err, sizeof(err)) ? NULL : t;
}

static struct tb_matrix *stencil(int ranks)
{
	struct tb_matrix *m = calloc(1, sizeof(*m));
	int w = (int)sqrt((double)ranks);

	if (!m)
		return NULL;
	m->ranks = ranks;
	m->entries = malloc(sizeof(*m->entries) * (size_t)ranks * 2);
	if (!m->entries) {
		free(m);
		return NULL;
	}
	for (int r = 0; r < ranks; r++) {
		if (r + 1 < ranks && (r + 1) % w)
			m->entries[m->n++] = (struct tb_matrix_entry){ r, r + 1,
								       1 << 20 };
		if (r + w < ranks)
			m->entries[m->n++] = (struct tb_matrix_entry){ r, r + w,
								       1 << 18 };
	}
	return m;
}

int main(int argc, char **argv)
{
	double busy = argc > 1 ? atof(argv[1]) : 0.0;
	int max = argc > 2 ? atoi(argv[2]) : 80640;
	static const int sizes[] = { 16, 64, 256, 1024, 4096, 16384, 40960,
				     80640 };
	struct tb_topology *t = curie();
	struct tb_occupancy *o = t ? tb_occupancy_new(t->n_nodes) : NULL;
	unsigned long long rng = 0x2545f4914f6cdd1dULL;
	int free_cores = 0;

	if (!o) {
		fprintf(stderr, "bench-treematch: out of memory\n");
		return 1;
	}
	for (int v = 0; v < t->n_nodes; v++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		if ((double)(rng % 1000) < busy * 1000)
			o->state[v] = TB_NODE_BUSY;
		else
			free_cores += 16;
	}
	printf("# curie 5040 x 16 cores, %d free cores (busy %.0f%%)\n",
	       free_cores, busy * 100);
	printf("%8s %12s %12s %14s %14s\n", "ranks", "tm-i_s", "tm-sub_s",
	       "tm-i_hopbytes", "tm-sub_hopbytes");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int n = sizes[k];
		struct tb_matrix *m;
		int *cores, *map;
		double ts[2], hb[2];

		if (n > max || n > free_cores)
			break;
		m = stencil(n);
		cores = malloc(sizeof(int) * (size_t)n);
		map = malloc(sizeof(int) * (size_t)n);
		if (!m || !cores || !map)
			return 1;
		for (int s = 0; s < 2; s++) {
			struct tb_tm_opts opts;
			double t0;
			enum tb_status rc;

			tb_tm_opts_default(&opts);
			opts.strategy = s ? TB_TM_SUB : TB_TM_I;
			t0 = now_s();
			rc = tb_treematch_allocate(t, o, m, &opts, cores, map,
						   &hb[s]);
			ts[s] = now_s() - t0;
			if (rc != TB_OK) {
				fprintf(stderr, "bench-treematch: %d ranks: %s\n",
					n, tb_status_str(rc));
				return 1;
			}
		}
		printf("%8d %12.4f %12.4f %14.4g %14.4g\n", n, ts[0], ts[1],
		       hb[0], hb[1]);
		fflush(stdout);
		free(m->entries);
		free(m);
		free(cores);
		free(map);
	}
	tb_occupancy_free(o);
	tb_topology_free(t);
	return 0;
}
