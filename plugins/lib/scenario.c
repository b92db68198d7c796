/* The scenario format (scenario.h): the builder, the core lines, the API;
 * the other lines and the building are in scenario_*.c (see
 * scenario_internal.h). */
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolation.h"
#include "nedd.h"
#include "scenario_internal.h"
#include "load_text.h"
#include "textfile.h"

#define MAX_WORDS 64

int tb_scn_fail(struct builder *b, const char *fmt, ...)
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
		return tb_scn_fail(b,
				   "expected 'switch <name> parent <switch>'");
	if (strlen(w[1]) >= 64)
		return tb_scn_fail(b, "switch name longer than 63 characters");
	if (tb_switch_find(b->s->topo, w[1]) >= 0)
		return tb_scn_fail(b, "switch '%s' defined twice", w[1]);
	if (tb_topology_add_switch(b->s->topo, w[1], w[3]))
		return tb_scn_fail(b, "out of memory");
	return 0;
}

int tb_scn_leaf_line(struct builder *b, char **w, int n)
{
	struct leaf_line *l;
	const char *parent = NULL;

	if (n != 5 && !(n == 7 && !strcmp(w[5], "parent")))
		return tb_scn_fail(b, "expected 'leaf <name> <nodes> <busy> <busy_comm> [parent <switch>]'");
	if (strlen(w[1]) >= 64)
		return tb_scn_fail(b, "leaf name longer than 63 characters");
	/* Every earlier leaf line added a switch of its name, so the switch
	 * index (constant time) answers for the leaves too. */
	if (tb_switch_find(b->s->topo, w[1]) >= 0)
		return tb_scn_fail(b, "'%s' defined twice", w[1]);
	if (b->n_leaves == b->cap_leaves) {
		int ncap = b->cap_leaves ? b->cap_leaves * 2 : 16;
		struct leaf_line *nl = realloc(b->leaves, sizeof(*nl) * (size_t)ncap);
		if (!nl)
			return tb_scn_fail(b, "out of memory");
		b->leaves = nl;
		b->cap_leaves = ncap;
	}
	l = &b->leaves[b->n_leaves];
	snprintf(l->name, sizeof(l->name), "%s", w[1]);
	if (tb_parse_int(w[2], 1, TB_SCENARIO_MAX_NODES, &l->nodes))
		return tb_scn_fail(b, "leaf %s: nodes '%s' is not a number from 1 to %d",
				   w[1], w[2], TB_SCENARIO_MAX_NODES);
	if (tb_parse_int(w[3], 0, l->nodes, &l->busy))
		return tb_scn_fail(b, "leaf %s: busy '%s' is not a number from 0 to %d",
				   w[1], w[3], l->nodes);
	if (tb_parse_int(w[4], 0, l->busy, &l->busy_comm))
		return tb_scn_fail(b, "leaf %s: busy_comm '%s' is not a number from 0 to %d",
				   w[1], w[4], l->busy);
	b->total_nodes += l->nodes;
	if (b->total_nodes > TB_SCENARIO_MAX_NODES)
		return tb_scn_fail(b, "more than %d nodes in all", TB_SCENARIO_MAX_NODES);
	if (n == 7)
		parent = w[6];
	if (tb_topology_add_switch(b->s->topo, w[1], parent))
		return tb_scn_fail(b, "out of memory");
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
int tb_scn_parse_num(const char *v, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return errno || *end || end == v || !isfinite(*out) || *out < lo ||
	       *out > hi ? -1 : 0;
}

int tb_scn_add_entry(struct builder *b, struct entry_lines *l, int from,
		     int to, double v)
{
	struct tb_matrix_entry *ne;
	int *nl;

	ne = realloc(l->v, sizeof(*ne) * (size_t)(l->n + 1));
	if (!ne)
		return tb_scn_fail(b, "out of memory");
	l->v = ne;
	nl = realloc(l->line, sizeof(int) * (size_t)(l->n + 1));
	if (!nl)
		return tb_scn_fail(b, "out of memory");
	l->line = nl;
	l->v[l->n] = (struct tb_matrix_entry){ from, to, v };
	l->line[l->n++] = b->line;
	return 0;
}

int tb_scn_entries_to_matrix(struct builder *b, struct entry_lines *l,
			     int ranks, const char *kw, const char *unit)
{
	struct tb_scenario *s = b->s;

	if (!s->has_job) {
		if (l->n)
			b->line = l->line[0];
		return tb_scn_fail(b, "%s lines need a 'job' line", kw);
	}
	for (int k = 0; k < l->n; k++) {
		const struct tb_matrix_entry *e = &l->v[k];

		b->line = l->line[k];
		if (e->from >= ranks || e->to >= ranks)
			return tb_scn_fail(b,
					   "%s: %s %d, the job has %d (0-%d)",
					   kw, unit,
					   e->from >= ranks ? e->from : e->to,
					   ranks, ranks - 1);
	}
	s->matrix = calloc(1, sizeof(*s->matrix));
	if (!s->matrix)
		return tb_scn_fail(b, "out of memory");
	s->matrix->ranks = ranks;
	s->matrix->n = (size_t)l->n;
	s->matrix->entries = l->v;
	l->v = NULL;
	s->job.matrix = s->matrix;
	return 0;
}

static int job_line(struct builder *b, char **w, int n)
{
	struct tb_job *j = &b->s->job;

	if (b->s->has_job)
		return tb_scn_fail(b, "a second 'job' line");
	for (int i = 1; i < n; i++) {
		char *eq = strchr(w[i], '=');
		char *end;

		if (!eq)
			return tb_scn_fail(b,
					   "expected key=value, got '%s'", w[i]);
		*eq++ = '\0';
		if (!strcmp(w[i], "nodes")) {
			if (tb_parse_int(eq, 1, TB_SCENARIO_MAX_NODES, &j->nodes))
				return tb_scn_fail(b, "nodes='%s' is not a positive number", eq);
		} else if (!strcmp(w[i], "ranks")) {
			if (tb_parse_int(eq, 1, TB_MATRIX_MAX_RANKS, &b->s->ranks))
				return tb_scn_fail(b, "ranks='%s': expected a number of ranks from 1 to %d",
						   eq, TB_MATRIX_MAX_RANKS);
		} else if (!strcmp(w[i], "comm")) {
			if (tb_parse_int(eq, 0, 1, &j->comm))
				return tb_scn_fail(b, "comm='%s': expected 0 or 1", eq);
		} else if (!strcmp(w[i], "pattern")) {
			if (tb_pattern_parse(eq, &j->pattern))
				return tb_scn_fail(b, "pattern='%s': expected rd, rhvd, binomial, ring or cmc", eq);
		} else if (!strcmp(w[i], "ratio")) {
			errno = 0;
			j->comm_fraction = strtod(eq, &end);
			if (errno || *end || end == eq || !isfinite(j->comm_fraction) ||
			    j->comm_fraction < 0 || j->comm_fraction > 1)
				return tb_scn_fail(b, "ratio='%s': expected a number from 0 to 1", eq);
		} else if (!strcmp(w[i], "app")) {
			if (app_name(eq, j->app))
				return tb_scn_fail(b, "app='%s': expected a name of up to %d letters, digits, '-', '_' or '.'",
						   eq, TB_JOB_APP_LEN - 1);
		} else if (!strcmp(w[i], "class")) {
			enum tb_nedd_class c;

			if (tb_nedd_class_parse(eq, &c))
				return tb_scn_fail(b, "class='%s': expected sensitive or insensitive", eq);
			j->net_class = (int)c;
		} else if (!strcmp(w[i], "seed")) {
			errno = 0;
			j->seed = strtoull(eq, &end, 10);
			if (errno || *end || end == eq || *eq == '-')
				return tb_scn_fail(b, "seed='%s': expected a whole number from 0 to 2^64-1", eq);
		} else {
			return tb_scn_fail(b, "unknown job key '%s' (nodes, ranks, comm, pattern, ratio, app, class, seed)", w[i]);
		}
	}
	if (!j->nodes && !b->s->ranks)
		return tb_scn_fail(b, "job needs nodes=<n> or ranks=<n>");
	b->s->has_job = 1;
	b->s->job_line = b->line;
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
		return tb_scn_fail(b, "out of memory");
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
			return tb_scn_fail(b,
					   "expected key=value, got '%s'", w[i]);
		*eq++ = '\0';
		if (!strcmp(w[i], "nodes") && !have_nodes) {
			/* Checked against the node count in tb_scn_build(). */
			if (tb_parse_index_list(eq, TB_SCENARIO_MAX_NODES,
						&r->nodes, &r->n))
				return tb_scn_fail(b, "nodes='%s': expected node indexes like 0-3,9", eq);
			have_nodes = 1;
		} else if (!strcmp(w[i], "comm")) {
			if (tb_parse_int(eq, 0, 1, &r->comm))
				return tb_scn_fail(b, "comm='%s': expected 0 or 1", eq);
		} else if (!strcmp(w[i], "inj")) {
			if (tb_scn_parse_num(eq, 0, 1e12, &r->inj))
				return tb_scn_fail(b, "inj='%s': expected a per-node injection >= 0", eq);
		} else if (!strcmp(w[i], "app")) {
			if (app_name(eq, r->app))
				return tb_scn_fail(b, "app='%s': expected a name of up to %d letters, digits, '-', '_' or '.'",
						   eq, TB_JOB_APP_LEN - 1);
		} else if (!strcmp(w[i], "start")) {
			if (tb_scn_parse_num(eq, -1e15, 1e15, &r->start))
				return tb_scn_fail(b, "start='%s': expected a number of seconds", eq);
		} else if (!strcmp(w[i], "end")) {
			if (tb_scn_parse_num(eq, -1e15, 1e15, &r->end))
				return tb_scn_fail(b, "end='%s': expected a number of seconds", eq);
			r->has_end = 1;
		} else {
			return tb_scn_fail(b, "unknown running key '%s' (nodes, comm, inj, app, start, end)", w[i]);
		}
	}
	if (!have_nodes)
		return tb_scn_fail(b, "running needs nodes=<indexes>");
	if (r->end < r->start)
		return tb_scn_fail(b, "running: end before start");
	return 0;
}

