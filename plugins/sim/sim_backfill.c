/*
 * The twin's backfill (sim_run.h), as the emulated Slurm's sched/backfill
 * plans: running jobs hold their nodes to start + limit, each queued job
 * in priority order takes the earliest slice within bf_window where the
 * policy places it on nodes free for its whole limit (now: it starts;
 * later: those nodes are reserved for it). A pass that takes no time, the
 * timed cycle of SIM_BF_COST (ours, docs/simulator.md), and the same pass
 * on free cores at core level.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_run.h"

struct run_end {
	double end;
	int job;
};

static int by_end(const void *a, const void *b)
{
	const struct run_end *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->job - y->job;
}

/* When backfill sees the running jobs end: start + limit, rounded up to
 * bf_resolution (one step on when that has passed), sorted by that end,
 * then job index; malloc'd (*n of them), NULL when out of memory. */
static struct run_end *running_ends(const struct run *r, int *n)
{
	const struct sim *s = &r->s;
	const struct sim_params *p = s->p;
	struct run_end *e;

	*n = s->n_running;
	if (!(e = malloc(sizeof(*e) * (size_t)(*n ? *n : 1))))
		return NULL;
	for (int q = 0; q < *n; q++) {
		const struct sim_job *j = &s->plan->jobs[s->running[q]];
		double end = round_up(j->start + j->limit, p->bf_resolution);

		if (end <= s->now)
			end = s->now + p->bf_resolution;
		e[q] = (struct run_end) { end, s->running[q] };
	}
	qsort(e, (size_t)*n, sizeof(*e), by_end);
	return e;
}

/* A copy of the queue (starting a job changes it); NULL when out of
 * memory. */
static int *queue_copy(const struct run *r)
{
	int n = r->n_queue, *order = malloc(sizeof(int) * (size_t)(n ? n : 1));

	if (order)
		memcpy(order, r->queue, sizeof(int) * (size_t)n);
	return order;
}

/* Backfill's node space at its start: running jobs hold their nodes to
 * their ends (running_ends). Slice 0 is the nodes free now; each distinct
 * end begins a slice with the nodes of the jobs ending then given back:
 * the space taking each job from now to its end would make, in one pass
 * over the ends instead of one over the slices per job. */
static int space_of_running(struct run *r, struct sim_space *sp)
{
	struct sim *s = &r->s;
	int n, i = 0;
	struct run_end *e = running_ends(r, &n);

	if (!e || sim_space_init(sp, &s->free, s->now)) {
		free(e);
		return -1;
	}
	for (int q = 0; q < n; q++) {
		const struct sim_job *j = &s->plan->jobs[e[q].job];

		if (q == 0 || e[q].end != e[q - 1].end)
			i = sim_space_append(sp, e[q].end);
		if (i < 0) {
			free(e);
			sim_space_fini(sp);
			return -1;
		}
		sim_space_give(sp, i, j->alloc, j->nodes);
	}
	free(e);
	return 0;
}

/* Core level: the same pass on backfill's plan of free cores. */
static int backfill_pass_cores(struct run *r);

/* The plan's max_reserved: the most reservations of one pass or cycle. */
static void note_reserved(struct run *r, int reserved)
{
	if (reserved > r->s.plan->max_reserved)
		r->s.plan->max_reserved = reserved;
}

/* Backfill's test of queued job idx on the node space sp, from slice
 * `from` (beginning now) on: the earliest slice within bf_window where the
 * policy places it on the nodes free for its whole limit. Now: it starts;
 * later: those nodes are reserved for it (*reserved counts them; EASY
 * stops trying later slices once it is not 0). live: AND the nodes free
 * now with the twin's own (a cycle's space does not see what the main
 * pass started before the cycle knew of it). 0 or -1 (out of memory). */
