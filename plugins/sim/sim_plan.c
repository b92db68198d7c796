/*
 * The replay's plan as the twin's jobs: plan.tsv as workloads/replay
 * writes it (run_dir.py's PLAN_FIELDS, found by the header's names) and
 * the matrices the replay would send in each job's SPANK environment.
 * A job's profile is what the plugin reads from its comment
 * (slurm_io.job_fields: comm, pattern, percent, runtime x (1 - ta)).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/node_index.h"
#include "../lib/textfile.h"

enum col {
	C_LOG_ID, C_OFFSET, C_RUNTIME, C_NODES, C_COMM, C_PATTERN, C_PERCENT,
	C_LIMIT, C_TA, C_PREFILL, C_NODELIST, C_CHAIN, C_RANKS, C_COUNT
};

static const char *const col_name[C_COUNT] = {
	"log_id", "offset", "runtime", "nodes", "comm", "pattern",
	"comm_percent", "limit_min", "ta_reduction", "prefill", "nodelist",
	"chain", "ranks",
};

/* Columns a plan may lack (older plans): ta_reduction, prefill, nodelist,
 * chain, ranks; their value is then 0 or empty. */
static int optional(int c)
{
	return c >= C_TA;
}

static int number(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return (errno || *end || !isfinite(*out)) ? -1 : 0;
}

/* Splits a line at tabs in place; returns the fields found (at most max). */
static int split(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *c = line; *c && n < max; c++)
		if (*c == '\t') {
			*c = '\0';
			f[n++] = c + 1;
		}
	return n;
}

/* nodelist: node names, ',' between them, into j->fixed. */
static int parse_nodelist(struct sim_job *j, char *text,
			  const struct tb_node_index *idx,
			  char *err, size_t errlen)
{
	int cap = 1;

	for (char *c = text; *c; c++)
		cap += *c == ',';
	j->fixed = malloc(sizeof(int) * (size_t)cap);
	if (!j->fixed) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *save = NULL, *n = strtok_r(text, ",", &save); n;
	     n = strtok_r(NULL, ",", &save)) {
		int hit = tb_node_index_find(idx, n);

		if (hit < 0) {
			snprintf(err, errlen, "nodelist: unknown node '%s'", n);
			return -1;
		}
		j->fixed[j->n_fixed++] = hit;
	}
	if (j->n_fixed != j->nodes) {
		snprintf(err, errlen, "nodelist has %d nodes, the job %d",
			 j->n_fixed, j->nodes);
		return -1;
	}
	return 0;
}