static int eval_line(struct builder *b, char **w, int n)
{
	if (b->eval)
		return tb_scn_fail(b, "a second 'eval' line");
	if (n < 2)
		return tb_scn_fail(b, "expected 'eval <leaf>:<count> ...'");
	b->eval = calloc((size_t)n, sizeof(*b->eval));
	if (!b->eval)
		return tb_scn_fail(b, "out of memory");
	for (int i = 1; i < n; i++) {
		char *colon = strrchr(w[i], ':');
		struct eval_item *e = &b->eval[b->n_eval_items];

		if (!colon)
			return tb_scn_fail(b, "expected <leaf>:<count>, got '%s'", w[i]);
		*colon++ = '\0';
		e->leaf = find_leaf(b, w[i]);
		if (e->leaf < 0)
			return tb_scn_fail(b, "eval: unknown leaf '%s'", w[i]);
		if (tb_parse_int(colon, 1, TB_SCENARIO_MAX_NODES, &e->count))
			return tb_scn_fail(b, "eval: count '%s' is not a positive number", colon);
		e->line = b->line;
		b->n_eval_items++;
	}
	return 0;
}

static int options_line(struct builder *b, char **w, int n)
{
	char why[160];

	if (b->s->has_options)
		return tb_scn_fail(b, "a second 'options' line");
	for (int i = 1; i < n; i++)
		if (tb_options_parse(w[i], &b->s->opts, why, sizeof(why)))
			return tb_scn_fail(b, "options: %s", why);
	b->s->has_options = 1;
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
	free(b->edges.v);
	free(b->edges.line);
	free(b->stalls);
	free(b->busycores);
	free(b->pairs.v);
	free(b->pairs.line);
}