static int bf_test(struct run *r, struct sim_space *sp, int from, int idx,
		   int *reserved, int live)
{
	struct sim *s = &r->s;
	const struct sim_params *p = s->p;
	struct sim_job *j = &s->plan->jobs[idx];
	double horizon = s->now + p->bf_window;
	double limit = round_up(j->limit, p->bf_resolution);
	enum tb_policy used = TB_POLICY_DEFAULT;
	const char *fb = NULL;
	int found = -1, test_only = 0;

	for (int i = from; i < sp->n && sp->begin[i] <= horizon; i++) {
		enum sim_try t;

		/* EASY: after the first reservation, only now. */
		if (i > from && p->backfill == SIM_BF_EASY && *reserved)
			break;
		if (sim_space_free_during(sp, i, sp->begin[i] + limit,
					  j->nodes, &r->bits) < j->nodes)
			continue;
		if (live && i == from) {
			sim_bits_and(&r->bits, &s->free);
			if (sim_bits_count(&r->bits) < j->nodes)
				continue;
		}
		/* wait_trials 1: the plugin's _test_only holds for an offer
		 * with a node busy now (not in the idle bitmap). */
		s->trial_test_only = p->wait_trials &&
				     !sim_bits_subset(&r->bits, &s->free);
		t = sim_place(s, j, &r->bits, r->alloc, &used, &fb);
		test_only = s->trial_test_only;
		s->trial_test_only = 0;
		if (t == SIM_ERROR)
			return -1;
		if (t == SIM_PLACED) {
			found = i;
			break;
		}
	}
	if (found < 0)
		return 0;
	/* A test-only trial's placement now: the start's eval is not a
	 * test, the policy refuses it there, and the job waits. */
	if (found == from && test_only && used == TB_POLICY_DEFAULT)
		return 0;
	if (found == from)
		return sim_start_job(r, idx, used, fb, &r->bits, 1) ||
		       sim_space_take(sp, s->now, s->now + limit,
				      j->alloc, j->nodes) ? -1 : 0;
	if (j->planned < 0)
		j->planned = sp->begin[found];
	(*reserved)++;
	return sim_space_take(sp, sp->begin[found], sp->begin[found] + limit,
			      r->alloc, j->nodes);
}

/* One backfill pass that takes no time (bf_cost 0): the whole queue
 * tested on the state of this instant. */
int sim_backfill_pass(struct run *r)
{
	struct sim *s = &r->s;
	const struct sim_params *p = s->p;
	struct sim_space sp;
	int tested = 0, reserved = 0, rc = -1;

	if (r->core_mode)
		return backfill_pass_cores(r);
	if (space_of_running(r, &sp))
		return -1;
	int n = r->n_queue, *order = queue_copy(r);
	if (!order)
		goto out;
	for (int q = 0; q < n && tested < p->bf_max_job_test; q++) {
		tested++;
		if (bf_test(r, &sp, 0, order[q], &reserved, 0)) {
			free(order);
			goto out;
		}
	}
	free(order);
	note_reserved(r, reserved);
	rc = 0;
out:
	sim_space_fini(&sp);
	return rc;
}

/* Core level: backfill's plan of free cores at its start, as
 * space_of_running's of nodes: running jobs give their cores (a whole-node
 * job all of its nodes') back at start + limit. */
static int cspace_of_running(struct run *r, struct sim_cspace *cs)
{
	struct sim *s = &r->s;
	int n, i = 0;
	struct run_end *e = running_ends(r, &n);

	if (!e || sim_cspace_init(cs, s->cores, s->t->n_nodes, s->now)) {
		free(e);
		return -1;
	}
	for (int q = 0; q < n; q++) {
		const struct sim_job *j = &s->plan->jobs[e[q].job];

		if (q == 0 || e[q].end != e[q - 1].end)
			i = sim_cspace_at(cs, e[q].end);
		if (i < 0) {
			free(e);
			sim_cspace_fini(cs);
			return -1;
		}
		if (j->ranks) {
			sim_cspace_give(cs, i, j->on, j->on_cores, j->n_on);
		} else {
			for (int k = 0; k < j->nodes; k++)
				r->offer[k] = r->node_cores[j->alloc[k]];
			sim_cspace_give(cs, i, j->alloc, r->offer, j->nodes);
		}
	}
	free(e);
	return 0;
}

/* Whether job j can be placed from slice i for its whole limit: its
 * choice into r->alloc (and r->bits, the nodes offered, for a whole-node
 * job: those with every core free). */
static enum sim_try cores_try(struct run *r, struct sim_cspace *cs, int i,
			      double limit, struct sim_job *j,
			      enum tb_policy *used, const char **fb)
{
	struct sim *s = &r->s;
	int whole = 0;

	if (j->ranks) {
		if (sim_cspace_free_during(cs, i, cs->begin[i] + limit,
					   j->ranks, r->offer) < j->ranks)
			return SIM_NO_ROOM;
		return sim_place_cores(s, j, r->offer, r->alloc, used, fb,
				       &r->hb, &r->hbd);
	}
	if (sim_cspace_free_during(cs, i, cs->begin[i] + limit, j->nodes,
				   r->offer) < j->nodes)
		return SIM_NO_ROOM;
	memset(r->bits.w, 0, sizeof(uint64_t) * (size_t)r->bits.words);
	for (int k = 0; k < s->t->n_nodes; k++)
		if (r->node_cores[k] > 0 && r->offer[k] >= r->node_cores[k]) {
			sim_bit_set(&r->bits, k);
			whole++;
		}
	if (whole < j->nodes)
		return SIM_NO_ROOM;
	return sim_place(s, j, &r->bits, r->alloc, used, fb);
}

