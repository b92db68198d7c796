/*
 * tb-sim, the emulation's twin: an event-driven model of the emulated
 * Slurm (emulated-clusters/generate.py's slurm.conf) scheduling a replay's
 * plan, with the node choice and the runtime models of the policy library
 * (the same calls the plugin makes, plugins/slurm/commtree_eval.c).
 *
 *   sim_plan.c    the replay's plan.tsv (and the jobs' matrices) as jobs
 *   sim_space.c   node bitmaps and backfill's node space (time slices)
 *   sim_place.c   the plugin's snapshot, the policy's choice, the record
 *                 (costs, Eq. 7 / TreeMatch's law) at a job's start
 *   sim_cores.c   core level (a plan's `ranks`, GRANULARITY=core): free
 *                 cores per node, the core choice (Slurm's, modelled, or
 *                 a TreeMatch policy's) and its record, backfill's plan
 *                 of free cores
 *   sim_sched.c   the events: arrivals, ends, the main pass, the run's loop
 *   sim_backfill.c  backfill: Slurm's node space, the pass, the timed
 *                 cycle of SIM_BF_COST, the pass on free cores
 *                 (sim_run.h: the run's state they share)
 *   sim_out.c     one line per job: start, end, nodes, the record
 *
 * Times are log seconds from the plan's origin (offset 0).
 */
#ifndef TB_SIM_H
#define TB_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "../lib/cost.h"
#include "../lib/job.h"
#include "../lib/matrix.h"
#include "../lib/options.h"
#include "../lib/policy.h"
#include "../lib/topology.h"

/* A plan's limit_min of 0 (no limit): Slurm's YEAR_MINUTES, what its
 * backfill plans and records for a job without one (sim_plan.c). */
#define SIM_NO_LIMIT_MIN (365.0 * 24 * 60)

enum sim_state {
	SIM_FUTURE = 0,		/* not eligible yet */
	SIM_PENDING,		/* eligible, queued */
	SIM_RUNNING,
	SIM_DONE,
};

/* How a job ended (sacct's state). */
enum sim_end {
	SIM_COMPLETED = 0,
	SIM_TIMEOUT,		/* its modelled runtime passed its limit */
	SIM_CANCELLED,		/* a PREFILL job still running at the end */
};

struct sim_job {
	char log_id[32];
	double offset;		/* eligible time (log s) */
	double runtime;		/* the log's, x (1 - ta_reduction) */
	double limit;		/* time limit (log s); none: SIM_NO_LIMIT_MIN */
	int nodes;
	int prefill;
	int chain;		/* INDIVIDUAL: 1.. in order, 0 none */
	struct tb_job job;	/* profile for the policies */
	struct tb_matrix *matrix;	/* or NULL */
	int *fixed;		/* nodelist (INDIVIDUAL's occupying jobs) */
	int n_fixed;
	/* Core level (GRANULARITY=core): one-CPU tasks in the partition
	 * `cores` (sbatch -n ranks), 0 for whole nodes. Such a job's alloc
	 * is the node of each rank (ranks entries); on / on_cores its
	 * distinct nodes in index order and its cores on each, n_on. */
	int ranks;
	int *on, *on_cores;
	int n_on;

	/* The run. */
	enum sim_state state;
	enum sim_end how;
	double eligible, start, end;
	int *alloc;		/* nodes in rank order, `nodes` of them */
	enum tb_policy used;	/* the policy that chose (default on fallback) */
	const char *fallback;	/* why the policy's choice did not stand */
	double cost, cost_default, cost_denominator;
	double hop_bytes, hop_bytes_default;
	double *costed;		/* sim_params.costed's costs (NaN: not
				 * placed), or NULL (no record) */
	double runtime_scaled;
	enum tb_runtime_fallback runtime_why;
	double planned;		/* first start backfill planned, or -1 */
	int by_backfill;	/* started by the backfill pass */
};

enum sim_backfill {
	SIM_BF_NONE = 0,
	SIM_BF_SLURM,		/* every tested job reserves (Slurm 24.11) */
	SIM_BF_EASY,		/* only the first blocked job reserves */
};