static int parse_row(struct sim_job *j, char **f, const int *at, int nf,
		     double speedup, const struct tb_node_index *idx,
		     int n_nodes, long n_cores, char *err, size_t errlen)
{
	const char *v[C_COUNT];
	double x, perc, ta = 0, limit_min;

	for (int c = 0; c < C_COUNT; c++)
		v[c] = at[c] >= 0 && at[c] < nf ? f[at[c]] : NULL;
	for (int c = 0; c < C_COUNT; c++)
		if (!v[c] && !optional(c)) {
			snprintf(err, errlen, "missing %s", col_name[c]);
			return -1;
		}
	if (strlen(v[C_LOG_ID]) >= sizeof(j->log_id) || !*v[C_LOG_ID]) {
		snprintf(err, errlen, "log_id '%s': expected 1-%zu characters",
			 v[C_LOG_ID], sizeof(j->log_id) - 1);
		return -1;
	}
	strcpy(j->log_id, v[C_LOG_ID]);
	if (number(v[C_OFFSET], &j->offset) || j->offset < 0) {
		snprintf(err, errlen, "offset '%s': expected seconds >= 0",
			 v[C_OFFSET]);
		return -1;
	}
	if (number(v[C_RUNTIME], &j->runtime) || j->runtime < 0) {
		snprintf(err, errlen, "runtime '%s': expected seconds >= 0",
			 v[C_RUNTIME]);
		return -1;
	}
	if (number(v[C_NODES], &x) || x < 1 || x > n_nodes || x != floor(x)) {
		snprintf(err, errlen, "nodes '%s': expected a whole number "
			 "from 1 to the cluster's %d", v[C_NODES], n_nodes);
		return -1;
	}
	j->nodes = (int)x;
	if (number(v[C_COMM], &x) || (x != 0 && x != 1)) {
		snprintf(err, errlen, "comm '%s': expected 0 or 1", v[C_COMM]);
		return -1;
	}
	j->job.comm = (int)x;
	if (tb_pattern_parse(v[C_PATTERN], &j->job.pattern)) {
		snprintf(err, errlen, "pattern '%s': expected rhvd, rd, "
			 "binomial, ring or cmc", v[C_PATTERN]);
		return -1;
	}
	if (number(v[C_PERCENT], &perc) || perc < 0 || perc > 100) {
		snprintf(err, errlen, "comm_percent '%s': expected 0 to 100",
			 v[C_PERCENT]);
		return -1;
	}
	if (number(v[C_LIMIT], &limit_min) || limit_min < 0) {
		snprintf(err, errlen, "limit_min '%s': expected minutes >= 0 "
			 "(0: none)", v[C_LIMIT]);
		return -1;
	}
	/* 0 (LIMITS=none: no --time) is what Slurm's backfill makes of no
	 * limit under MaxTime=INFINITE: a year, planned and recorded
	 * (backfill.c l. 2621-2629, 3207-3210; docs/readings.md). */
	if (limit_min == 0)
		limit_min = SIM_NO_LIMIT_MIN;
	if (v[C_TA] && *v[C_TA] && (number(v[C_TA], &ta) || ta < 0 || ta >= 1)) {
		snprintf(err, errlen, "ta_reduction '%s': expected 0 to below 1",
			 v[C_TA]);
		return -1;
	}
	if (v[C_PREFILL] && *v[C_PREFILL]) {
		if (number(v[C_PREFILL], &x) || (x != 0 && x != 1)) {
			snprintf(err, errlen, "prefill '%s': expected 0 or 1",
				 v[C_PREFILL]);
			return -1;
		}
		j->prefill = (int)x;
	}
	if (v[C_CHAIN] && *v[C_CHAIN]) {
		if (number(v[C_CHAIN], &x) || x < 0 || x != floor(x)) {
			snprintf(err, errlen, "chain '%s': expected a whole "
				 "number >= 0", v[C_CHAIN]);
			return -1;
		}
		j->chain = (int)x;
	}
	/* GRANULARITY=core: that many one-CPU tasks (sbatch -n). */
	if (v[C_RANKS] && *v[C_RANKS]) {
		if (number(v[C_RANKS], &x) || x < 0 || x != floor(x) ||
		    x > (double)n_cores) {
			snprintf(err, errlen, "ranks '%s': expected a whole "
				 "number from 0 (whole nodes) to the cluster's "
				 "%ld cores", v[C_RANKS], n_cores);
			return -1;
		}
		j->ranks = (int)x;
		if (j->ranks && v[C_NODELIST] && *v[C_NODELIST]) {
			snprintf(err, errlen, "ranks %d with a nodelist: "
				 "expected one or the other", j->ranks);
			return -1;
		}
	}
	/* The runtime the job's comment carries (slurm_io.job_fields). */
	j->runtime *= 1 - ta;
	/* limit_min is Slurm's minutes, each 60 x SPEEDUP log seconds. */
	j->limit = limit_min * 60 * speedup;
	j->job.nodes = j->nodes;
	j->job.comm_fraction = perc / 100;
	j->planned = -1;
	if (v[C_NODELIST] && *v[C_NODELIST]) {
		char *copy = strdup(v[C_NODELIST]);
		int rc;

		if (!copy) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		rc = parse_nodelist(j, copy, idx, err, errlen);
		free(copy);
		return rc;
	}
	return 0;
}

struct by_id {
	const char *id;
	int index;
};

static int cmp_id(const void *a, const void *b)
{
	return strcmp(((const struct by_id *)a)->id,
		      ((const struct by_id *)b)->id);
}

