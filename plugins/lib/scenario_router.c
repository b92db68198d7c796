/* NeDD's scenario lines (router, stall, now; scenario.h), the decision
 * time, and the running lines as NeDD's observations (scenario_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nedd.h"
#include "scenario_internal.h"
#include "textfile.h"

/* router <name> <nodes> [chassis=<c>] [group=<g>]: a dragonfly router (a
 * leaf of its own under the root) and its nodes; its id is its place
 * among the router lines, its chassis id / 16 and group id / 96 unless
 * given (Aries: 16 routers per chassis, Cori: 6 chassis per group). */
int tb_scn_router_line(struct builder *b, char **w, int n)
{
	char *lw[5], zero[] = "0";
	struct leaf_line *l;
	int id = b->n_router_lines;

	if (n < 3 || n > 5)
		return tb_scn_fail(b, "expected 'router <name> <nodes> [chassis=<c>] [group=<g>]'");
	lw[0] = w[0];
	lw[1] = w[1];
	lw[2] = w[2];
	lw[3] = lw[4] = zero;
	if (tb_scn_leaf_line(b, lw, 5))
		return -1;
	l = &b->leaves[b->n_leaves - 1];
	l->router = 1;
	l->chassis = id / 16;
	l->group = id / 96;
	for (int i = 3; i < n; i++) {
		char *eq = strchr(w[i], '=');
		int *field = NULL;

		if (eq) {
			*eq++ = '\0';
			if (!strcmp(w[i], "chassis"))
				field = &l->chassis;
			else if (!strcmp(w[i], "group"))
				field = &l->group;
		}
		if (!field)
			return tb_scn_fail(b, "router %s: expected chassis=<c> or group=<g>, got '%s'",
					   w[1], w[i]);
		if (tb_parse_int(eq, 0, 1000000000, field))
			return tb_scn_fail(b, "router %s: %s='%s' is not a number from 0 to 1000000000",
					   w[1], w[i], eq);
	}
	b->n_router_lines++;
	return 0;
}

/* stall <router> <count>: the router's observed stall count (NeDD's
 * low-stall); routers without one get the stall model's (nedd.h). */
int tb_scn_stall_line(struct builder *b, char **w, int n)
{
	struct stall_line *st, *ns;

	if (n != 3)
		return tb_scn_fail(b, "expected 'stall <router> <count>'");
	ns = realloc(b->stalls, sizeof(*ns) * (size_t)(b->n_stalls + 1));
	if (!ns)
		return tb_scn_fail(b, "out of memory");
	b->stalls = ns;
	st = &b->stalls[b->n_stalls];
	if (strlen(w[1]) >= sizeof(st->router))
		return tb_scn_fail(b,
				   "stall: router name longer than 63 characters");
	snprintf(st->router, sizeof(st->router), "%s", w[1]);
	if (tb_scn_parse_num(w[2], 0, 1e300, &st->count))
		return tb_scn_fail(b, "stall %s: '%s' is not a number >= 0", w[1], w[2]);
	st->line = b->line;
	b->n_stalls++;
	return 0;
}

/* now <seconds> [window=<seconds>]: NeDD's decision time and window. */
int tb_scn_now_line(struct builder *b, char **w, int n)
{
	if (b->has_now)
		return tb_scn_fail(b, "a second 'now' line");
	if (n < 2 || n > 3)
		return tb_scn_fail(b,
				   "expected 'now <seconds> [window=<seconds>]'");
	if (tb_scn_parse_num(w[1], -1e15, 1e15, &b->s->now))
		return tb_scn_fail(b,
				   "now '%s': expected a number of seconds", w[1]);
	if (n == 3) {
		char *eq = strchr(w[2], '=');
		char word[80];
		char why[160];

		if (!eq || strncmp(w[2], "window=", 7))
			return tb_scn_fail(b, "now: expected window=<seconds>, got '%s'", w[2]);
		snprintf(word, sizeof(word), "%s", w[2]);
		if (tb_options_parse(word, &b->s->opts, why, sizeof(why)))
			return tb_scn_fail(b, "now: %s", why);
	}
	b->has_now = 1;
	b->s->has_now = 1;
	return 0;
}