struct sim_params {
	enum tb_policy policy;
	struct tb_options opts;
	enum sim_backfill backfill;
	double bf_interval;	/* s between backfill passes */
	double bf_window;	/* s backfill plans ahead */
	double bf_resolution;	/* s its plan's times are rounded to */
	int bf_max_job_test;	/* pending jobs one pass considers */
	int default_queue_depth;	/* jobs the main pass considers */
	/* Ours, not Slurm's: log seconds every job runs past its modelled
	 * runtime (within its limit), the emulation's launch and completion
	 * lag, for comparing the twin with it (SIM_LAG); 0 by default. */
	double lag;
	/* Ours, not Slurm's: the emulated backfill's own time (SIM_BF_COST,
	 * docs/simulator.md). bf_cost: log seconds one tested job costs a
	 * backfill cycle (slurmctld's CPU per test x the virtual clock's
	 * rate); 0 (the default): a cycle takes no time, as before. With it
	 * a cycle plans on the state at its start, tests its queue one job
	 * every bf_cost, ignores nodes freed meanwhile (bf_continue's
	 * bf_ignore_node_bitmap), stops once bf_max_time (Slurm's, in log
	 * s; 0: none) has passed, and the next one starts bf_interval after
	 * its end, on a change after its end (backfill.c's _more_work). */
	double bf_cost;
	double bf_max_time;
	/* Ours, not Slurm's: wait_trials 1 models the emulated plugin's
	 * answer to backfill's trials before its fix (commtree_eval.c
	 * _must_wait): a trial whose offer held a node busy now was taken
	 * for a test-only eval, so a wait-trait policy's (isolated) refusal
	 * there fell back to default (tree) and backfill planned the job at
	 * tree's time on tree's nodes; at the start the policy refused
	 * again. 0 (the default): the policy decides every trial, as
	 * Algorithm 1 asks and the plugin now does
	 * (docs/results/2026-11-27-sc18-twin-gap.md). */
	int wait_trials;
	/* Ours: the policies whose own choice's Eq. 6 cost is also recorded
	 * at every start, on the same snapshot (sim_job.costed, in this
	 * order), as the plugin records cost_<policy> of every policy in the
	 * job's AdminComment: what the same-state tables (Figure 8, Table 4's
	 * "same state") read. The plugin costs all; the twin only those asked
	 * for (--costs, SIM_COSTS), each one costs an allocation per job. */
	enum tb_policy costed[TB_POLICY_COUNT];
	int n_costed;
};

/* slurm.conf's values (generate.py): bf_interval=1, bf_resolution=1,
 * bf_max_job_test=1000, default_queue_depth=1000, bf_window default 1440
 * minutes, policy default. */
void sim_params_default(struct sim_params *p);

struct sim_plan {
	int n;
	struct sim_job *jobs;	/* in priority order: the plan's */
	/* sim_run's: the most jobs one backfill pass or cycle reserved nodes
	 * for. Slurm's plan of a cycle (backfill.c's node_space) takes up to
	 * 1 + 2 x that records, and a cycle that fills its bf_node_space_size
	 * (default bf_max_job_test) stops (backfill.c:3531-3555, 24.11.5);
	 * the twin has no such table, so this says whether Slurm's could
	 * fill (docs/results/2026-11-27-backfill-overruns.md, BF_WINDOW). */
	int max_reserved;
};

/* plan.tsv (workloads/replay/run_dir.py's PLAN_FIELDS, by header name);
 * speedup: log seconds per Slurm second (limit_min is in Slurm minutes);
 * matrices: NULL or a file of "<log_id>\t<matrix, ';' between lines>".
 * 0, or -1 with "<file>:<line>: <reason>" in err. */
int sim_plan_load(const char *path, const char *matrices, double speedup,
		  const struct tb_topology *t, struct sim_plan *out,
		  char *err, size_t errlen);
/* The same from plan.tsv's text (path names it in errors); no matrices. */
int sim_plan_parse(const char *text, const char *path, double speedup,
		   const struct tb_topology *t, struct sim_plan *out,
		   char *err, size_t errlen);
void sim_plan_free(struct sim_plan *p);

/* --- node sets and backfill's node space (sim_space.c) --------------- */

struct sim_bits {
	int n;			/* nodes */
	int words;
	uint64_t *w;
};

int sim_bits_init(struct sim_bits *b, int n, int all);
void sim_bits_fini(struct sim_bits *b);
void sim_bits_copy(struct sim_bits *dst, const struct sim_bits *src);
void sim_bits_and(struct sim_bits *dst, const struct sim_bits *src);
int sim_bits_count(const struct sim_bits *b);
/* 1 when every node of a is in b. */
int sim_bits_subset(const struct sim_bits *a, const struct sim_bits *b);
/* The bits of a word, by halves (SWAR): __builtin_popcountll without
 * -mpopcnt is a call into libgcc per word, in the twin's hottest loops. */
