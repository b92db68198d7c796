#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolation.h"
#include "nedd.h"
#include "textfile.h"

#define MAX_WORDS 64

struct leaf_line {
	char name[64];
	int nodes, busy, busy_comm;
	int router;		/* a `router` line: its chassis and group */
	int chassis, group;
};

struct eval_item {
	int leaf;	/* index into leaf_line array */
	int count;
	int line;
};

struct running_line {
	int *nodes;	/* node indexes, topology order */
	int n;
	int comm;
	int line;
	/* NeDD's observations (nedd.h): per-node injection (< 0: by app),
	 * application, start and end (-inf / +inf when not given). */
	double inj;
	char app[TB_JOB_APP_LEN];
	double start, end;
	int has_end;
};

struct stall_line {
	char router[64];
	double count;
	int line;
};

struct pf_item {
	int node;
	double pf;
	int line;
};

struct builder {
	const char *name;
	char *err;
	size_t errlen;
	int line;
	struct tb_scenario *s;
	struct leaf_line *leaves;
	int n_leaves, cap_leaves;
	struct eval_item *eval;
	int n_eval_items;
	long total_nodes;
	struct running_line *running;
	int n_running;
	int torus[3];		/* 0 0 0: no torus line */
	int torus_line;
	int *busy;		/* busy lines' node ids, line by line */
	int n_busy;
	int *busy_line;
	struct pf_item *pf;
	int n_pf;
	struct tb_matrix_entry *edges;
	int n_edges;
	int *edge_line;
	int n_router_lines;
	struct stall_line *stalls;
	int n_stalls;
	int has_now;
};

