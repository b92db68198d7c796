/*
 * TOFA's outage probabilities for the controller: outage.txt beside
 * slurm.conf ("<node> <pf>" lines, plugins/lib/tofa_outage.c), re-read
 * whenever its modification time, size or inode change, so that an
 * experiment sets a batch's pf by rewriting the file (the paper's Fault
 * Aware Slurmctld plugin infers pf from heartbeats, L451-466; we are given
 * it, as the paper's evaluation is, L700-710). No file: every pf is 0. A
 * bad file is logged once and the last good one kept: a typo never stops
 * the controller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/slurm_xlator.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"

#include "commtree_eval.h"
#include "../lib/textfile.h"
#include "../lib/tofa.h"

static double *cached;		/* per topology node, or NULL: all 0 */
static int cached_nodes;
static struct stat seen;
static bool have_seen;

extern void commtree_outage_free(void)
{
	free(cached);
	cached = NULL;
	cached_nodes = 0;
	have_seen = false;
}

static bool _same(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void _reload(const struct tb_topology *topo, const char *path,
		    const struct stat *st)
{
	char err[512], *text;
	size_t len;
	double *pf;

	seen = *st;
	have_seen = true;
	if (!(text = tb_read_file(path, &len))) {
		error("topology/commtree: %s: cannot read it: %s; keeping the "
		      "outage probabilities read before", path,
		      strerror(errno));
		return;
	}
	if (tb_outage_parse(text, len, path, topo, &pf, err, sizeof(err))) {
		error("topology/commtree: %s; keeping the outage probabilities read before",
		      err);
	} else {
		int risky = 0;

		free(cached);
		cached = pf;
		cached_nodes = topo->n_nodes;
		for (int k = 0; k < topo->n_nodes; k++)
			risky += pf[k] > TB_TOFA_RISKY_ABOVE;
		info("topology/commtree: %s: %d risky nodes", path, risky);
	}
	free(text);
}

extern double *commtree_outage_pf(const struct tb_topology *topo)
{
	char *path = get_extra_conf_path("outage.txt");
	struct stat st;
	double *copy;

	if (stat(path, &st)) {
		if (cached)
			info("topology/commtree: %s is gone: every pf is 0",
			     path);
		commtree_outage_free();
	} else if (!have_seen || !_same(&st, &seen) ||
		   cached_nodes != topo->n_nodes) {
		_reload(topo, path, &st);
	}
	xfree(path);
	if (!cached || cached_nodes != topo->n_nodes)
		return NULL;
	/* The snapshot's own copy: tb_occupancy_free() frees it. */
	if (!(copy = malloc(sizeof(double) * topo->n_nodes)))
		return NULL;
	memcpy(copy, cached, sizeof(double) * topo->n_nodes);
	return copy;
}
