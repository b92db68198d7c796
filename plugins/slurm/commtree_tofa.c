/*
 * The TOFA family inside slurmctld: on a torus, the record's fields of a
 * job as its ranks run (Eq. 1's cost, plain hop-bytes, the abort
 * probability of one attempt, C0, the map, the nodes an attempt depends
 * on, the risky nodes, the Scotch version, tofa's fallback) and the
 * exposed nodes the fault driver's jobs read (TESTBED_TOFA_EXPOSED).
 */
#include <math.h>
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree_env.h"
#include "commtree_eval.h"
#include "../lib/matrix.h"
#include "../lib/options.h"
#include "../lib/policy.h"
#include "../lib/tofa.h"

/*
 * The nodes one attempt depends on (its own and, under exposure=routes,
 * the default, those on its routes: tb_tofa_exposed) go to the job as
 * TESTBED_TOFA_EXPOSED, node names comma-separated, and its map (node
 * ids, process order) to the record as tofa_map: the fault driver's jobs
 * end an attempt as aborted when one of the attempt's failed nodes is
 * among them (workloads/tofa_faults.py).
 */
static void _record_exposed(const struct commtree_model *md,
			    job_record_t *job_ptr, char **text,
			    const struct tb_tofa_graph *g, const int *map,
			    enum tb_tofa_exposure exposure)
{
	unsigned char *exposed = xcalloc(md->topo->n_nodes, 1);
	char *names = NULL;
	int count = 0;

	xstrcat(*text, ";tofa_map=");
	for (int p = 0; p < g->n; p++)
		xstrfmtcat(*text, "%s%d", p ? "," : "", map[p]);
	if (!tb_tofa_exposed(md->topo, g, map, exposure, exposed)) {
		for (int k = 0; k < md->topo->n_nodes; k++)
			if (exposed[k]) {
				xstrfmtcat(names, "%s%s", names ? "," : "",
					   md->topo->nodes[k].name);
				count++;
			}
		xstrfmtcat(*text, ";tofa_exposed=%d", count);
		if (names)
			commtree_env_set(job_ptr, "TESTBED_TOFA_EXPOSED",
					 names);
	}
	xfree(names);
	xfree(exposed);
}

/*
 * On a torus (TOFA), the record's torus fields for the ranks as they run
 * (rank_nodes: the policy's map when Slurm gave its nodes, else Slurm's
 * nodes in index order): Eq. 1's cost, plain hop-bytes (into *hops, the
 * runtime model's C), the abort probability of one attempt, C0 (into *c0,
 * with a matrix), the risky nodes, the Scotch version; NaN when missing.
 */
extern void commtree_tofa_record(const struct commtree_model *md,
				 job_record_t *job_ptr, char **text,
				 enum tb_policy policy,
				 const struct tb_options *opts,
				 const struct tb_occupancy *occ,
				 const struct tb_job *job,
				 const struct tb_matrix *matrix,
				 bitstr_t *node_map, const int *rank_nodes,
				 double *hops, double *c0)
{
	struct tb_tofa_graph g;
	struct tb_tofa_eval ev;
	int *map = xcalloc(job->nodes, sizeof(int)), n = 0, risky = 0;

	*hops = *c0 = NAN;

	if (rank_nodes) {
		memcpy(map, rank_nodes, job->nodes * sizeof(int));
		n = job->nodes;
	} else {
		for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0 &&
		     n < job->nodes; i++)
			if (i < md->topo_of_count && md->topo_of[i] >= 0)
				map[n++] = md->topo_of[i];
	}
	for (int k = 0; occ->failure_prob && k < md->topo->n_nodes; k++)
		risky += tb_tofa_risky(occ->failure_prob, k);
	if (n == job->nodes && !tb_tofa_graph_build(matrix, n, &g)) {
		if (!tb_tofa_evaluate(md->topo, occ->failure_prob, &g, map,
				      opts->penalty, opts->exposure, &ev)) {
			xstrfmtcat(*text, ";tofa_cost=%.6g;tofa_hops=%.6g;tofa_abort=%.6g",
				   ev.cost, ev.hops, ev.abort);
			*hops = ev.hops;
		}
		/* The runtime model's C0: default on the empty torus. */
		if (matrix && !tb_tofa_c0(md->topo, &g, opts, c0))
			xstrfmtcat(*text, ";tofa_c0=%.6g", *c0);
		_record_exposed(md, job_ptr, text, &g, map, opts->exposure);
		tb_tofa_graph_free(&g);
	}
	xstrfmtcat(*text, ";risky_nodes=%d;scotch=%s", risky,
		   tb_tofa_scotch_version());
	/* tofa found no clean window (Listing 1.1 l. 11): which fallback
	 * placed the job, every free node (l. 12) or ours (window). */
	if (policy == TB_POLICY_TOFA &&
	    tb_tofa_window(md->topo, occ, occ->failure_prob, job->nodes) < 0)
		xstrfmtcat(*text, ";tofa_fallback=%s",
			   opts->fallback == TB_FALLBACK_WINDOW &&
			   tb_tofa_window_fewest_risky(md->topo, occ,
						       occ->failure_prob,
						       job->nodes) >= 0 ?
			   "window" : "all");
	xfree(map);
}

