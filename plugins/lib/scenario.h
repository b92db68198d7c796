/*
 * Small hand-written cluster states for examples and tests:
 *
 *   # leaf <name> <nodes> <busy> <busy_comm> [parent <switch>]
 *   leaf L1 160 0 0
 *   job nodes=512 comm=1 pattern=rhvd [ratio=0.5]
 *   eval L1:128 L2:128          # optional: cost of a given allocation
 *   options eq3=path fit=quiet  # optional: readings of the paper
 *   running nodes=0-3,9 comm=0  # optional, repeatable: a running job
 *
 * A leaf's first <busy> nodes are busy, the first <busy_comm> of them with
 * communication-intensive jobs. Leaves without a parent hang under one
 * root; named parents become switches (they may have parents of their own:
 * `switch <name> parent <name>`).
 *
 * `options` takes the words of options.h (eq3=pair|path, ratio=eq1|share,
 * fit=bestfit|quiet, split=halve|pow2, denominator=default1905|default,
 * ranks=taken|index|authors, adaptive_tie=balanced|greedy, ...);
 * keys not given keep the paper's form. One such line at most.
 * A `running` line names a running job's nodes by index: leaves in the
 * order declared, nodes in order within a leaf (leaf L1 of 4 nodes holds
 * 0-3, the next leaf 4-...). Those nodes must be free on their leaf line;
 * they become busy (comm=1: communication-intensive; default 0) and the
 * occupancy records which job holds them (occupancy.h, `job`), which the
 * isolated policy (SC18) needs.
 *
 * A 3D torus (TOFA) instead of leaves:
 *
 *   torus 4 4 1          # dimensions X Y Z; node id = x + X*y + X*Y*z
 *   busy 4,5,11          # busy node ids (repeatable)
 *   risky 1              # node ids with pf = 0.02, the paper's (L705)
 *   pf 1 0.02            # or one node's pf, from 0 to 1 (repeatable)
 *   edge 0 1 1           # the job's graph: process, process, weight
 *   job nodes=4
 *
 * The torus is one leaf switch of all its nodes (Slurm's view of it in
 * the emulated clusters, see docs/policies.md); its nodes are named n<id>.
 * `edge` lines make the job's matrix (one entry per line, processes from
 * 0 to nodes-1; the pair's weight whatever its direction); `busy`, `pf`
 * and `risky` also work on leaves (node indexes as in `running`).
 * Router scenarios, for the NeDD family (nedd.h, policy_nedd.c):
 *
 *   router R0 4 [chassis=<c>] [group=<g>]  # a router and its nodes; node
 *                                          # ids follow declaration order
 *   running nodes=0,2,3 inj=100 start=880            # a job: per-node
 *   running nodes=13,14,15 inj=30 start=500 end=940  # injection, start,
 *                                                    # end (s): ended
 *   running nodes=4-7 app=miniMD                     # by the app's profile
 *   stall R0 20                 # optional: a router's stall count (else
 *                               # the stall model's, nedd.h)
 *   now 1000 window=120         # optional: decision time and window
 *   job nodes=6 class=sensitive # or app=<name>; seed=<n> for random
 *
 * A router is a leaf of its own (under one root); its id is its place
 * among the router lines (ties are broken by it), its chassis id / 16 and
 * its group id / 96 unless given (Aries: 16 routers per chassis; Cori: 6
 * chassis per group). `router` and `leaf` lines do not mix; on a `leaf`
 * scenario each leaf stands for a router. A running line's inj= is its
 * per-node injection; without it app= gives the application's (nedd.h;
 * gpcnet: kernel and canary nodes), and without either the job injects
 * nothing. start= defaults to before the window, end= to still running;
 * a job with end= has ended and holds no node, but its traffic counts in
 * the window. `now` defaults to the latest start= or end= given (0 when
 * none) and the window to the options' (window=120); neither a start nor
 * an end may be after now. The job line also takes app=<name> (the
 * profile table of nedd.h, or any other name: unprofiled),
 * class=sensitive|insensitive (given, the application is not asked) and
 * seed=<n> (0 when not given). The options line also takes the NeDD
 * family's words (nedd_options.h).
 *
 * TreeMatch (IJHPCA 2018; place_cores.h), on `leaf` machines:
 *
 *   cores 2                 # cores per node, all nodes (default 1)
 *   running nodes=3         # busy whole nodes, as above
 *   busycores 0:1 2:1       # node:count of busy cores on partly busy
 *                           # nodes (repeatable; a node once)
 *   pair 0 1 10000          # the job's matrix: rank, rank, volume; each
 *                           # pair once (its affinity w(i,j), both
 *                           # directions together)
 *   job ranks=8 nodes=4     # sbatch -n 8 -N 4: whole nodes, ranks in
 *                           # blocks; without nodes= the job is placed
 *                           # core by core (sbatch -n 8)
 *
 * A partly busy node is busy to the node-level policies (occupancy.h);
 * TreeMatch's core-level strategies use its free cores. `pair` lines
 * without ranks= give one rank per node (ranks = nodes). ranks= and
 * `pair` lines do not go with `eval`, `torus` or `edge` lines.
 */
#ifndef TB_SCENARIO_H
#define TB_SCENARIO_H

#include <stddef.h>

#include "job.h"
#include "matrix.h"
#include "nedd.h"
#include "occupancy.h"
#include "options.h"
#include "topology.h"

#define TB_SCENARIO_MAX_NODES (1 << 20)
/* The longest line, in bytes (a `running` line of a replayed machine's
 * job lists its scattered nodes). */
#define TB_SCENARIO_MAX_LINE (1 << 20)
#define TB_SCENARIO_MAX_CORES 4096

struct tb_scenario {
	struct tb_topology *topo;
	struct tb_occupancy *occ;
	struct tb_job job;
	int has_job;
	int n_eval;		/* nodes of the eval allocation, or 0 */
	int *eval_alloc;
	struct tb_options opts;	/* the paper's form unless an options line */
	int has_options;
	struct tb_matrix *matrix;	/* from edge lines, or NULL */
	/* NeDD: `router` lines given; the running lines as observations;
	 * the decision time. occ->router_traffic holds T (per router, at
	 * now), occ->router_stall the `stall` lines (NaN elsewhere; NULL
	 * when none). */
	int has_routers;
	struct tb_nedd_run *runs;
	int n_runs;
	double now;
	int has_now;
	/* TreeMatch: the job's ranks (ranks=, else nodes when there are
	 * `pair` lines; 0 for a node job) and its line. job.nodes is 0 for
	 * a job placed core by core (ranks= without nodes=). */
	int ranks;
	int job_line;
};

/* Returns 0, or -1 with "<name>:<line>: <reason>" in err. */
int tb_scenario_parse(const char *text, size_t len, const char *name,
		      struct tb_scenario **out, char *err, size_t errlen);
int tb_scenario_load(const char *path, struct tb_scenario **out, char *err,
		     size_t errlen);
void tb_scenario_free(struct tb_scenario *s);
/* T from the runs again, under s->opts (after options changed the window
 * or an injection). 0, or -1 when out of memory. */
int tb_scenario_observe(struct tb_scenario *s);

#endif