static int fail(struct builder *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!b->err || !b->errlen)
		return -1;
	n = snprintf(b->err, b->errlen, "%s:%d: ", b->name, b->line);
	if (n < 0 || (size_t)n >= b->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int split(char *line, char **words)
{
	int n = 0;

	for (char *w = strtok(line, " \t"); w; w = strtok(NULL, " \t")) {
		if (n == MAX_WORDS)
			return -1;
		words[n++] = w;
	}
	return n;
}

static int find_leaf(const struct builder *b, const char *name)
{
	for (int i = 0; i < b->n_leaves; i++)
		if (!strcmp(b->leaves[i].name, name))
			return i;
	return -1;
}

static int switch_line(struct builder *b, char **w, int n)
{
	if (n != 4 || strcmp(w[2], "parent"))
		return fail(b, "expected 'switch <name> parent <switch>'");
	if (strlen(w[1]) >= 64)
		return fail(b, "switch name longer than 63 characters");
	if (tb_switch_find(b->s->topo, w[1]) >= 0)
		return fail(b, "switch '%s' defined twice", w[1]);
	if (tb_topology_add_switch(b->s->topo, w[1], w[3]))
		return fail(b, "out of memory");
	return 0;
}

static int leaf_line(struct builder *b, char **w, int n)
{
	struct leaf_line *l;
	const char *parent = NULL;

	if (n != 5 && !(n == 7 && !strcmp(w[5], "parent")))
		return fail(b, "expected 'leaf <name> <nodes> <busy> <busy_comm> [parent <switch>]'");
	if (strlen(w[1]) >= 64)
		return fail(b, "leaf name longer than 63 characters");
	/* Every earlier leaf line added a switch of its name, so the switch
	 * index (constant time) answers for the leaves too. */
	if (tb_switch_find(b->s->topo, w[1]) >= 0)
		return fail(b, "'%s' defined twice", w[1]);
	if (b->n_leaves == b->cap_leaves) {
		int ncap = b->cap_leaves ? b->cap_leaves * 2 : 16;
		struct leaf_line *nl = realloc(b->leaves, sizeof(*nl) * (size_t)ncap);
		if (!nl)
			return fail(b, "out of memory");
		b->leaves = nl;
		b->cap_leaves = ncap;
	}
	l = &b->leaves[b->n_leaves];
	snprintf(l->name, sizeof(l->name), "%s", w[1]);
	if (tb_parse_int(w[2], 1, TB_SCENARIO_MAX_NODES, &l->nodes))
		return fail(b, "leaf %s: nodes '%s' is not a number from 1 to %d",
			    w[1], w[2], TB_SCENARIO_MAX_NODES);
	if (tb_parse_int(w[3], 0, l->nodes, &l->busy))
		return fail(b, "leaf %s: busy '%s' is not a number from 0 to %d",
			    w[1], w[3], l->nodes);
	if (tb_parse_int(w[4], 0, l->busy, &l->busy_comm))
		return fail(b, "leaf %s: busy_comm '%s' is not a number from 0 to %d",
			    w[1], w[4], l->busy);
	b->total_nodes += l->nodes;
	if (b->total_nodes > TB_SCENARIO_MAX_NODES)
		return fail(b, "more than %d nodes in all", TB_SCENARIO_MAX_NODES);
	if (n == 7)
		parent = w[6];
	if (tb_topology_add_switch(b->s->topo, w[1], parent))
		return fail(b, "out of memory");
	b->n_leaves++;
	return 0;
}

/* An application's name (nedd.h) into out: 0, or -1 when it is empty,
 * too long or holds other than [A-Za-z0-9._-]. */
static int app_name(const char *v, char *out)
{
	size_t n = strlen(v);

	if (!n || n >= TB_JOB_APP_LEN ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") != n)
		return -1;
	memcpy(out, v, n + 1);
	return 0;
}

/* A finite number in [lo, hi] filling the whole string: 0, else -1. */
static int parse_num(const char *v, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return errno || *end || end == v || !isfinite(*out) || *out < lo ||
	       *out > hi ? -1 : 0;
}

/* router <name> <nodes> [chassis=<c>] [group=<g>]: a dragonfly router (a
 * leaf of its own under the root) and its nodes; its id is its place
 * among the router lines, its chassis id / 16 and group id / 96 unless
 * given (Aries: 16 routers per chassis, Cori: 6 chassis per group). */
static int router_line(struct builder *b, char **w, int n)
{
	char *lw[5], zero[] = "0";
	struct leaf_line *l;
	int id = b->n_router_lines;

	if (n < 3 || n > 5)
		return fail(b, "expected 'router <name> <nodes> [chassis=<c>] [group=<g>]'");
	lw[0] = w[0];
	lw[1] = w[1];
	lw[2] = w[2];
	lw[3] = lw[4] = zero;
	if (leaf_line(b, lw, 5))
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
			return fail(b, "router %s: expected chassis=<c> or group=<g>, got '%s'",
				    w[1], w[i]);
		if (tb_parse_int(eq, 0, 1000000000, field))
			return fail(b, "router %s: %s='%s' is not a number from 0 to 1000000000",
				    w[1], w[i], eq);
	}
	b->n_router_lines++;
	return 0;
}

/* stall <router> <count>: the router's observed stall count (NeDD's
 * low-stall); routers without one get the stall model's (nedd.h). */
static int stall_line(struct builder *b, char **w, int n)
{
	struct stall_line *st, *ns;

	if (n != 3)
		return fail(b, "expected 'stall <router> <count>'");
	ns = realloc(b->stalls, sizeof(*ns) * (size_t)(b->n_stalls + 1));
	if (!ns)
		return fail(b, "out of memory");
	b->stalls = ns;
	st = &b->stalls[b->n_stalls];
	if (strlen(w[1]) >= sizeof(st->router))
		return fail(b, "stall: router name longer than 63 characters");
	snprintf(st->router, sizeof(st->router), "%s", w[1]);
	if (parse_num(w[2], 0, 1e300, &st->count))
		return fail(b, "stall %s: '%s' is not a number >= 0", w[1], w[2]);
	st->line = b->line;
	b->n_stalls++;
	return 0;
}

/* now <seconds> [window=<seconds>]: NeDD's decision time and window. */
static int now_line(struct builder *b, char **w, int n)
{
	if (b->has_now)
		return fail(b, "a second 'now' line");
	if (n < 2 || n > 3)
		return fail(b, "expected 'now <seconds> [window=<seconds>]'");
	if (parse_num(w[1], -1e15, 1e15, &b->s->now))
		return fail(b, "now '%s': expected a number of seconds", w[1]);
	if (n == 3) {
		char *eq = strchr(w[2], '=');
		char word[80];
		char why[160];

		if (!eq || strncmp(w[2], "window=", 7))
			return fail(b, "now: expected window=<seconds>, got '%s'", w[2]);
		snprintf(word, sizeof(word), "%s", w[2]);
		if (tb_options_parse(word, &b->s->opts, why, sizeof(why)))
			return fail(b, "now: %s", why);
	}
	b->has_now = 1;
	b->s->has_now = 1;
	return 0;
}

static int job_line(struct builder *b, char **w, int n)
{
	struct tb_job *j = &b->s->job;

	if (b->s->has_job)
		return fail(b, "a second 'job' line");
	for (int i = 1; i < n; i++) {
		char *eq = strchr(w[i], '=');
		char *end;

		if (!eq)
			return fail(b, "expected key=value, got '%s'", w[i]);
		*eq++ = '\0';
		if (!strcmp(w[i], "nodes")) {
			if (tb_parse_int(eq, 1, TB_SCENARIO_MAX_NODES, &j->nodes))
				return fail(b, "nodes='%s' is not a positive number", eq);
		} else if (!strcmp(w[i], "comm")) {
			if (tb_parse_int(eq, 0, 1, &j->comm))
				return fail(b, "comm='%s': expected 0 or 1", eq);
		} else if (!strcmp(w[i], "pattern")) {
			if (tb_pattern_parse(eq, &j->pattern))
				return fail(b, "pattern='%s': expected rd, rhvd, binomial, ring or cmc", eq);
		} else if (!strcmp(w[i], "ratio")) {
			errno = 0;
			j->comm_fraction = strtod(eq, &end);
			if (errno || *end || end == eq || !isfinite(j->comm_fraction) ||
			    j->comm_fraction < 0 || j->comm_fraction > 1)
				return fail(b, "ratio='%s': expected a number from 0 to 1", eq);
		} else if (!strcmp(w[i], "app")) {
			if (app_name(eq, j->app))
				return fail(b, "app='%s': expected a name of up to %d letters, digits, '-', '_' or '.'",
					    eq, TB_JOB_APP_LEN - 1);
		} else if (!strcmp(w[i], "class")) {
			enum tb_nedd_class c;

			if (tb_nedd_class_parse(eq, &c))
				return fail(b, "class='%s': expected sensitive or insensitive", eq);
			j->net_class = (int)c;
		} else if (!strcmp(w[i], "seed")) {
			errno = 0;
			j->seed = strtoull(eq, &end, 10);
			if (errno || *end || end == eq || *eq == '-')
				return fail(b, "seed='%s': expected a whole number from 0 to 2^64-1", eq);
		} else {
			return fail(b, "unknown job key '%s' (nodes, comm, pattern, ratio, app, class, seed)", w[i]);
		}
	}
	if (!j->nodes)
		return fail(b, "job needs nodes=<n>");
	b->s->has_job = 1;
	return 0;
}

/* running nodes=0-3,9 [comm=0|1]: a running job on those node indexes
 * (leaves in declared order, nodes in order within a leaf); its nodes
 * become busy, communication-intensive with comm=1 (default 0). */
static int running_line(struct builder *b, char **w, int n)
{
	struct running_line *r, *nr;
	int have_nodes = 0;

	nr = realloc(b->running, sizeof(*nr) * (size_t)(b->n_running + 1));
	if (!nr)
		return fail(b, "out of memory");
	b->running = nr;
	r = &b->running[b->n_running];
	memset(r, 0, sizeof(*r));
	r->line = b->line;
	r->inj = -1;
	r->start = -INFINITY;
	r->end = INFINITY;
	b->n_running++;
	for (int i = 1; i < n; i++) {
		char *eq = strchr(w[i], '=');

		if (!eq)
			return fail(b, "expected key=value, got '%s'", w[i]);
		*eq++ = '\0';
		if (!strcmp(w[i], "nodes") && !have_nodes) {
			/* Checked against the node count in build(). */
			if (tb_parse_index_list(eq, TB_SCENARIO_MAX_NODES,
						&r->nodes, &r->n))
				return fail(b, "nodes='%s': expected node indexes like 0-3,9", eq);
			have_nodes = 1;
		} else if (!strcmp(w[i], "comm")) {
			if (tb_parse_int(eq, 0, 1, &r->comm))
				return fail(b, "comm='%s': expected 0 or 1", eq);
		} else if (!strcmp(w[i], "inj")) {
			if (parse_num(eq, 0, 1e12, &r->inj))
				return fail(b, "inj='%s': expected a per-node injection >= 0", eq);
		} else if (!strcmp(w[i], "app")) {
			if (app_name(eq, r->app))
				return fail(b, "app='%s': expected a name of up to %d letters, digits, '-', '_' or '.'",
					    eq, TB_JOB_APP_LEN - 1);
		} else if (!strcmp(w[i], "start")) {
			if (parse_num(eq, -1e15, 1e15, &r->start))
				return fail(b, "start='%s': expected a number of seconds", eq);
		} else if (!strcmp(w[i], "end")) {
			if (parse_num(eq, -1e15, 1e15, &r->end))
				return fail(b, "end='%s': expected a number of seconds", eq);
			r->has_end = 1;
		} else {
			return fail(b, "unknown running key '%s' (nodes, comm, inj, app, start, end)", w[i]);
		}
	}
	if (!have_nodes)
		return fail(b, "running needs nodes=<indexes>");
	if (r->end < r->start)
		return fail(b, "running: end before start");
	return 0;
}

/* The decision time when no `now` line gives it: the latest start or end
 * of a running line (0 when none gives one). */
static void default_now(struct builder *b)
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

/* Running jobs onto the occupancy, once the leaf lines have set it. A job
 * that has ended (end= at or before now) holds no node; it still counts in
 * NeDD's traffic window. */
static int build_running(struct builder *b)
{
	struct tb_occupancy *o = b->s->occ;
	int live = 0;

	default_now(b);
	for (int j = 0; j < b->n_running; j++) {
		struct running_line *r = &b->running[j];

		b->line = r->line;
		if (r->start > b->s->now)
			return fail(b, "running: start=%g is after now (%g)",
				    r->start, b->s->now);
		if (r->has_end && r->end > b->s->now)
			return fail(b, "running: end=%g is after now (%g): leave end out for a job still running",
				    r->end, b->s->now);
		for (int k = 0; k < r->n; k++)
			if (r->nodes[k] >= o->n_nodes)
				return fail(b, "running: node %d, the machine has %d",
					    r->nodes[k], o->n_nodes);
		live += !r->has_end;
	}
	if (!live)
		return 0;
	o->job = malloc(sizeof(int) * (size_t)o->n_nodes);
	if (!o->job)
		return fail(b, "out of memory");
	for (int k = 0; k < o->n_nodes; k++)
		o->job[k] = -1;
	o->n_jobs = 0;
	for (int j = 0; j < b->n_running; j++) {
		struct running_line *r = &b->running[j];
		int id;

		if (r->has_end)
			continue;
		id = o->n_jobs++;
		b->line = r->line;
		for (int k = 0; k < r->n; k++) {
			int node = r->nodes[k];

			if (o->job[node] >= 0)
				return fail(b, "running: node %d is in two running jobs",
					    node);
			if (o->state[node] != TB_NODE_FREE)
				return fail(b, "running: node %d is already busy by its leaf line",
					    node);
			o->job[node] = id;
			o->state[node] = r->comm ? TB_NODE_BUSY_COMM : TB_NODE_BUSY;
		}
	}
	return 0;
}

/* torus X Y Z */
static int torus_line(struct builder *b, char **w, int n)
{
	if (b->torus[0])
		return fail(b, "a second 'torus' line");
	if (n != 4)
		return fail(b, "expected 'torus <X> <Y> <Z>'");
	for (int d = 0; d < 3; d++)
		if (tb_parse_int(w[d + 1], 1, 4096, &b->torus[d]))
			return fail(b, "torus: '%s' is not a number from 1 to 4096",
				    w[d + 1]);
	if ((long)b->torus[0] * b->torus[1] * b->torus[2] > TB_SCENARIO_MAX_NODES)
		return fail(b, "more than %d nodes in all", TB_SCENARIO_MAX_NODES);
	b->torus_line = b->line;
	return 0;
}

/* busy <ids>, risky <ids>: node indexes, checked in build(). */
static int id_list_line(struct builder *b, char **w, int n, int risky)
{
	int *ids, count;

	if (n != 2)
		return fail(b, "expected '%s <node ids like 4,5,11>'", w[0]);
	if (tb_parse_index_list(w[1], TB_SCENARIO_MAX_NODES, &ids, &count))
		return fail(b, "%s: '%s': expected node ids like 0-3,9", w[0], w[1]);
	for (int k = 0; k < count; k++) {
		if (risky) {
			struct pf_item *np = realloc(b->pf, sizeof(*np) *
						     (size_t)(b->n_pf + 1));
			if (!np) {
				free(ids);
				return fail(b, "out of memory");
			}
			b->pf = np;
			/* L705: the paper's outage probability, 2 %. */
			b->pf[b->n_pf++] = (struct pf_item){ ids[k], 0.02, b->line };
		} else {
			int *nb = realloc(b->busy, sizeof(int) * (size_t)(b->n_busy + 1));
			int *nl = nb ? realloc(b->busy_line, sizeof(int) *
					       (size_t)(b->n_busy + 1)) : NULL;
			if (nb)
				b->busy = nb;
			if (!nb || !nl) {
				free(ids);
				return fail(b, "out of memory");
			}
			b->busy_line = nl;
			b->busy[b->n_busy] = ids[k];
			b->busy_line[b->n_busy++] = b->line;
		}
	}
	free(ids);
	return 0;
}

/* pf <id> <probability> */
static int pf_line(struct builder *b, char **w, int n)
{
	struct pf_item *np;
	char *end;
	double v;
	int node;

	if (n != 3)
		return fail(b, "expected 'pf <node id> <probability>'");
	if (tb_parse_int(w[1], 0, TB_SCENARIO_MAX_NODES - 1, &node))
		return fail(b, "pf: '%s' is not a node id", w[1]);
	errno = 0;
	v = strtod(w[2], &end);
	if (errno || *end || end == w[2] || !isfinite(v) || v < 0 || v > 1)
		return fail(b, "pf: '%s': expected a probability from 0 to 1", w[2]);
	np = realloc(b->pf, sizeof(*np) * (size_t)(b->n_pf + 1));
	if (!np)
		return fail(b, "out of memory");
	b->pf = np;
	b->pf[b->n_pf++] = (struct pf_item){ node, v, b->line };
	return 0;
}

/* edge <process> <process> <weight> */
static int edge_line(struct builder *b, char **w, int n)
{
	struct tb_matrix_entry *ne;
	int *nl, from, to;
	char *end;
	double v;

	if (n != 4)
		return fail(b, "expected 'edge <process> <process> <weight>'");
	if (tb_parse_int(w[1], 0, TB_SCENARIO_MAX_NODES - 1, &from) ||
	    tb_parse_int(w[2], 0, TB_SCENARIO_MAX_NODES - 1, &to))
		return fail(b, "edge: '%s %s': expected two process numbers", w[1], w[2]);
	if (from == to)
		return fail(b, "edge: a process with itself (%d)", from);
	errno = 0;
	v = strtod(w[3], &end);
	if (errno || *end || end == w[3] || !isfinite(v) || v <= 0)
		return fail(b, "edge: weight '%s': expected a number above 0", w[3]);
	ne = realloc(b->edges, sizeof(*ne) * (size_t)(b->n_edges + 1));
	if (!ne)
		return fail(b, "out of memory");
	b->edges = ne;
	nl = realloc(b->edge_line, sizeof(int) * (size_t)(b->n_edges + 1));
	if (!nl)
		return fail(b, "out of memory");
	b->edge_line = nl;
	b->edges[b->n_edges] = (struct tb_matrix_entry){ from, to, v };
	b->edge_line[b->n_edges++] = b->line;
	return 0;
}

/* The torus' nodes under one leaf switch, coordinates from the id. */
static int build_torus_nodes(struct builder *b)
{
	struct tb_topology *t = b->s->topo;
	int X = b->torus[0], Y = b->torus[1], Z = b->torus[2];
	char name[32], why[200];

	b->line = b->torus_line;
	if (t->n_switches)
		return fail(b, "a 'torus' line and 'leaf' or 'switch' lines: one machine or the other");
	if (tb_topology_add_switch(t, "torus", NULL))
		return fail(b, "out of memory");
	for (int id = 0; id < X * Y * Z; id++) {
		struct tb_node *nd;

		snprintf(name, sizeof(name), "n%d", id);
		if (tb_topology_add_node(t, name, 0, 1))
			return fail(b, "out of memory");
		nd = &t->nodes[id];
		nd->coord[0] = id % X;
		nd->coord[1] = id / X % Y;
		nd->coord[2] = id / (X * Y);
	}
	if (tb_topology_finish(t, why, sizeof(why)) ||
	    tb_topology_set_torus(t, X, Y, Z, why, sizeof(why)))
		return fail(b, "%s", why);
	return 0;
}

/* busy, pf and edge lines onto the built machine and job. */
static int build_torus_state(struct builder *b)
{
	struct tb_scenario *s = b->s;
	struct tb_occupancy *o = s->occ;

	for (int k = 0; k < b->n_busy; k++) {
		b->line = b->busy_line[k];
		if (b->busy[k] >= o->n_nodes)
			return fail(b, "busy: node %d, the machine has %d",
				    b->busy[k], o->n_nodes);
		if (o->state[b->busy[k]] != TB_NODE_FREE)
			return fail(b, "busy: node %d is busy already", b->busy[k]);
		o->state[b->busy[k]] = TB_NODE_BUSY;
	}
	if (b->n_pf) {
		o->failure_prob = calloc((size_t)o->n_nodes, sizeof(double));
		if (!o->failure_prob)
			return fail(b, "out of memory");
	}
	for (int k = 0; k < b->n_pf; k++) {
		b->line = b->pf[k].line;
		if (b->pf[k].node >= o->n_nodes)
			return fail(b, "node %d, the machine has %d",
				    b->pf[k].node, o->n_nodes);
		o->failure_prob[b->pf[k].node] = b->pf[k].pf;
	}
	if (!b->n_edges)
		return 0;
	for (int k = 0; k < b->n_edges; k++) {
		b->line = b->edge_line[k];
		if (!s->has_job)
			return fail(b, "edge lines need a 'job' line");
		if (b->edges[k].from >= s->job.nodes || b->edges[k].to >= s->job.nodes)
			return fail(b, "edge: process %d, the job has %d (0-%d)",
				    b->edges[k].from >= s->job.nodes ?
				    b->edges[k].from : b->edges[k].to,
				    s->job.nodes, s->job.nodes - 1);
	}
	s->matrix = calloc(1, sizeof(*s->matrix));
	if (!s->matrix)
		return fail(b, "out of memory");
	s->matrix->ranks = s->job.nodes;
	s->matrix->n = (size_t)b->n_edges;
	s->matrix->entries = b->edges;
	b->edges = NULL;
	s->job.matrix = s->matrix;
	return 0;
}

/* The running lines as NeDD's runs, and the stall lines by router, once
 * the topology has its routers (tb_scenario_observe computes T). */
static int build_observations(struct builder *b)
{
	struct tb_scenario *s = b->s;
	const struct tb_topology *t = s->topo;

	s->runs = calloc((size_t)(b->n_running ? b->n_running : 1),
			 sizeof(*s->runs));
	s->occ->n_routers = t->n_routers;
	s->occ->router_traffic = calloc((size_t)(t->n_routers ? t->n_routers : 1),
					sizeof(double));
	if (!s->runs || !s->occ->router_traffic)
		return fail(b, "out of memory");
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
		return fail(b, "out of memory");
	for (int r = 0; r < t->n_routers; r++)
		s->occ->router_stall[r] = NAN;
	for (int i = 0; i < b->n_stalls; i++) {
		int r = 0;

		b->line = b->stalls[i].line;
		while (r < t->n_routers &&
		       strcmp(t->routers[r].name, b->stalls[i].router))
			r++;
		if (r == t->n_routers)
			return fail(b, "stall: unknown router '%s'",
				    b->stalls[i].router);
		if (!isnan(s->occ->router_stall[r]))
			return fail(b, "stall: router %s given twice",
				    b->stalls[i].router);
		s->occ->router_stall[r] = b->stalls[i].count;
	}
	return 0;
}

int tb_scenario_observe(struct tb_scenario *s)
{
	const struct tb_nedd_run *runs = s->runs;

	return tb_nedd_traffic(s->topo, runs, s->n_runs, s->now,
			       &s->opts.nedd, s->occ->router_traffic);
}

static int eval_line(struct builder *b, char **w, int n)
{
	if (b->eval)
		return fail(b, "a second 'eval' line");
	if (n < 2)
		return fail(b, "expected 'eval <leaf>:<count> ...'");
	b->eval = calloc((size_t)n, sizeof(*b->eval));
	if (!b->eval)
		return fail(b, "out of memory");
	for (int i = 1; i < n; i++) {
		char *colon = strrchr(w[i], ':');
		struct eval_item *e = &b->eval[b->n_eval_items];

		if (!colon)
			return fail(b, "expected <leaf>:<count>, got '%s'", w[i]);
		*colon++ = '\0';
		e->leaf = find_leaf(b, w[i]);
		if (e->leaf < 0)
			return fail(b, "eval: unknown leaf '%s'", w[i]);
		if (tb_parse_int(colon, 1, TB_SCENARIO_MAX_NODES, &e->count))
			return fail(b, "eval: count '%s' is not a positive number", colon);
		e->line = b->line;
		b->n_eval_items++;
	}
	return 0;
}

static int options_line(struct builder *b, char **w, int n)
{
	char why[160];

	if (b->s->has_options)
		return fail(b, "a second 'options' line");
	for (int i = 1; i < n; i++)
		if (tb_options_parse(w[i], &b->s->opts, why, sizeof(why)))
			return fail(b, "options: %s", why);
	b->s->has_options = 1;
	return 0;
}

/* Nodes, occupancy and the eval allocation, once every line is read. */
static int build(struct builder *b)
{
	struct tb_scenario *s = b->s;
	int node = 0, *taken_in_leaf;
	char name[96];

	if (b->torus[0]) {
		if (build_torus_nodes(b))
			return -1;
		goto nodes_built;
	}
	for (int i = 0; i < b->n_leaves; i++) {
		int leaf = tb_switch_find(s->topo, b->leaves[i].name);
		for (int k = 0; k < b->leaves[i].nodes; k++) {
			struct tb_node *nd;

			snprintf(name, sizeof(name), "%s-%d", b->leaves[i].name, k);
			if (tb_topology_add_node(s->topo, name, leaf, 1))
				return fail(b, "out of memory");
			nd = &s->topo->nodes[s->topo->n_nodes - 1];
			if (b->leaves[i].router) {
				nd->router = i;
				nd->chassis = b->leaves[i].chassis;
				nd->group = b->leaves[i].group;
			}
		}
	}
	if (!b->n_leaves)
		return fail(b, "no 'leaf' or 'router' line");
	if (b->n_router_lines && b->n_router_lines != b->n_leaves)
		return fail(b, "'router' and 'leaf' lines do not mix");
	s->has_routers = b->n_router_lines > 0;
	/* Parents named only in 'parent' become switches of their own. */
	for (int i = 0; i < s->topo->n_switches; i++) {
		const char *p = s->topo->switches[i].parent_name;
		if (p && tb_switch_find(s->topo, p) < 0 &&
		    tb_topology_add_switch(s->topo, p, NULL))
			return fail(b, "out of memory");
	}
	if (tb_topology_finish(s->topo, b->err, b->errlen)) {
		char why[200];
		snprintf(why, sizeof(why), "%s", b->err);
		return fail(b, "%s", why);
	}
nodes_built:
	s->occ = tb_occupancy_new(s->topo->n_nodes);
	if (!s->occ)
		return fail(b, "out of memory");
	for (int i = 0; i < b->n_leaves; i++) {
		for (int k = 0; k < b->leaves[i].nodes; k++, node++) {
			if (k < b->leaves[i].busy_comm)
				s->occ->state[node] = TB_NODE_BUSY_COMM;
			else if (k < b->leaves[i].busy)
				s->occ->state[node] = TB_NODE_BUSY;
		}
	}
	if (build_running(b) || build_torus_state(b) || build_observations(b))
		return -1;
	if (!b->eval)
		return 0;
	taken_in_leaf = calloc((size_t)b->n_leaves, sizeof(int));
	s->eval_alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	if (!taken_in_leaf || !s->eval_alloc) {
		free(taken_in_leaf);
		return fail(b, "out of memory");
	}
	for (int i = 0; i < b->n_eval_items; i++) {
		struct eval_item *e = &b->eval[i];
		struct leaf_line *l = &b->leaves[e->leaf];
		int first = 0;

		for (int k = 0; k < e->leaf; k++)
			first += b->leaves[k].nodes;
		if (taken_in_leaf[e->leaf] + e->count > l->nodes - l->busy) {
			int left = l->nodes - l->busy - taken_in_leaf[e->leaf];
			b->line = e->line;
			free(taken_in_leaf);
			return fail(b, "eval: leaf %s has %d free nodes left", l->name,
				    left);
		}
		for (int k = 0; k < e->count; k++)
			s->eval_alloc[s->n_eval++] =
				first + l->busy + taken_in_leaf[e->leaf] + k;
		taken_in_leaf[e->leaf] += e->count;
	}
	free(taken_in_leaf);
	if (s->has_job && s->n_eval != s->job.nodes) {
		b->line = b->eval[0].line;
		return fail(b, "eval gives %d nodes, the job asks for %d",
			    s->n_eval, s->job.nodes);
	}
	s->job.nodes = s->n_eval;
	return 0;
}

static void free_running(struct builder *b)
{
	for (int j = 0; j < b->n_running; j++)
		free(b->running[j].nodes);
	free(b->running);
	free(b->busy);
	free(b->busy_line);
	free(b->pf);
	free(b->edges);
	free(b->edge_line);
	free(b->stalls);
}

int tb_scenario_parse(const char *text, size_t len, const char *name,
		      struct tb_scenario **out, char *err, size_t errlen)
{
	struct builder b = { .name = name, .err = err, .errlen = errlen };
	char line[1024], *w[MAX_WORDS];
	size_t pos = 0;
	int rc;

	*out = NULL;
	b.s = calloc(1, sizeof(*b.s));
	if (!b.s || !(b.s->topo = tb_topology_new())) {
		free(b.s);
		return fail(&b, "out of memory");
	}
	b.s->job.comm = 1;
	b.s->job.pattern = TB_PATTERN_RD;
	b.s->job.comm_fraction = 0.5;
	b.s->opts = tb_options_default();
	while ((rc = tb_next_line(text, len, &pos, line, sizeof(line))) != 0) {
		int n;

		b.line++;
		if (rc < 0) {
			fail(&b, "line longer than %zu bytes", sizeof(line) - 1);
			goto bad;
		}
		n = split(line, w);
		if (n == 0)
			continue;
		if (n < 0) {
			fail(&b, "more than %d words", MAX_WORDS);
			goto bad;
		}
		if (!strcmp(w[0], "leaf"))
			rc = leaf_line(&b, w, n);
		else if (!strcmp(w[0], "switch"))
			rc = switch_line(&b, w, n);
		else if (!strcmp(w[0], "job"))
			rc = job_line(&b, w, n);
		else if (!strcmp(w[0], "eval"))
			rc = eval_line(&b, w, n);
		else if (!strcmp(w[0], "options"))
			rc = options_line(&b, w, n);
		else if (!strcmp(w[0], "running"))
			rc = running_line(&b, w, n);
		else if (!strcmp(w[0], "torus"))
			rc = torus_line(&b, w, n);
		else if (!strcmp(w[0], "busy"))
			rc = id_list_line(&b, w, n, 0);
		else if (!strcmp(w[0], "risky"))
			rc = id_list_line(&b, w, n, 1);
		else if (!strcmp(w[0], "pf"))
			rc = pf_line(&b, w, n);
		else if (!strcmp(w[0], "edge"))
			rc = edge_line(&b, w, n);
		else if (!strcmp(w[0], "router"))
			rc = router_line(&b, w, n);
		else if (!strcmp(w[0], "stall"))
			rc = stall_line(&b, w, n);
		else if (!strcmp(w[0], "now"))
			rc = now_line(&b, w, n);
		else
			rc = fail(&b, "unknown keyword '%s' (leaf, router, switch, job, eval, options, running, stall, now, torus, busy, risky, pf, edge)", w[0]);
		if (rc)
			goto bad;
	}
	if (!b.s->has_job && !b.eval) {
		fail(&b, "no 'job' or 'eval' line");
		goto bad;
	}
	if (build(&b))
		goto bad;
	if (tb_scenario_observe(b.s)) {
		fail(&b, "out of memory");
		goto bad;
	}
	free(b.leaves);
	free(b.eval);
	free_running(&b);
	*out = b.s;
	return 0;
bad:
	free(b.leaves);
	free(b.eval);
	free_running(&b);
	tb_scenario_free(b.s);
	return -1;
}

int tb_scenario_load(const char *path, struct tb_scenario **out, char *err,
		     size_t errlen)
{
	size_t len;
	char *text = tb_read_file(path, &len);
	int rc;

	*out = NULL;
	if (!text) {
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot read the file: %s",
				 path, strerror(errno));
		return -1;
	}
	rc = tb_scenario_parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}

void tb_scenario_free(struct tb_scenario *s)
{
	if (!s)
		return;
	tb_topology_free(s->topo);
	tb_occupancy_free(s->occ);
	tb_matrix_free(s->matrix);
	free(s->eval_alloc);
	for (int j = 0; j < s->n_runs; j++)
		free((int *)s->runs[j].nodes);
	free(s->runs);
	free(s);
}
