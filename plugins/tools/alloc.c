/*
 * tb-alloc: run the allocation policies on a scenario file and print, per
 * policy, the leaves it took in allocation order, the cost (Eq. 6) and the
 * node indexes taken (topology order, as a scenario's `running` lines):
 *
 *   default L1:160 L2:150 L3:100 L4:80 L5:22 cost=... nodes=0-521
 *
 * A policy that would not place the job now although enough nodes are free
 * (isolated, SC18) prints "<policy> wait <reason>"; one that finds too few
 * free nodes prints "<policy> -" (reason on stderr).
 *
 * On a torus scenario (TOFA), each policy prints its nodes, its map (the
 * node of process 0, 1, ...), Eq. 1's cost, plain hop-bytes and the
 * probability that an attempt aborts:
 *
 *   tofa nodes=3-6 map=3,4,5,6 cost=3 hops=3 abort=0
 *
 * and `all` runs default and the policies with the torus trait (which
 * `all` leaves out on any other machine).
 * A router scenario (`router` lines, NeDD; plugins/lib/scenario.h) prints
 * the routers taken and the nodes, without the ICPP cost, and a NeDD
 * strategy that finds fewer free nodes than the job asks for prints
 * "<policy> wait <reason>":
 *
 *   ltr R1:4 R2:2 nodes=4-9
 *
 * and, with --pressure, when the job names an application of NeDD's
 * profile table, the runtime model's inputs and factor of that placement
 * (nedd_runtime.c, as the Slurm plugin's record; no jitter; the traffic
 * is the scenario's, so state mode refuses --pressure):
 *
 *   ltr R3:4 R5:1 nodes=12-15,20 pressure_u=0 pressure_g=7.945375
 *       runtime_factor=2.2537325          (examples/nedd-window.scenario)
 *
 * With an 'eval' line, prints the cost of that allocation instead.
 *
 * A job of ranks (`job ranks=`, `pair` lines: TreeMatch, IJHPCA 2018;
 * plugins/lib/place_cores.h says how each policy places them) prints, per
 * policy, the nodes it took, the node of each rank, and the hop-bytes
 * with cores as the tree's leaves (Sec. 3.1.3) and at node level:
 *
 *   tm-i nodes=0-1 ranks=0,1,1,0 hopbytes=360 nodehopbytes=60
 *
 * The policies' refusals are printed as above.
 *
 * State mode, for comparing with a running Slurm on the same snapshot:
 *
 *   tb-alloc --topology topology.json --busy n1,n2 [--busy-comm n3]
 *            --job nodes=6[,comm=1,pattern=rd] [policy|all]
 *
 * prints "<policy> <node>,<node>,..." in rank order.
 *
 * Either mode takes --options "<words>" (plugins/lib/options.h, e.g.
 * "eq3=path fit=quiet"), applied after a scenario's own options line.
 *
 *   tb-alloc --list-policies
 *
 * prints the policy registry (plugins/lib/policy_registry.def), one line
 * per policy, tab-separated: name, family, traits (',' between them, '-'
 * for none), paper. The build writes it to policies.tsv, which the scripts
 * read (make -C plugins registry).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cost.h"
#include "../lib/isolation.h"
#include "../lib/nedd.h"
#include "../lib/node_index.h"
#include "../lib/place_cores.h"
#include "../lib/policy.h"
#include "../lib/scenario.h"
#include "../lib/textfile.h"
#include "../lib/tofa.h"

static void usage(void)
{
	char words[1024], *save = NULL;
	size_t col = 8;

	fprintf(stderr,
		"usage: tb-alloc <scenario> [<policy>|all] [--options <words>]\n"
		"                [--pressure]\n"
		"       tb-alloc --topology <json> [--busy <names>]\n"
		"                [--busy-comm <names>]\n"
		"                --job nodes=<n>[,comm=0|1,pattern=<p>,app=<a>,\n"
		"                class=sensitive|insensitive,seed=<n>]\n"
		"                [--options <words>] [<policy>|all]\n"
		"       tb-alloc --list-policies\n"
		"policies:");
	for (int p = 0; p < TB_POLICY_COUNT; p++)
		fprintf(stderr, " %s", tb_policy_name((enum tb_policy)p));
	/* The library's option words from its table (options.c), wrapped. */
	if (tb_options_words_format(words, sizeof(words)) < 0)
		words[0] = '\0';
	fprintf(stderr, "\noptions:");
	for (char *w = strtok_r(words, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		if (col + 1 + strlen(w) > 72) {
			fprintf(stderr, "\n        ");
			col = 8;
		}
		col += 1 + strlen(w);
		fprintf(stderr, " %s", w);
	}
	fprintf(stderr,
		"\n         NeDD: theta=<f> unprofiled=<strategy> window=<s>\n"
		"         stall_g=<g> stall_noise=<x> stall=chassis|routed\n"
		"         inj_kernel=<x> inj_canary=<x> inj_<app>=<x>\n"
		"         inj_unnamed=<x> jitter=<x> seed=<n>\n");
}