/* The matrices file: "<log_id>\t<matrix>" per line, ';' for newlines. */
static int load_matrices(const char *path, struct sim_plan *p, char *err,
			 size_t errlen)
{
	struct by_id *ids = malloc(sizeof(*ids) * (size_t)(p->n ? p->n : 1));
	char *text = NULL, *save = NULL, e[256];
	size_t len;
	int line = 0, rc = -1;

	if (!ids) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < p->n; i++)
		ids[i] = (struct by_id) { p->jobs[i].log_id, i };
	qsort(ids, (size_t)p->n, sizeof(*ids), cmp_id);
	if (!(text = tb_read_file(path, &len))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(l, '\t');
		struct by_id key, *hit;
		struct sim_job *j;

		line++;
		if (!tab) {
			snprintf(err, errlen, "%s:%d: expected <log_id>\\t<matrix>",
				 path, line);
			goto out;
		}
		*tab = '\0';
		key.id = l;
		hit = bsearch(&key, ids, (size_t)p->n, sizeof(*ids), cmp_id);
		if (!hit) {
			snprintf(err, errlen, "%s:%d: log job '%s' is not in the plan",
				 path, line, l);
			goto out;
		}
		j = &p->jobs[hit->index];
		for (char *c = tab + 1; *c; c++)
			if (*c == ';')
				*c = '\n';
		tb_matrix_free(j->matrix);
		j->matrix = NULL;
		if (tb_matrix_parse(tab + 1, strlen(tab + 1), path, &j->matrix,
				    e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: job %s: %s", path, line,
				 l, e);
			goto out;
		}
		j->job.matrix = j->matrix;
		if (j->ranks && j->matrix->ranks != j->ranks) {
			snprintf(err, errlen, "%s:%d: job %s: a matrix of %d "
				 "ranks, the job has %d", path, line, l,
				 j->matrix->ranks, j->ranks);
			goto out;
		}
	}
	rc = 0;
out:
	free(text);
	free(ids);
	return rc;
}

int sim_plan_parse(const char *plan_text, const char *path, double speedup,
		   const struct tb_topology *t, struct sim_plan *out,
		   char *err, size_t errlen)
{
	char *text = strdup(plan_text), *save = NULL, e[256], *f[64];
	struct tb_node_index idx = { 0, NULL };
	int at[C_COUNT], line = 0, cap = 0, nf;
	long n_cores = 0;

	memset(out, 0, sizeof(*out));
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (tb_node_index_build(t, &idx))
		goto oom;
	for (int k = 0; k < t->n_nodes; k++)
		n_cores += t->nodes[k].cores;
	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		line++;
		nf = split(l, f, 64);
		if (line == 1) {
			for (int c = 0; c < C_COUNT; c++) {
				at[c] = -1;
				for (int k = 0; k < nf; k++)
					if (!strcmp(f[k], col_name[c]))
						at[c] = k;
				if (at[c] < 0 && !optional(c)) {
					snprintf(err, errlen, "%s:1: no column "
						 "'%s'; is this a replay's "
						 "plan.tsv?", path,
						 col_name[c]);
					goto fail;
				}
			}
			continue;
		}
		if (out->n == cap) {
			int nc = cap ? 2 * cap : 1024;
			struct sim_job *nj = realloc(out->jobs,
						     sizeof(*nj) * (size_t)nc);
			if (!nj)
				goto oom;
			out->jobs = nj;
			cap = nc;
		}
		memset(&out->jobs[out->n], 0, sizeof(out->jobs[0]));
		if (parse_row(&out->jobs[out->n++], f, at, nf, speedup, &idx,
			      t->n_nodes, n_cores, e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: %s", path, line, e);
			goto fail;
		}
	}
	if (line == 0) {
		snprintf(err, errlen, "%s: empty; expected a replay's plan.tsv",
			 path);
		goto fail;
	}
	free(text);
	tb_node_index_free(&idx);
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
fail:
	free(text);
	tb_node_index_free(&idx);
	sim_plan_free(out);
	return -1;
}

void sim_plan_free(struct sim_plan *p)
{
	for (int i = 0; i < p->n; i++) {
		tb_matrix_free(p->jobs[i].matrix);
		free(p->jobs[i].fixed);
		free(p->jobs[i].alloc);
		free(p->jobs[i].on);
		free(p->jobs[i].on_cores);
		free(p->jobs[i].costed);
	}
	free(p->jobs);
	p->jobs = NULL;
	p->n = 0;
}

int sim_plan_load(const char *path, const char *matrices, double speedup,
		  const struct tb_topology *t, struct sim_plan *out,
		  char *err, size_t errlen)
{
	size_t len;
	char *text = tb_read_file(path, &len);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = sim_plan_parse(text, path, speedup, t, out, err, errlen);
	free(text);
	if (!rc && matrices && load_matrices(matrices, out, err, errlen)) {
		sim_plan_free(out);
		return -1;
	}
	return rc;
}
