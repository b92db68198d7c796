/*
 * The twin's run state, shared by its scheduler (sim_sched.c: events, the
 * main pass, the run's loop) and its backfill (sim_backfill.c: Slurm's
 * node space, the pass that takes no time, the timed cycle of
 * SIM_BF_COST, and the core-level pass). Internal to plugins/sim.
 */
#ifndef TB_SIM_RUN_H
#define TB_SIM_RUN_H

#include <math.h>

#include "sim.h"

/* --- a min-heap of job ends ------------------------------------------ */

struct end_ev {
	double t;
	int job;
};

struct heap {
	int n, cap;
	struct end_ev *v;
};

/* --- the run's state --------------------------------------------------- */

/* A backfill cycle that takes time (sim_params bf_cost > 0): the node
 * space and the queue as they were at its start, and how far it got. */
struct cycle {
	int active;
	double t0;		/* its start */
	struct sim_space sp;
	int *order;		/* the queue at t0, in priority order */
	int n, q;		/* its length; the next to look at */
	int tested;		/* jobs tested so far (each costs bf_cost) */
	int reserved;		/* SIM_BF_EASY: reservations made */
};

static inline double round_up(double t, double res)
{
	return res > 0 ? ceil(t / res - 1e-9) * res : t;
}

struct run {
	struct sim s;
	struct heap ends;
	int *arrivals;		/* job indexes by eligible time */
	int next_arrival;
	int *queue;		/* pending job indexes, in priority order */
	int n_queue;
	int *alloc;		/* scratch for a placement */
	struct sim_bits bits;	/* scratch node set */
	int window_left;	/* the window's (non-prefill) jobs not done */
	int prefill_total, prefill_started;
	int chain_next;		/* the chain job that may become eligible */
	int has_chain;		/* INDIVIDUAL: the plan has a chain */
	int changed;		/* since the last backfill pass */
	double last_bf;
	/* Core level (sim_cores.c): a plan with a job of ranks. */
	int core_mode;
	int *offer;		/* free cores per node, scratch */
	int *node_cores;	/* every node's cores */
	double hb, hbd;		/* the last core placement's hop-bytes */
	struct cycle cyc;	/* bf_cost > 0 */
};

/* sim_sched.c: job idx starts now on r->alloc, by the main pass or by
 * backfill: the record on the state it was placed on (offered: those
 * nodes), then its nodes are taken. 0 or -1 (out of memory). */
int sim_start_job(struct run *r, int idx, enum tb_policy used,
		  const char *fallback, const struct sim_bits *offered,
		  int by_backfill);

/* sim_backfill.c: one pass that takes no time (bf_cost 0); a timed
 * cycle's start, its tests due by now, and when its next test is done. */
int sim_backfill_pass(struct run *r);
int sim_cycle_begin(struct run *r);
int sim_cycle_step(struct run *r);
double sim_cycle_next(const struct run *r);

#endif