/* Marks comma-separated node names with state. */
static int mark_nodes(const struct tb_topology *t, struct tb_occupancy *o,
		      char *names, int state)
{
	/* By name (node_index.h): --busy lists can be as long as the
	 * machine (a replay's INDIVIDUAL= places its occupying jobs so). */
	struct tb_node_index idx;

	if (tb_node_index_build(t, &idx)) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		return -1;
	}
	for (char *n = strtok(names, ","); n; n = strtok(NULL, ",")) {
		int i = tb_node_index_find(&idx, n);
		if (i < 0) {
			fprintf(stderr, "tb-alloc: --busy: unknown node '%s'\n", n);
			tb_node_index_free(&idx);
			return -1;
		}
		o->state[i] = (unsigned char)state;
	}
	tb_node_index_free(&idx);
	return 0;
}

/* --job nodes=<n>[,comm=0|1,pattern=<p>]: 0, or -1 after a one-line error
 * naming the value and what was expected. */
static int parse_job(const char *spec, struct tb_job *job)
{
	char *copy = strdup(spec), *save = NULL;
	int rc = -1;

	job->comm = 1;
	job->pattern = TB_PATTERN_RD;
	job->comm_fraction = 0.5;
	if (!copy) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		return -1;
	}
	for (char *kv = strtok_r(copy, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');

		if (!v) {
			fprintf(stderr, "tb-alloc: --job %s: '%s': expected "
				"key=value\n", spec, kv);
			goto out;
		}
		*v++ = '\0';
		if (!strcmp(kv, "nodes")) {
			if (tb_parse_int(v, 1, INT_MAX, &job->nodes)) {
				fprintf(stderr, "tb-alloc: --job %s: "
					"nodes='%s': expected a whole number "
					"of nodes, at least 1\n", spec, v);
				goto out;
			}
		} else if (!strcmp(kv, "comm")) {
			if (tb_parse_int(v, 0, 1, &job->comm)) {
				fprintf(stderr, "tb-alloc: --job %s: "
					"comm='%s': expected 0 or 1\n", spec,
					v);
				goto out;
			}
		} else if (!strcmp(kv, "pattern")) {
			if (tb_pattern_parse(v, &job->pattern)) {
				fprintf(stderr, "tb-alloc: --job %s: "
					"pattern='%s': expected rd, rhvd, "
					"binomial, ring or cmc\n", spec, v);
				goto out;
			}
		} else if (!strcmp(kv, "app")) {
			if (!*v || strlen(v) >= sizeof(job->app)) {
				fprintf(stderr, "tb-alloc: --job %s: app='%s': "
					"expected a name of 1-%zu characters\n",
					spec, v, sizeof(job->app) - 1);
				goto out;
			}
			snprintf(job->app, sizeof(job->app), "%s", v);
		} else if (!strcmp(kv, "class")) {
			enum tb_nedd_class c;

			if (tb_nedd_class_parse(v, &c)) {
				fprintf(stderr, "tb-alloc: --job %s: class='%s': "
					"expected sensitive or insensitive\n",
					spec, v);
				goto out;
			}
			job->net_class = (int)c;
		} else if (!strcmp(kv, "seed")) {
			char *end;

			errno = 0;
			job->seed = strtoull(v, &end, 10);
			if (errno || *end || end == v || *v == '-') {
				fprintf(stderr, "tb-alloc: --job %s: seed='%s': "
					"expected a whole number from 0 to "
					"2^64-1\n", spec, v);
				goto out;
			}
		} else {
			fprintf(stderr, "tb-alloc: --job %s: unknown key '%s' "
				"(nodes, comm, pattern, app, class, seed)\n",
				spec, kv);
			goto out;
		}
	}
	if (job->nodes < 1)
		fprintf(stderr, "tb-alloc: --job %s: expected nodes=<n>\n",
			spec);
	else
		rc = 0;
out:
	free(copy);
	return rc;
}