int tb_scenario_parse(const char *text, size_t len, const char *name,
		      struct tb_scenario **out, char *err, size_t errlen)
{
	struct builder b = { .name = name, .err = err, .errlen = errlen };
	char *line, *w[MAX_WORDS];
	size_t pos = 0, cap;
	int rc;

	*out = NULL;
	b.s = calloc(1, sizeof(*b.s));
	if (!b.s || !(b.s->topo = tb_topology_new())) {
		free(b.s);
		return tb_scn_fail(&b, "out of memory");
	}
	/* A machine's running job may list thousands of scattered nodes;
	 * no line is longer than the text, so a short text needs no more. */
	cap = (len < TB_SCENARIO_MAX_LINE ? len : TB_SCENARIO_MAX_LINE) + 1;
	line = malloc(cap);
	if (!line) {
		tb_scn_fail(&b, "out of memory");
		goto bad;
	}
	b.s->job.comm = 1;
	b.s->job.pattern = TB_PATTERN_RD;
	b.s->job.comm_fraction = 0.5;
	b.s->opts = tb_options_default();
	while ((rc = tb_next_line(text, len, &pos, line, cap)) != 0) {
		int n;

		b.line++;
		if (rc < 0) {
			tb_scn_fail(&b, "line longer than %d bytes",
				    TB_SCENARIO_MAX_LINE);
			goto bad;
		}
		n = split(line, w);
		if (n == 0)
			continue;
		if (n < 0) {
			tb_scn_fail(&b, "more than %d words", MAX_WORDS);
			goto bad;
		}
		if (!strcmp(w[0], "leaf"))
			rc = tb_scn_leaf_line(&b, w, n);
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
			rc = tb_scn_torus_line(&b, w, n);
		else if (!strcmp(w[0], "busy"))
			rc = tb_scn_id_list_line(&b, w, n, 0);
		else if (!strcmp(w[0], "risky"))
			rc = tb_scn_id_list_line(&b, w, n, 1);
		else if (!strcmp(w[0], "pf"))
			rc = tb_scn_pf_line(&b, w, n);
		else if (!strcmp(w[0], "edge"))
			rc = tb_scn_edge_line(&b, w, n);
		else if (!strcmp(w[0], "router"))
			rc = tb_scn_router_line(&b, w, n);
		else if (!strcmp(w[0], "stall"))
			rc = tb_scn_stall_line(&b, w, n);
		else if (!strcmp(w[0], "now"))
			rc = tb_scn_now_line(&b, w, n);
		else if (!strcmp(w[0], "cores"))
			rc = tb_scn_cores_line(&b, w, n);
		else if (!strcmp(w[0], "busycores"))
			rc = tb_scn_busycores_line(&b, w, n);
		else if (!strcmp(w[0], "pair"))
			rc = tb_scn_pair_line(&b, w, n);
		else
			rc = tb_scn_fail(&b, "unknown keyword '%s' (leaf, router, switch, job, eval, options, running, stall, now, torus, busy, risky, pf, edge, cores, busycores, pair)", w[0]);
		if (rc)
			goto bad;
	}
	if (!b.s->has_job && !b.eval) {
		tb_scn_fail(&b, "no 'job' or 'eval' line");
		goto bad;
	}
	if (tb_scn_build(&b))
		goto bad;
	if (tb_scenario_observe(b.s)) {
		tb_scn_fail(&b, "out of memory");
		goto bad;
	}
	free(line);
	free(b.leaves);
	free(b.eval);
	free_running(&b);
	*out = b.s;
	return 0;
bad:
	free(line);
	free(b.leaves);
	free(b.eval);
	free_running(&b);
	tb_scenario_free(b.s);
	return -1;
}

/* tb_scenario_parse as load_text.h's parser (out: struct tb_scenario **). */
static int parse_scenario(const char *text, size_t len, const char *name,
			  void *out, char *err, size_t errlen)
{
	return tb_scenario_parse(text, len, name, out, err, errlen);
}

int tb_scenario_load(const char *path, struct tb_scenario **out, char *err,
		     size_t errlen)
{
	*out = NULL;
	return tb_load_text(path, parse_scenario, out, err, errlen);
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