static inline int sim_popcount(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555u);
	x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
	return (int)((x * 0x0101010101010101u) >> 56);
}
static inline int sim_bit(const struct sim_bits *b, int i)
{
	return (int)((b->w[i >> 6] >> (i & 63)) & 1u);
}
static inline void sim_bit_set(struct sim_bits *b, int i)
{
	b->w[i >> 6] |= (uint64_t)1 << (i & 63);
}
static inline void sim_bit_clear(struct sim_bits *b, int i)
{
	b->w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

/* Backfill's plan: from each slice's begin to the next one's, the nodes
 * free then (Slurm's node_space_map). The last slice runs to the end. */
struct sim_space {
	int n, cap;
	double *begin;
	struct sim_bits *free;
	int *count;		/* nodes free in each slice */
	struct sim_bits mask;	/* sim_space_take's scratch, all zero */
	int *touched;		/* its words in use */
};

int sim_space_init(struct sim_space *s, const struct sim_bits *free_now,
		   double now);
void sim_space_fini(struct sim_space *s);
/* Takes nodes (a set) from begin to end: slices split at both. 0 or -1
 * (out of memory). */
int sim_space_take(struct sim_space *s, double begin, double end,
		   const int *nodes, int n);
/* The nodes free during all of [begin, end) from slice `from` on, into
 * out; returns how many. Stops as soon as fewer than need are left (out
 * is then not the whole answer). */
int sim_space_free_during(const struct sim_space *s, int from, double end,
			  int need, struct sim_bits *out);
/* The slice beginning at t (split from the one holding it), or -1 (out of
 * memory); with t after the last slice's begin, a copy of it appended. */
int sim_space_append(struct sim_space *s, double t);
/* The nodes free in slice i from now on (that slice only). */
void sim_space_give(struct sim_space *s, int i, const int *nodes, int n);
/* Takes nodes from every slice (a cycle ignores nodes freed during it). */
void sim_space_drop(struct sim_space *s, const int *nodes, int n);

/* --- the run (sim_sched.c, sim_place.c) ------------------------------- */

/* The cluster as the run goes (sim_sched.c keeps it). */
struct sim {
	const struct tb_topology *t;
	const struct sim_params *p;
	struct sim_plan *plan;
	double now;
	int *node_job;		/* job index holding each node, or -1 */
	struct sim_bits free;	/* nodes no job holds */
	int *running;		/* job indexes, n_running of them */
	int n_running;
	struct tb_occupancy *occ;	/* the plugin's snapshot, reused */
	/* What running jobs make of each node for a snapshot: busy or
	 * busy-comm, and the holder's place in running (-1: none). */
	unsigned char *held;
	int *held_job;		/* occ->job itself (occ owns it) */
	int *scratch;		/* t->n_nodes ints */
	/* The snapshot's switch tallies by word masks (occupancy `counts`,
	 * sim_place.c): nodes held by a running comm-intensive job, and each
	 * leaf's nodes as masks over its words leaf_w0[i]..leaf_w1[i] (from
	 * leaf_off[i] in leaf_mask). use_counts 0: the library counts. */
	struct sim_bits comm;
	struct tb_switch_counts counts;
	int use_counts;
	int *leaf_w0, *leaf_w1, *leaf_off;
	uint64_t *leaf_mask;
	/* Core level (a plan with a job of ranks; else cores NULL): free
	 * cores per node (free above: all of them free), and the running
	 * communication-intensive core jobs on each node. */
	int *cores;
	int *core_comm;
	int *core_offer;	/* the snapshot's free_cores (sim_cores.c) */
	/* Set around a backfill trial the plugin would take for a test-only
	 * eval (sim_params.wait_trials); sim_place reads it. */
	int trial_test_only;
};

/* The tallies' masks (sim_place.c); 0 or -1 (out of memory). */
int sim_counts_init(struct sim *s);
void sim_counts_fini(struct sim *s);

/* Keep held / held_job as job idx starts (after it is appended to
 * running) and ends (after its place in running went to the job then at
 * `moved`, -1 if none). */
void sim_hold(struct sim *s, int idx);
void sim_release(struct sim *s, int idx, int moved);

/* What a placement attempt says. */
enum sim_try {
	SIM_PLACED = 0,
	SIM_NO_ROOM,		/* too few nodes, or the policy says wait */
	SIM_ERROR,		/* out of memory */
};

/* The plugin's snapshot (free: the nodes offered) and the policy's choice
 * into alloc (job->nodes). *fallback is set when the policy's choice did
 * not stand and default's was taken (plugin: tree's). */
enum sim_try sim_place(struct sim *s, struct sim_job *j,
		       const struct sim_bits *free, int *alloc,
		       enum tb_policy *used, const char **fallback);
/* The record at the start: the policy's, the default's and the
 * denominator's costs on the same snapshot, hop-bytes, the runtime model.
 * free: the nodes offered, the job's own among them. */
int sim_record(struct sim *s, struct sim_job *j, const struct sim_bits *free);

/* --- core level (sim_cores.c) ---------------------------------------- */

/* The state's core arrays (every node's cores free); 0 or -1. */
int sim_cores_init(struct sim *s);
void sim_cores_fini(struct sim *s);
/* A job of ranks: its cores taken at its start (alloc set), given back at
 * its end; on and on_cores are set by take. 0 or -1 (out of memory). */
int sim_cores_take(struct sim *s, struct sim_job *j);
void sim_cores_give(struct sim *s, const struct sim_job *j);
/* A whole-node job's nodes in and out of the core state (the partition
 * main is OverSubscribe=EXCLUSIVE: a node with a core job is not free). */
void sim_cores_hold_nodes(struct sim *s, const struct sim_job *j, int hold);

/* The choice for a job of ranks on `offer` free cores per node, as
 * topology/commtree's core path makes it (commtree_cores.c): Slurm's
 * choice (tb_tree_cores, our model) first, which must succeed; then a
 * TreeMatch policy's (tb_place_ranks, as make alloc) for a job with a
 * matrix, falling back to Slurm's when it refuses; any other policy, or a
 * job without a matrix, keeps Slurm's (fallback shared_nodes). node_of_rank:
 * j->ranks entries; the hop-bytes of both choices at core level. */
enum sim_try sim_place_cores(struct sim *s, struct sim_job *j,
			     const int *offer, int *node_of_rank,
			     enum tb_policy *used, const char **fallback,
			     double *hop_bytes, double *hop_bytes_default);
/* The record of a job of ranks at its start: TreeMatch's law on the two
 * hop-bytes (tb_treematch_runtime_why), as the plugin's _record. */
void sim_record_cores(struct sim_job *j, double hop_bytes,
		      double hop_bytes_default);

/* Backfill's plan at core level: slices as sim_space's, each with the
 * free cores of every node (Slurm: running core jobs' cores through
 * cons_tres's will-run test, whole nodes in its node_space map). */
struct sim_cspace {
	int n, cap, n_nodes;
	double *begin;
	int **free;		/* free cores per node in each slice */
	long *total;		/* their sum */
};

int sim_cspace_init(struct sim_cspace *c, const int *free_now, int n_nodes,
		    double now);
void sim_cspace_fini(struct sim_cspace *c);
/* The slice beginning at t (split from the one holding it), or -1. */
int sim_cspace_at(struct sim_cspace *c, double t);
/* From slice i on: cores[k] cores of nodes[k] given back (running jobs'
 * ends, in order). */
void sim_cspace_give(struct sim_cspace *c, int i, const int *nodes,
		     const int *cores, int n);
/* Takes cores[k] of nodes[k] (cores NULL: every core) from begin to end.
 * 0 or -1 (out of memory). */
int sim_cspace_take(struct sim_cspace *c, double begin, double end,
		    const int *nodes, const int *cores, int n);
/* Each node's cores free during all of [begin of slice from, end) into
 * out; returns their sum, or less than need as soon as one slice's total
 * says so (out is then not the whole answer). */
long sim_cspace_free_during(const struct sim_cspace *c, int from, double end,
			    long need, int *out);

/* Runs the plan to its end; 0, or -1 with a reason in err. */
int sim_run(const struct tb_topology *t, struct sim_plan *plan,
	    const struct sim_params *p, char *err, size_t errlen);

/* --- output (sim_out.c) ------------------------------------------------ */

/* One header line, then one line per job (sim_out.c lists the columns). */
int sim_write(FILE *f, const struct tb_topology *t,
	      const struct sim_plan *plan, const struct sim_params *p);

#endif