/* Removes "--options <words>" from argv into *words; returns the new
 * argc. */
static int take_options(int argc, char **argv, const char **words,
			int *pressure)
{
	int out = 0;

	*words = NULL;
	*pressure = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--options") && i + 1 < argc) {
			*words = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--pressure")) {
			*pressure = 1;
			continue;
		}
		argv[out++] = argv[i];
	}
	return out;
}

static int apply_options(const char *words, struct tb_options *o)
{
	char err[200];

	if (words && tb_options_parse(words, o, err, sizeof(err))) {
		fprintf(stderr, "tb-alloc: --options: %s\n", err);
		return -1;
	}
	return 0;
}

static int state_mode(int argc, char **argv, const char *words)
{
	const char *topo_path = NULL, *policy = "all";
	char *busy = NULL, *busy_comm = NULL, *job_spec = NULL, err[512];
	struct tb_topology *t;
	struct tb_occupancy *o;
	struct tb_job job = { 0 };
	struct tb_options opts = tb_options_default();
	int *alloc, failed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--topology") && i + 1 < argc)
			topo_path = argv[++i];
		else if (!strcmp(argv[i], "--busy") && i + 1 < argc)
			busy = argv[++i];
		else if (!strcmp(argv[i], "--busy-comm") && i + 1 < argc)
			busy_comm = argv[++i];
		else if (!strcmp(argv[i], "--job") && i + 1 < argc)
			job_spec = argv[++i];
		else if (argv[i][0] != '-' && i == argc - 1)
			policy = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (!topo_path || !job_spec) {
		usage();
		return 2;
	}
	if (parse_job(job_spec, &job))
		return 2;
	if (apply_options(words, &opts))
		return 2;
	if (tb_topology_load(topo_path, &t, err, sizeof(err))) {
		fprintf(stderr, "tb-alloc: %s\n", err);
		return 1;
	}
	o = tb_occupancy_new(t->n_nodes);
	alloc = malloc(sizeof(int) * (size_t)t->n_nodes);
	if (!o || !alloc ||
	    (busy && mark_nodes(t, o, busy, TB_NODE_BUSY)) ||
	    (busy_comm && mark_nodes(t, o, busy_comm, TB_NODE_BUSY_COMM))) {
		failed = 1;
		goto out;
	}
	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		enum tb_status rc;
		if (strcmp(policy, "all") && strcmp(policy, tb_policy_name(p)))
			continue;
		/* `all` off a torus leaves out the torus policies. */
		if (!strcmp(policy, "all") && !t->torus_node &&
		    tb_policy_has((enum tb_policy)p, TB_TRAIT_TORUS))
			continue;
		rc = tb_allocate_with((enum tb_policy)p, t, o, &job, &opts,
				      alloc);
		if (rc != TB_OK) {
			fprintf(stderr, "tb-alloc: %s: %s\n", tb_policy_name(p),
				tb_status_str(rc));
			failed = 1;
			continue;
		}
		printf("%s ", tb_policy_name(p));
		for (int k = 0; k < job.nodes; k++)
			printf("%s%s", k ? "," : "", t->nodes[alloc[k]].name);
		printf("\n");
	}
