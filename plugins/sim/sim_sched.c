/*
 * The twin's scheduler, as the emulated Slurm is configured
 * (emulated-clusters/generate.py: sched/backfill, bf_interval=1,
 * bf_resolution=1, bf_max_job_test=1000, default_queue_depth=1000, the
 * default bf_window of 1440 min; priorities in log order, so FIFO):
 *
 *   events     a job's eligible time (its --begin), a job's end (start +
 *              its modelled runtime, cut at its limit), a backfill tick;
 *              at one instant: ends first, then arrivals, then the main
 *              pass, then backfill if bf_interval has passed since the
 *              last one (else at that moment);
 *   main pass  the queue in priority order; each job on the free nodes;
 *              the first that cannot start blocks the rest (Slurm's main
 *              scheduler stops at a partition's first blocked job);
 *   backfill   Slurm's node space: running jobs hold their nodes to start
 *              + limit; each queued job in priority order takes the
 *              earliest slice (within bf_window) where the policy places
 *              it on the nodes free for its whole limit: now, it starts;
 *              later, those nodes are reserved for it (Slurm reserves for
 *              every job it tests; SIM_BF_EASY only for the first).
 *
 * INDIVIDUAL's chain: job 1 after every occupying (prefill) job started,
 * each next after the one before ended. PREFILL's jobs still running when
 * the window's last job ends are cancelled then (the replay's end_prefill).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_run.h"

void sim_params_default(struct sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->policy = TB_POLICY_DEFAULT;
	p->opts = tb_options_default();
	p->backfill = SIM_BF_SLURM;
	p->bf_interval = 1;
	p->bf_window = 1440 * 60;
	p->bf_resolution = 1;
	p->bf_max_job_test = 1000;
	p->default_queue_depth = 1000;
}

/* --- a min-heap of job ends ------------------------------------------ */