/* The decision time when no `now` line gives it: the latest start or end
 * of a running line (0 when none gives one). */
void tb_scn_default_now(struct builder *b)
{
	int any = 0;

	if (b->has_now)
		return;
	b->s->now = 0;
	for (int j = 0; j < b->n_running; j++) {
		const struct running_line *r = &b->running[j];

		if (isfinite(r->start) && (!any || r->start > b->s->now)) {
			b->s->now = r->start;
			any = 1;
		}
		if (r->has_end && (!any || r->end > b->s->now)) {
			b->s->now = r->end;
			any = 1;
		}
	}
}

/* The running lines as NeDD's runs, and the stall lines by router, once
 * the topology has its routers (tb_scenario_observe computes T). */
int tb_scn_build_observations(struct builder *b)
{
	struct tb_scenario *s = b->s;
	const struct tb_topology *t = s->topo;

	s->runs = calloc((size_t)(b->n_running ? b->n_running : 1),
			 sizeof(*s->runs));
	s->occ->n_routers = t->n_routers;
	s->occ->router_traffic = calloc((size_t)(t->n_routers ? t->n_routers : 1),
					sizeof(double));
	if (!s->runs || !s->occ->router_traffic)
		return tb_scn_fail(b, "out of memory");
	for (int j = 0; j < b->n_running; j++) {
		struct running_line *r = &b->running[j];
		struct tb_nedd_run *run = &s->runs[s->n_runs++];

		/* The scenario keeps the node list; the builder's goes. */
		run->nodes = r->nodes;
		run->n = r->n;
		r->nodes = NULL;
		run->inj = r->inj;
		memcpy(run->app, r->app, sizeof(run->app));
		run->start = r->start;
		run->end = r->end;
		run->seed = (uint64_t)j;
	}
	if (!b->n_stalls)
		return 0;
	s->occ->router_stall = malloc(sizeof(double) *
				      (size_t)(t->n_routers ? t->n_routers : 1));
	if (!s->occ->router_stall)
		return tb_scn_fail(b, "out of memory");
	for (int r = 0; r < t->n_routers; r++)
		s->occ->router_stall[r] = NAN;
	for (int i = 0; i < b->n_stalls; i++) {
		int r = 0;

		b->line = b->stalls[i].line;
		while (r < t->n_routers &&
		       strcmp(t->routers[r].name, b->stalls[i].router))
			r++;
		if (r == t->n_routers)
			return tb_scn_fail(b, "stall: unknown router '%s'",
					   b->stalls[i].router);
		if (!isnan(s->occ->router_stall[r]))
			return tb_scn_fail(b, "stall: router %s given twice",
					   b->stalls[i].router);
		s->occ->router_stall[r] = b->stalls[i].count;
	}
	return 0;
}

int tb_scenario_observe(struct tb_scenario *s)
{
	const struct tb_nedd_run *runs = s->runs;
	const struct tb_topology *t = s->topo;

	/* stall=routed's L, from the same runs (nedd.h); none otherwise. */
	free(s->occ->router_routed);
	s->occ->router_routed = NULL;
	if (s->opts.nedd.stall == TB_NEDD_STALL_ROUTED) {
		s->occ->router_routed = malloc(sizeof(double) *
					       (size_t)(t->n_routers ?
							t->n_routers : 1));
		if (!s->occ->router_routed ||
		    tb_nedd_routed_load(t, runs, s->n_runs, s->now,
					&s->opts.nedd, s->occ->router_routed))
			return -1;
	}
	return tb_nedd_traffic(t, runs, s->n_runs, s->now, &s->opts.nedd,
			       s->occ->router_traffic);
}