out:
	free(alloc);
	tb_occupancy_free(o);
	tb_topology_free(t);
	return failed;
}

static void print_allocation(const char *label, const struct tb_topology *t,
			     const int *alloc, int n, double cost, int nodes,
			     int with_cost)
{
	printf("%s", label);
	for (int k = 0; k < n;) {
		int leaf = t->nodes[alloc[k]].leaf, run = 0;
		while (k < n && t->nodes[alloc[k]].leaf == leaf) {
			run++;
			k++;
		}
		printf(" %s:%d", t->switches[leaf].name, run);
	}
	if (with_cost)
		printf(" cost=%g", cost);
	if (nodes) {
		char buf[4096];
		tb_format_index_list(alloc, n, buf, sizeof(buf));
		printf(" nodes=%s", buf);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* On a torus (TOFA): "<policy> nodes=<ids> map=<node of process 0>,...
 * cost=<Eq. 1> hops=<hop-bytes> abort=<probability per attempt>" (the
 * nodes it depends on as option exposure= says), and
 * " fallback" when tofa found no clean window and mapped onto every free
 * node (Listing 1.1 l. 12), " fallback=window" when it took the window
 * with the fewest risky nodes instead (option fallback=window). */
static int print_torus(const struct tb_scenario *s, enum tb_policy p,
		       const int *alloc)
{
	struct tb_tofa_graph g;
	struct tb_tofa_eval ev;
	int n = s->job.nodes, *sorted = malloc(sizeof(int) * (size_t)n);
	char buf[4096];

	if (!sorted || tb_tofa_graph_build(s->job.matrix, n, &g)) {
		free(sorted);
		fprintf(stderr, "tb-alloc: out of memory\n");
		return 1;
	}
	if (tb_tofa_evaluate(s->topo, s->occ->failure_prob, &g, alloc,
			     s->opts.penalty, s->opts.exposure, &ev)) {
		free(sorted);
		tb_tofa_graph_free(&g);
		fprintf(stderr, "tb-alloc: out of memory\n");
		return 1;
	}
	tb_tofa_graph_free(&g);
	for (int k = 0; k < n; k++)
		sorted[k] = alloc[k];
	qsort(sorted, (size_t)n, sizeof(int), cmp_int);
	tb_format_index_list(sorted, n, buf, sizeof(buf));
	free(sorted);
	printf("%s nodes=%s map=", tb_policy_name(p), buf);
	for (int k = 0; k < n; k++)
		printf("%s%d", k ? "," : "", alloc[k]);
	printf(" cost=%g hops=%g abort=%g", ev.cost, ev.hops, ev.abort);
	if (p == TB_POLICY_TOFA &&
	    tb_tofa_window(s->topo, s->occ, s->occ->failure_prob, n) < 0)
		printf(" %s", s->opts.fallback == TB_FALLBACK_WINDOW &&
		       tb_tofa_window_fewest_risky(s->topo, s->occ,
						   s->occ->failure_prob,
						   n) >= 0 ?
		       "fallback=window" : "fallback");
	printf("\n");
	return 0;
}

/* A job of ranks: "<policy> nodes=<ids> ranks=<node of rank 0>,...
 * hopbytes=<core level> nodehopbytes=<node level>". */
static int run_ranks(const struct tb_scenario *s, enum tb_policy p)
{
	int r = s->matrix->ranks, n = 0;
	int *node_of = malloc(sizeof(int) * (size_t)r);
	int *sorted = malloc(sizeof(int) * (size_t)r);
	char why[256] = "", buf[4096];
	enum tb_status rc;

	if (!node_of || !sorted) {
		free(node_of);
		free(sorted);
		fprintf(stderr, "tb-alloc: out of memory\n");
		return 1;
	}
	rc = tb_place_ranks(p, s->topo, s->occ, &s->job, &s->opts, node_of,
			    why, sizeof(why));
	if (rc == TB_EWAIT ||
	    (rc == TB_ENOSPACE && tb_policy_info(p)->family == TB_FAMILY_NEDD)) {
		printf("%s wait %s\n", tb_policy_name(p),
		       why[0] ? why : tb_status_str(rc));
		free(node_of);
		free(sorted);
		return 0;
	}
	if (rc != TB_OK) {
		printf("%s -\n", tb_policy_name(p));
		fprintf(stderr, "tb-alloc: %s: %s\n", tb_policy_name(p),
			why[0] ? why : tb_status_str(rc));
		free(node_of);
		free(sorted);
		return 1;
	}
	for (int k = 0; k < r; k++)
		sorted[k] = node_of[k];
	qsort(sorted, (size_t)r, sizeof(int), cmp_int);
	for (int k = 0; k < r; k++)
		if (!n || sorted[n - 1] != sorted[k])
			sorted[n++] = sorted[k];
	tb_format_index_list(sorted, n, buf, sizeof(buf));
	printf("%s nodes=%s ranks=", tb_policy_name(p), buf);
	for (int k = 0; k < r; k++)
		printf("%s%d", k ? "," : "", node_of[k]);
	printf(" hopbytes=%g nodehopbytes=%g\n",
	       tb_hop_bytes_cores(s->topo, s->matrix, node_of),
	       tb_hop_bytes_nodes(s->topo, s->matrix, node_of));
	free(node_of);
	free(sorted);
	return 0;
}

/* --pressure on a router scenario whose job names an application of the
 * profile table (nedd.h): " pressure_u=<U> pressure_g=<G>
 * runtime_factor=<1 + sigma (a G + b U)>" of the allocation under the
 * scenario's T, as the Slurm plugin's record (nedd_runtime.c; the jitter
 * left out). */
static int print_pressure(const struct tb_scenario *s, const int *alloc)
{
	double U = 0, G = 0;

	if (!s->has_routers || tb_nedd_app_find(s->job.app) < 0)
		return 0;
	if (tb_nedd_pressure(s->topo, s->occ->router_traffic, alloc,
			     s->job.nodes, &U, &G)) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		return 1;
	}
	printf(" pressure_u=%.9g pressure_g=%.9g runtime_factor=%.9g", U, G,
	       tb_nedd_runtime_factor(s->job.app, U, G));
	return 0;
}