static int before(const struct end_ev *a, const struct end_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static int heap_push(struct heap *h, double t, int job)
{
	int i;

	if (h->n == h->cap) {
		int cap = h->cap ? 2 * h->cap : 256;
		struct end_ev *v = realloc(h->v, sizeof(*v) * (size_t)cap);
		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	h->v[i] = (struct end_ev) { t, job };
	while (i > 0 && before(&h->v[i], &h->v[(i - 1) / 2])) {
		struct end_ev x = h->v[i];
		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct end_ev heap_pop(struct heap *h)
{
	struct end_ev top = h->v[0];
	int i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && before(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && before(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		struct end_ev x = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = x;
		i = m;
	}
	return top;
}

/* --- the run's state --------------------------------------------------- */

struct arrival {
	double offset;
	int job;
};

static int by_offset(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->job - y->job;
}

static int enqueue(struct run *r, int idx)
{
	int lo = 0, hi = r->n_queue;
	struct sim_job *j = &r->s.plan->jobs[idx];

	j->state = SIM_PENDING;
	j->eligible = r->s.now;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (r->queue[mid] < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&r->queue[lo + 1], &r->queue[lo],
		sizeof(int) * (size_t)(r->n_queue - lo));
	r->queue[lo] = idx;
	r->n_queue++;
	r->changed = 1;
	return 0;
}

static void dequeue(struct run *r, int idx)
{
	for (int q = 0; q < r->n_queue; q++)
		if (r->queue[q] == idx) {
			memmove(&r->queue[q], &r->queue[q + 1],
				sizeof(int) * (size_t)(r->n_queue - q - 1));
			r->n_queue--;
			return;
		}
}

/* INDIVIDUAL: the chain's next job, when its dependency is met. */
static void release_chain(struct run *r)
{
	struct sim_plan *p = r->s.plan;

	if (!r->has_chain)
		return;
	for (int i = 0; i < p->n; i++) {
		struct sim_job *j = &p->jobs[i];

		if (j->chain != r->chain_next || j->state != SIM_FUTURE ||
		    j->offset > r->s.now)
			continue;
		if (j->chain == 1 && r->prefill_started < r->prefill_total)
			return;
		if (j->chain > 1) {
			for (int k = 0; k < p->n; k++)
				if (p->jobs[k].chain == j->chain - 1 &&
				    p->jobs[k].state != SIM_DONE)
					return;
		}
		enqueue(r, i);
		r->chain_next++;
		return;
	}
}

/* Starts job idx on r->alloc now: the record on the state it was placed
 * on (offered: those nodes), then its nodes are taken. */
int sim_start_job(struct run *r, int idx, enum tb_policy used,
		  const char *fallback, const struct sim_bits *offered,
		  int by_backfill)
{
	struct sim *s = &r->s;
	struct sim_job *j = &s->plan->jobs[idx];
	double run;

	int n = j->ranks ? j->ranks : j->nodes;

	j->alloc = malloc(sizeof(int) * (size_t)n);
	if (!j->alloc)
		return -1;
	memcpy(j->alloc, r->alloc, sizeof(int) * (size_t)n);
	j->used = used;
	j->fallback = fallback;
	j->by_backfill = by_backfill;
	if (j->ranks) {
		/* Core level: the record of the placement just made. */
		sim_record_cores(j, r->hb, r->hbd);
		if (sim_cores_take(s, j))
			return -1;
		s->running[s->n_running++] = idx;
	} else {
		if (sim_record(s, j, offered))
			return -1;
		for (int k = 0; k < j->nodes; k++) {
			s->node_job[j->alloc[k]] = idx;
			sim_bit_clear(&s->free, j->alloc[k]);
		}
		s->running[s->n_running++] = idx;
		sim_hold(s, idx);
		if (r->core_mode)
			sim_cores_hold_nodes(s, j, 1);
	}
	j->state = SIM_RUNNING;
	j->start = s->now;
	run = j->runtime_scaled + s->p->lag;
	j->how = SIM_COMPLETED;
	if (run > j->limit) {
		run = j->limit;
		j->how = SIM_TIMEOUT;
	}
	j->end = s->now + run;
	if (j->prefill)
		r->prefill_started++;
	dequeue(r, idx);
	r->changed = 1;
	/* A cycle under way plans around a job the main pass started (its
	 * select plugin sees it running to its limit); its own starts it
	 * takes itself. */
	if (r->cyc.active && !by_backfill &&
	    sim_space_take(&r->cyc.sp, s->now,
			   s->now + round_up(j->limit, s->p->bf_resolution),
			   j->alloc, j->nodes))
		return -1;
	return heap_push(&r->ends, j->end, idx);
}

static void finish(struct run *r, int idx, enum sim_end how)
{
	struct sim *s = &r->s;
	struct sim_job *j = &s->plan->jobs[idx];

	if (j->ranks) {
		sim_cores_give(s, j);
	} else {
		for (int k = 0; k < j->nodes; k++) {
			s->node_job[j->alloc[k]] = -1;
			sim_bit_set(&s->free, j->alloc[k]);
		}
		if (r->core_mode)
			sim_cores_hold_nodes(s, j, 0);
	}
	for (int q = 0; q < s->n_running; q++)
		if (s->running[q] == idx) {
			s->running[q] = s->running[--s->n_running];
			sim_release(s, idx, q < s->n_running ? q : -1);
			break;
		}
	j->state = SIM_DONE;
	if (how == SIM_CANCELLED) {
		j->how = how;
		j->end = s->now;
	}
	if (!j->prefill)
		r->window_left--;
	/* Nodes freed during a cycle are not its to use (bf_continue's
	 * bf_ignore_node_bitmap, node_mgr.c's make_node_avail). */
	if (r->cyc.active)
		sim_space_drop(&r->cyc.sp, j->alloc, j->nodes);
	r->changed = 1;
}

/* The main pass: FIFO until the first job that cannot start. */
static int main_pass(struct run *r)
{
	struct sim *s = &r->s;
	int depth = 0;

	while (r->n_queue > 0 && depth++ < s->p->default_queue_depth) {
		int idx = r->queue[0];
		struct sim_job *j = &s->plan->jobs[idx];
		enum tb_policy used;
		const char *fb;
		enum sim_try t = j->ranks ?
			sim_place_cores(s, j, s->cores, r->alloc, &used, &fb,
					&r->hb, &r->hbd) :
			sim_place(s, j, &s->free, r->alloc, &used, &fb);

		if (t == SIM_ERROR)
			return -1;
		if (t != SIM_PLACED)
			return 0;
		sim_bits_copy(&r->bits, &s->free);
		if (sim_start_job(r, idx, used, fb, &r->bits, 0))
			return -1;
	}
	return 0;
}

static void run_fini(struct run *r)
{
	if (r->cyc.active) {
		sim_space_fini(&r->cyc.sp);
		free(r->cyc.order);
	}
	free(r->ends.v);
	free(r->arrivals);
	free(r->queue);
	free(r->alloc);
	sim_bits_fini(&r->bits);
	sim_bits_fini(&r->s.free);
	free(r->s.node_job);
	free(r->s.running);
	free(r->s.scratch);
	free(r->s.held);
	tb_occupancy_free(r->s.occ);
	sim_counts_fini(&r->s);
	sim_cores_fini(&r->s);
	free(r->offer);
	free(r->node_cores);
}

static int run_init(struct run *r, const struct tb_topology *t,
		    struct sim_plan *plan, const struct sim_params *p)
{
	int n = t->n_nodes, jobs = plan->n ? plan->n : 1, slots = n;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < plan->n; i++) {
		r->core_mode |= plan->jobs[i].ranks > 0;
		slots = plan->jobs[i].ranks > slots ? plan->jobs[i].ranks :
						      slots;
	}
	r->s.t = t;
	r->s.p = p;
	r->s.plan = plan;
	r->s.node_job = malloc(sizeof(int) * (size_t)n);
	r->s.running = malloc(sizeof(int) * (size_t)jobs);
	r->s.scratch = malloc(sizeof(int) * (size_t)n);
	r->s.occ = tb_occupancy_new(n);
	r->s.held = malloc((size_t)n);
	r->arrivals = malloc(sizeof(int) * (size_t)jobs);
	r->queue = malloc(sizeof(int) * (size_t)jobs);
	r->alloc = malloc(sizeof(int) * (size_t)(slots ? slots : 1));
	if (!r->s.node_job || !r->s.held || !r->s.running ||
	    !r->s.scratch || !r->s.occ || !r->arrivals || !r->queue || !r->alloc ||
	    sim_bits_init(&r->s.free, n, 1) || sim_bits_init(&r->bits, n, 0))
		return -1;
	/* held_job is the snapshot's own `job` (the occupancy frees it):
	 * the running jobs' ids change only as jobs start and end. */
	if (!(r->s.occ->job = malloc(sizeof(int) * (size_t)n)) ||
	    sim_counts_init(&r->s))
		return -1;
	if (r->core_mode) {
		r->offer = malloc(sizeof(int) * (size_t)(n ? n : 1));
		r->node_cores = malloc(sizeof(int) * (size_t)(n ? n : 1));
		if (!r->offer || !r->node_cores || sim_cores_init(&r->s))
			return -1;
		for (int k = 0; k < n; k++)
			r->node_cores[k] = t->nodes[k].cores;
	}
	r->s.held_job = r->s.occ->job;
	for (int k = 0; k < n; k++) {
		r->s.node_job[k] = -1;
		r->s.held[k] = TB_NODE_BUSY;
		r->s.held_job[k] = -1;
	}
	struct arrival *order = malloc(sizeof(*order) * (size_t)jobs);

	if (!order)
		return -1;
	for (int i = 0; i < plan->n; i++) {
		struct sim_job *j = &plan->jobs[i];

		order[i] = (struct arrival) { j->offset, i };
		j->state = SIM_FUTURE;
		j->start = j->end = j->eligible = NAN;
		free(j->alloc);
		j->alloc = NULL;
		free(j->on);
		free(j->on_cores);
		j->on = j->on_cores = NULL;
		j->n_on = 0;
		j->planned = -1;
		r->has_chain |= j->chain > 0;
		if (j->prefill)
			r->prefill_total++;
		else
			r->window_left++;
	}
	qsort(order, (size_t)plan->n, sizeof(*order), by_offset);
	for (int i = 0; i < plan->n; i++)
		r->arrivals[i] = order[i].job;
	free(order);
	r->chain_next = 1;
	r->last_bf = -INFINITY;
	return 0;
}

int sim_run(const struct tb_topology *t, struct sim_plan *plan,
	    const struct sim_params *p, char *err, size_t errlen)
{
	struct run r;
	int rc = -1, never = 0;

	plan->max_reserved = 0;
	if (run_init(&r, t, plan, p)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* The timed cycle plans on node bitmaps only (sim_space). */
	if (r.core_mode && p->bf_cost > 0 && p->backfill != SIM_BF_NONE) {
		snprintf(err, errlen, "--bf-cost %g: a timed backfill cycle is "
			 "modelled at node level only; expected 0 for a plan "
			 "of cores", p->bf_cost);
		goto out;
	}
	for (;;) {
		double next = INFINITY;
		int bf_due;

		if (r.next_arrival < plan->n)
			next = plan->jobs[r.arrivals[r.next_arrival]].offset;
		if (r.ends.n && r.ends.v[0].t < next)
			next = r.ends.v[0].t;
		bf_due = p->backfill != SIM_BF_NONE && r.changed &&
			 r.n_queue > 0 && !r.cyc.active;
		if (bf_due && r.last_bf + p->bf_interval < next)
			next = fmax(r.last_bf + p->bf_interval, r.s.now);
		if (r.cyc.active && sim_cycle_next(&r) < next)
			next = fmax(sim_cycle_next(&r), r.s.now);
		if (!isfinite(next))
			break;
		r.s.now = next;
		while (r.ends.n && r.ends.v[0].t <= r.s.now) {
			struct end_ev e = heap_pop(&r.ends);

			if (plan->jobs[e.job].state == SIM_RUNNING)
				finish(&r, e.job, SIM_COMPLETED);
		}
		while (r.next_arrival < plan->n &&
		       plan->jobs[r.arrivals[r.next_arrival]].offset <= r.s.now) {
			int idx = r.arrivals[r.next_arrival++];

			if (!plan->jobs[idx].chain)
				enqueue(&r, idx);
		}
		release_chain(&r);
		if (main_pass(&r))
			goto oom;
		release_chain(&r);
		if (r.cyc.active) {
			if (sim_cycle_step(&r))
				goto oom;
			release_chain(&r);
		}
		if (p->backfill != SIM_BF_NONE && r.changed && r.n_queue > 0 &&
		    !r.cyc.active &&
		    r.s.now >= r.last_bf + p->bf_interval - 1e-9) {
			if (p->bf_cost > 0) {
				if (sim_cycle_begin(&r))
					goto oom;
			} else {
				r.changed = 0;
				r.last_bf = r.s.now;
				if (sim_backfill_pass(&r))
					goto oom;
				release_chain(&r);
			}
		} else if (p->backfill == SIM_BF_NONE || r.n_queue == 0) {
			r.changed = 0;
		}
		/* The replay cancels PREFILL's jobs once the window's have
		 * all ended. */
		if (r.window_left == 0 && r.prefill_total) {
			for (int q = r.s.n_running - 1; q >= 0; q--)
				finish(&r, r.s.running[q], SIM_CANCELLED);
			for (int q = r.n_queue - 1; q >= 0; q--)
				plan->jobs[r.queue[q]].state = SIM_DONE;
			r.n_queue = 0;
			r.ends.n = 0;
			r.prefill_total = 0;
		}
	}
	for (int i = 0; i < plan->n; i++)
		never += plan->jobs[i].state != SIM_DONE;
	if (never) {
		int i = 0;

		while (plan->jobs[i].state == SIM_DONE)
			i++;
		snprintf(err, errlen, "%d jobs never started (first: log job "
			 "%s, %d nodes): the policy never placed them",
			 never, plan->jobs[i].log_id, plan->jobs[i].nodes);
		goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	run_fini(&r);
	return rc;
}
