/*
 * tb-isolation: checks that jobs running at the same time were placed as
 * the SC18 paper's interference-free policy requires (isolation.h):
 * T1 jobs on one leaf, T2 jobs in one pod, at most one T2-or-T3 job per
 * leaf and one T3 job per pod at any time.
 *
 *   tb-isolation <topology.json> [jobs|-]
 *
 * jobs: one line per job, '#' starts a comment:
 *
 *   <id> <start> <end> <node-indexes>      e.g.  1234 1700000000 1700003600 0-17,36
 *
 * start and end are integers (seconds, say); a job runs in [start, end).
 * Node indexes are positions in the topology JSON's node list.
 *
 * Prints one violation per line and exits 1 if there is any:
 *
 *   t1-leaves <id> leaves=<n>          a T1 job on n leaves
 *   t2-pods <id> pods=<n>              a T2 job in n pods
 *   leaf-shared <leaf> <id> <id>       two T2-or-T3 jobs on one leaf
 *   pod-shared <pod> <id> <id>         two T3 jobs in one pod
 *
 * Exit 0: isolated; 1: violations; 2: usage or input error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/isolation.h"

struct input {
	struct tb_placed_job *jobs;
	char **ids;
	int n, cap;
};

struct printer {
	const struct tb_topology *t;
	char **ids;
};

static int print_violation(const struct tb_violation *v, void *arg)
{
	const struct printer *p = arg;
	const char *sw = v->sw >= 0 ? p->t->switches[v->sw].name : "?";

	switch (v->kind) {
	case TB_V_T1_LEAVES:
		printf("t1-leaves %s leaves=%d\n", p->ids[v->a], v->count);
		break;
	case TB_V_T2_PODS:
		printf("t2-pods %s pods=%d\n", p->ids[v->a], v->count);
		break;
	case TB_V_LEAF_SHARED:
		printf("leaf-shared %s %s %s\n", sw, p->ids[v->a], p->ids[v->b]);
		break;
	case TB_V_POD_SHARED:
		printf("pod-shared %s %s %s\n", sw, p->ids[v->a], p->ids[v->b]);
		break;
	}
	return 0;
}

static void free_input(struct input *in)
{
	for (int j = 0; j < in->n; j++) {
		free(in->ids[j]);
		free((int *)in->jobs[j].nodes);
	}
	free(in->ids);
	free(in->jobs);
}

static int parse_ll(const char *s, long long *out)
{
	char *end;

	if (!s)
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

static int read_jobs(FILE *f, const char *name, int n_nodes,
		     struct input *in)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	while (getline(&line, &cap, f) > 0) {
		char *hash = strchr(line, '#'), *id, *w[3], *extra;
		struct tb_placed_job *j;
		int *nodes, n;

		lineno++;
		if (hash)
			*hash = '\0';
		id = strtok(line, " \t\r\n");
		if (!id)
			continue;
		for (int k = 0; k < 3; k++)
			w[k] = strtok(NULL, " \t\r\n");
		extra = strtok(NULL, " \t\r\n");
		if (in->n == in->cap) {
			int nc = in->cap ? in->cap * 2 : 64;
			void *a = realloc(in->jobs, sizeof(*in->jobs) * (size_t)nc);
			void *b = a ? realloc(in->ids, sizeof(*in->ids) * (size_t)nc) : NULL;
			if (a)
				in->jobs = a;
			if (b)
				in->ids = b;
			if (!a || !b) {
				fprintf(stderr, "tb-isolation: out of memory\n");
				rc = -1;
				break;
			}
			in->cap = nc;
		}
		j = &in->jobs[in->n];
		if (!w[2] || extra || parse_ll(w[0], &j->start) ||
		    parse_ll(w[1], &j->end)) {
			fprintf(stderr, "tb-isolation: %s:%d: expected '<id> <start> <end> <node-indexes>'\n",
				name, lineno);
			rc = -1;
			break;
		}
		if (tb_parse_index_list(w[2], n_nodes, &nodes, &n)) {
			fprintf(stderr, "tb-isolation: %s:%d: node indexes '%s': expected e.g. 0-3,9, each below %d\n",
				name, lineno, w[2], n_nodes);
			rc = -1;
			break;
		}
		j->nodes = nodes;
		j->n_nodes = n;
		in->ids[in->n] = strdup(id);
		if (!in->ids[in->n]) {
			free(nodes);
			fprintf(stderr, "tb-isolation: out of memory\n");
			rc = -1;
			break;
		}
		in->n++;
	}
	free(line);
	return rc;
}

int main(int argc, char **argv)
{
	struct tb_topology *t;
	struct input in = { 0 };
	struct printer pr;
	const char *name = argc > 2 ? argv[2] : "-";
	FILE *f = stdin;
	char err[512];
	long found;
	int rc;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: tb-isolation <topology.json> [jobs|-]\n");
		return 2;
	}
	if (tb_topology_load(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "tb-isolation: %s\n", err);
		return 2;
	}
	if (strcmp(name, "-") && !(f = fopen(name, "r"))) {
		fprintf(stderr, "tb-isolation: %s: %s\n", name, strerror(errno));
		tb_topology_free(t);
		return 2;
	}
	rc = read_jobs(f, name, t->n_nodes, &in);
	if (f != stdin)
		fclose(f);
	if (rc) {
		free_input(&in);
		tb_topology_free(t);
		return 2;
	}
	pr.t = t;
	pr.ids = in.ids;
	found = tb_isolation_check(t, in.jobs, in.n, print_violation, &pr);
	if (found < 0)
		fprintf(stderr, "tb-isolation: out of memory\n");
	free_input(&in);
	tb_topology_free(t);
	return found < 0 ? 2 : found > 0;
}