static int run_policy(const struct tb_scenario *s, enum tb_policy p, int *alloc,
		      int pressure)
{
	int rc_print = 0;

	double cost;
	char why[256];
	enum tb_status rc;

	if (s->ranks)
		return run_ranks(s, p);
	rc = tb_allocate_why(p, s->topo, s->occ, &s->job, &s->opts, alloc,
			     why, sizeof(why));
	if (rc == TB_EWAIT) {
		printf("%s wait %s\n", tb_policy_name(p), why);
		return 0;
	}
	/* NeDD's strategies take nodes as they free up (L104: the experiment
	 * first gets its idle nodes): too few free is a wait, not an error. */
	if (rc == TB_ENOSPACE &&
	    tb_policy_info(p)->family == TB_FAMILY_NEDD) {
		int n_free = 0;

		for (int k = 0; k < s->topo->n_nodes; k++)
			n_free += s->occ->state[k] == TB_NODE_FREE;
		printf("%s wait %d free nodes, the job asks for %d\n",
		       tb_policy_name(p), n_free, s->job.nodes);
		return 0;
	}
	if (rc != TB_OK) {
		printf("%s -\n", tb_policy_name(p));
		fprintf(stderr, "tb-alloc: %s: %s for a %d-node job\n",
			tb_policy_name(p), tb_status_str(rc), s->job.nodes);
		return 1;
	}
	if (s->topo->torus_node)
		return print_torus(s, p, alloc);
	if (tb_allocation_cost_with(s->topo, s->occ, &s->job, &s->opts, alloc,
				    &cost)) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		return 1;
	}
	print_allocation(tb_policy_name(p), s->topo, alloc, s->job.nodes, cost, 1,
			 !s->has_routers);
	if (pressure)
		rc_print = print_pressure(s, alloc);
	printf("\n");
	return rc_print;
}