static int backfill_pass_cores(struct run *r)
{
	struct sim *s = &r->s;
	const struct sim_params *p = s->p;
	struct sim_cspace cs;
	double horizon = s->now + p->bf_window;
	int tested = 0, reserved = 0, rc = -1, n = r->n_queue, *order;

	if (cspace_of_running(r, &cs))
		return -1;
	if (!(order = queue_copy(r)))
		goto out;
	for (int q = 0; q < n && tested < p->bf_max_job_test; q++) {
		int idx = order[q];
		struct sim_job *j = &s->plan->jobs[idx];
		double limit = round_up(j->limit, p->bf_resolution);
		enum tb_policy used = TB_POLICY_DEFAULT;
		const char *fb = NULL;
		int found = -1;

		tested++;
		for (int i = 0; i < cs.n && cs.begin[i] <= horizon; i++) {
			enum sim_try t;

			if (i > 0 && p->backfill == SIM_BF_EASY && reserved)
				break;
			t = cores_try(r, &cs, i, limit, j, &used, &fb);
			if (t == SIM_ERROR)
				goto out;
			if (t == SIM_PLACED) {
				found = i;
				break;
			}
		}
		if (found < 0)
			continue;
		if (found == 0) {
			/* Started now: it holds its cores (a whole-node job
			 * its nodes) to now + its limit. */
			if (sim_start_job(r, idx, used, fb, &r->bits, 1) ||
			    (j->ranks ?
			     sim_cspace_take(&cs, s->now, s->now + limit, j->on,
					     j->on_cores, j->n_on) :
			     sim_cspace_take(&cs, s->now, s->now + limit,
					     j->alloc, NULL, j->nodes)))
				goto out;
			continue;
		}
		if (j->planned < 0)
			j->planned = cs.begin[found];
		reserved++;
		/* Planned later: Slurm's node_space loses the planned nodes
		 * whole (_add_reservation), a job of ranks' too. */
		if (sim_cspace_take(&cs, cs.begin[found],
				    cs.begin[found] + limit, r->alloc, NULL,
				    j->ranks ? j->ranks : j->nodes))
			goto out;
	}
	note_reserved(r, reserved);
	rc = 0;
out:
	free(order);
	sim_cspace_fini(&cs);
	return rc;
}

/* --- a backfill cycle that takes time (bf_cost > 0) -------------------- */

/* When the cycle's next test is done: each costs bf_cost. */
double sim_cycle_next(const struct run *r)
{
	return r->cyc.t0 + (r->cyc.tested + 1) * r->s.p->bf_cost;
}

static void cycle_end(struct run *r)
{
	note_reserved(r, r->cyc.reserved);
	sim_space_fini(&r->cyc.sp);
	free(r->cyc.order);
	r->cyc.order = NULL;
	r->cyc.active = 0;
	/* backfill.c: last_backfill_time is the cycle's end, and only a
	 * change after it (_more_work) starts the next one. */
	r->last_bf = r->s.now;
	r->changed = 0;
}

int sim_cycle_begin(struct run *r)
{
	struct cycle *c = &r->cyc;
	int n = r->n_queue;

	if (space_of_running(r, &c->sp))
		return -1;
	c->order = queue_copy(r);
	if (!c->order) {
		sim_space_fini(&c->sp);
		return -1;
	}
	c->n = n;
	c->q = 0;
	c->tested = 0;
	c->reserved = 0;
	c->t0 = r->s.now;
	c->active = 1;
	r->changed = 0;
	return 0;
}

/* The tests due by now, then the cycle's end if nothing is left to test,
 * bf_max_job_test is reached or bf_max_time has passed (backfill.c checks
 * it before each job). */
int sim_cycle_step(struct run *r)
{
	struct cycle *c = &r->cyc;
	const struct sim_params *p = r->s.p;

	while (c->active) {
		/* Jobs the main pass started meanwhile are skipped at no
		 * cost (_job_runnable_now). */
		while (c->q < c->n &&
		       r->s.plan->jobs[c->order[c->q]].state != SIM_PENDING)
			c->q++;
		if (c->q == c->n || c->tested >= p->bf_max_job_test ||
		    (p->bf_max_time > 0 &&
		     c->tested * p->bf_cost >= p->bf_max_time - 1e-9)) {
			cycle_end(r);
			break;
		}
		if (sim_cycle_next(r) > r->s.now + 1e-9)
			break;
		int from = sim_space_append(&c->sp, r->s.now);

		if (from < 0)
			return -1;
		c->tested++;
		if (bf_test(r, &c->sp, from, c->order[c->q++], &c->reserved, 1))
			return -1;
	}
	return 0;
}