/* The registry, one tab-separated line per policy. */
static int list_policies(void)
{
	char line[512];

	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		int n = tb_policy_format((enum tb_policy)p, line, sizeof(line));

		if (n < 0 || (size_t)n >= sizeof(line)) {
			fprintf(stderr, "tb-alloc: policy %d: line too long\n",
				p);
			return 1;
		}
		printf("%s\n", line);
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct tb_scenario *s;
	char err[512];
	int *alloc, failed = 0, first = 0, last = TB_POLICY_COUNT - 1, pressure;
	enum tb_policy only;
	const char *words;

	argc = take_options(argc, argv, &words, &pressure);
	if (argc == 2 && !strcmp(argv[1], "--list-policies"))
		return list_policies();
	if (argc >= 2 && !strcmp(argv[1], "--topology")) {
		/* U and G are under a scenario's router traffic T (its router
		 * and running lines); a topology and busy lists have none. */
		if (pressure) {
			fprintf(stderr, "tb-alloc: --pressure needs a router "
				"scenario's traffic: give a scenario file, not "
				"--topology\n");
			return 2;
		}
		return state_mode(argc, argv, words);
	}
	if (argc < 2 || argc > 3) {
		usage();
		return 2;
	}
	if (argc == 3 && strcmp(argv[2], "all")) {
		if (tb_policy_parse(argv[2], &only)) {
			fprintf(stderr, "tb-alloc: unknown policy '%s'\n",
				argv[2]);
			usage();
			return 2;
		}
		first = last = (int)only;
	}
	if (tb_scenario_load(argv[1], &s, err, sizeof(err))) {
		fprintf(stderr, "tb-alloc: %s\n", err);
		return 1;
	}
	if (apply_options(words, &s->opts)) {
		tb_scenario_free(s);
		return 2;
	}
	/* The window and the injections may have changed. */
	if (words && tb_scenario_observe(s)) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		tb_scenario_free(s);
		return 1;
	}
	alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	if (!alloc) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		tb_scenario_free(s);
		return 1;
	}
	if (s->n_eval) {
		double cost;
		if (tb_allocation_cost_with(s->topo, s->occ, &s->job, &s->opts,
					    s->eval_alloc, &cost)) {
			fprintf(stderr, "tb-alloc: out of memory\n");
			failed = 1;
		} else {
			print_allocation("eval", s->topo, s->eval_alloc, s->n_eval,
					 cost, 0, 1);
			printf("\n");
		}
	} else {
		for (int p = first; p <= last; p++) {
			/* On a torus, `all` is Slurm's choice and the torus
			 * policies (TOFA's): the tree policies see it as one
			 * leaf, where each is first fit. */
			int torus_only = tb_policy_has((enum tb_policy)p,
						       TB_TRAIT_TORUS);

			if (first != last && s->topo->torus_node &&
			    tb_policy_info((enum tb_policy)p)->family !=
			    TB_FAMILY_SLURM && !torus_only)
				continue;
			/* Off a torus, the torus policies have no routes. */
			if (first != last && !s->topo->torus_node && torus_only)
				continue;
			failed |= run_policy(s, (enum tb_policy)p, alloc,
					     pressure);
		}
	}
	free(alloc);
	tb_scenario_free(s);
	return failed;
}
