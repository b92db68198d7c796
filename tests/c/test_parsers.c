/* Parsers: clear one-line errors with file and line, nothing half-built. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "helpers.h"
#include "json.h"
#include "matrix.h"
#include "profile.h"
#include "scenario.h"
#include "tests.h"
#include "textfile.h"
#include "topology.h"

void test_scenario_errors(void)
{
	expect_scenario_error("leaf a 4 0 0\nleaf b 4 9 0\njob nodes=2\n",
			      "x:2: leaf b: busy '9' is not a number from 0 to 4");
	expect_scenario_error("leaf a 4 0 0\njob nodes=2 pattern=zigzag\n",
			      "x:2: pattern='zigzag': expected rd, rhvd, binomial, ring or cmc");
	expect_scenario_error("leaf a 4 0 0\nfoo\n", "x:2: unknown keyword 'foo'");
	expect_scenario_error("leaf a 4 0 0\n", "no 'job' or 'eval' line");
	expect_scenario_error("leaf a 4 0 0\njob nodes=2\neval a:1 z:1\n",
			      "x:3: eval: unknown leaf 'z'");
	expect_scenario_error("leaf a 4 2 0\njob nodes=3\neval a:3\n",
			      "x:3: eval: leaf a has 2 free nodes left");
	expect_scenario_error("leaf a 4 0 0\nleaf a 4 0 0\njob nodes=1\n",
			      "x:2: 'a' defined twice");
	expect_scenario_error("leaf a 4 0 0 parent b\nswitch b parent a\njob nodes=1\n",
			      "cycle");
}

/*
 * Scenario lines up to TB_SCENARIO_MAX_LINE bytes (scenario.h: a replayed
 * machine's running job lists its scattered nodes; workloads/nedd_model.py
 * writes such lines; they were cut at 1023 bytes): a running line of
 * 1,000 scattered nodes is read whole, a line of exactly the limit is
 * read, one byte more is refused with the limit named.
 */
void test_scenario_long_lines(void)
{
	size_t cap = TB_SCENARIO_MAX_LINE + 64, n = 0;
	char *text = malloc(cap);
	struct tb_scenario *s = NULL;
	char err[256] = "";

	CHECK(text != NULL);
	if (!text)
		return;
	n += (size_t)snprintf(text + n, cap - n, "router A 2000\nrunning nodes=");
	for (int k = 0; k < 2000; k += 2)
		n += (size_t)snprintf(text + n, cap - n, "%s%d", k ? "," : "", k);
	n += (size_t)snprintf(text + n, cap - n, " inj=1\njob nodes=1\n");
	CHECK(n > 4096 && n < cap);
	CHECK_EQ(tb_scenario_parse(text, n, "x", &s, err, sizeof(err)), 0);
	if (s) {
		CHECK_EQ(s->n_runs, 1);
		CHECK_EQ(s->runs[0].n, 1000);
		CHECK_EQ(s->runs[0].nodes[999], 1998);
		tb_scenario_free(s);
		s = NULL;
	} else {
		fprintf(stderr, "  long running line: %s\n", err);
	}

	/* A comment line of exactly the limit, then of one byte more (the
	 * length is checked before the comment is cut). */
	n = 0;
	text[n++] = '#';
	memset(text + n, 'x', TB_SCENARIO_MAX_LINE - 1);
	n += TB_SCENARIO_MAX_LINE - 1;
	n += (size_t)snprintf(text + n, cap - n, "\nleaf a 4 0 0\njob nodes=1\n");
	CHECK_EQ(tb_scenario_parse(text, n, "x", &s, err, sizeof(err)), 0);
	if (s)
		tb_scenario_free(s);
	memmove(text + 1, text, n + 1);
	n++;
	text[n] = '\0';
	expect_scenario_error(text, "x:1: line longer than 1048576 bytes");
	free(text);
}

void test_matrix_parse_and_hop_bytes(void)
{
	const char *ok = "# two ranks\nranks 2\n0 1 10\n1 0 5 # back\n0 1 1\n";
	const char *scen = "leaf a 2 0 0\nleaf b 2 0 0\njob nodes=2\neval a:1 b:1\n";
	struct tb_matrix *m;
	struct tb_scenario *s;
	char err[256];

	CHECK(tb_matrix_parse(ok, strlen(ok), "m.txt", &m, err, sizeof(err)) == 0);
	CHECK_EQ(m->ranks, 2);
	CHECK_EQ(m->n, 3);
	CHECK(tb_scenario_parse(scen, strlen(scen), "s", &s, err, sizeof(err)) == 0);
	/* 16 bytes across leaves, distance 4. */
	CHECK_NEAR(tb_hop_bytes(s->topo, m, s->eval_alloc, 2), 16.0 * 4);
	tb_scenario_free(s);
	tb_matrix_free(m);
}

/* Four ranks in blocks on two nodes: ranks 0,1 on the first node, 2,3 on
 * the second, so only 1->2 and 3->0 cross leaves. One rank on each of
 * four nodes: rank r on node r. */
void test_matrix_block_placement_and_line_form(void)
{
	const char *text = "ranks 4\n0 1 100\n1 2 10\n3 0 1.5\n2 3 7\n";
	const char *scen2 = "leaf a 2 0 0\nleaf b 2 0 0\njob nodes=2\neval a:1 b:1\n";
	const char *scen4 = "leaf a 2 0 0\nleaf b 2 0 0\njob nodes=4\neval a:2 b:2\n";
	struct tb_matrix *m, *back;
	struct tb_scenario *s2, *s4;
	char err[256], *line;

	CHECK(tb_matrix_parse(text, strlen(text), "m", &m, err, sizeof(err)) == 0);
	CHECK(tb_scenario_parse(scen2, strlen(scen2), "s", &s2, err, sizeof(err)) == 0);
	CHECK(tb_scenario_parse(scen4, strlen(scen4), "s", &s4, err, sizeof(err)) == 0);
	CHECK_NEAR(tb_hop_bytes(s2->topo, m, s2->eval_alloc, 2), (10 + 1.5) * 4);
	/* a:2 b:2 is nodes a0 a1 b0 b1: 0-1 share a leaf (distance 2), 2-3
	 * too, 1->2 and 3->0 cross (distance 4). */
	CHECK_NEAR(tb_hop_bytes(s4->topo, m, s4->eval_alloc, 4),
		   100 * 2 + 10 * 4 + 1.5 * 4 + 7 * 2);

	line = tb_matrix_to_line(m, ';');
	CHECK(line != NULL);
	CHECK(strchr(line, '\n') == NULL);
	for (char *c = line; *c; c++)
		if (*c == ';')
			*c = '\n';
	CHECK(tb_matrix_parse(line, strlen(line), "line", &back, err, sizeof(err)) == 0);
	CHECK_EQ(back->ranks, 4);
	CHECK_EQ(back->n, 4);
	for (size_t k = 0; k < back->n; k++) {
		CHECK_EQ(back->entries[k].from, m->entries[k].from);
		CHECK_EQ(back->entries[k].to, m->entries[k].to);
		CHECK_NEAR(back->entries[k].volume, m->entries[k].volume);
	}
	free(line);
	tb_matrix_free(back);
	tb_matrix_free(m);
	tb_scenario_free(s2);
	tb_scenario_free(s4);
}

static void expect_matrix_error(const char *text, const char *expected)
{
	struct tb_matrix *m = (struct tb_matrix *)1;
	char err[256] = "";

	CHECK(tb_matrix_parse(text, strlen(text), "m.txt", &m, err,
			      sizeof(err)) == -1);
	CHECK(m == NULL);
	if (!strstr(err, expected)) {
		fprintf(stderr, "  error '%s' lacks '%s'\n", err, expected);
		tb_check_failures++;
	}
}

void test_matrix_errors(void)
{
	expect_matrix_error("0 1 5\n", "m.txt:1: expected 'ranks <1-");
	expect_matrix_error("ranks 2\n0 2 5\n", "m.txt:2: rank out of range 0-1");
	expect_matrix_error("ranks 2\n0 1 -5\n", "m.txt:2: volume '-5' is not a finite number >= 0");
	expect_matrix_error("ranks 2\n0 1 nan\n", "m.txt:2: volume 'nan'");
	expect_matrix_error("ranks 2\n0 1\n", "m.txt:2: expected '<from> <to> <volume>'");
	expect_matrix_error("", "no 'ranks <n>' line");
}

static const char *small_json =
	"{\"name\":\"t\",\"nodes\":[{\"name\":\"n0\",\"cores\":4,\"router\":3},"
	"{\"name\":\"n1\",\"cores\":4,\"router\":3},"
	"{\"name\":\"n2\",\"cores\":4,\"router\":7,\"chassis\":1}],"
	"\"switches\":[{\"name\":\"l0\",\"level\":0,\"parent\":\"top\",\"nodes\":[0,1]},"
	"{\"name\":\"l1\",\"level\":0,\"parent\":\"top\",\"nodes\":[2]},"
	"{\"name\":\"top\",\"level\":1,\"parent\":null,\"nodes\":[0,1,2]}]}";

void test_topology_json(void)
{
	struct tb_topology *t;
	char err[256];

	CHECK(tb_topology_from_json_text(small_json, strlen(small_json), &t, err,
					 sizeof(err)) == 0);
	CHECK_EQ(t->n_nodes, 3);
	CHECK_EQ(t->n_leaves, 2);
	CHECK_EQ(t->n_levels, 2);
	CHECK_EQ(t->nodes[2].router, 7);
	/* The router map (topology_routers.c): by id, named by the leaf
	 * that holds exactly the router's nodes. */
	CHECK_EQ(t->n_routers, 2);
	CHECK_EQ(t->routers[0].id, 3);
	CHECK_EQ(t->routers[0].n_nodes, 2);
	CHECK(!strcmp(t->routers[0].name, "l0"));
	CHECK_EQ(t->routers[1].id, 7);
	CHECK_EQ(t->routers[1].chassis, 1);
	CHECK_EQ(t->routers[0].chassis, -1);
	CHECK_EQ(t->router_of[2], 1);
	CHECK_EQ(t->router_of[1], 0);
	CHECK_EQ(tb_lca_level(t, 0, 1), 0);
	CHECK_EQ(tb_lca_level(t, 0, 2), 1);
	CHECK_EQ(t->switches[2].n_nodes, 3);
	tb_topology_free(t);
}

void test_topology_json_errors(void)
{
	const char *twice = "{\"nodes\":[{\"name\":\"n0\"}],\"switches\":["
		"{\"name\":\"a\",\"level\":0,\"nodes\":[0]},"
		"{\"name\":\"b\",\"level\":0,\"nodes\":[0]}]}";
	const char *deep = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
	struct tb_topology *t;
	struct tb_json v;
	char err[256];

	CHECK(tb_topology_from_json_text(twice, strlen(twice), &t, err,
					 sizeof(err)) == -1);
	CHECK(strstr(err, "already under another leaf") != NULL);
	CHECK(tb_topology_from_json_text("{", 1, &t, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not JSON") != NULL);
	/* A node without a router among nodes with one. */
	{
		const char *mixed = "{\"nodes\":[{\"name\":\"n0\",\"router\":1},"
			"{\"name\":\"n1\"}],\"switches\":["
			"{\"name\":\"a\",\"level\":0,\"nodes\":[0,1]}]}";
		const char *split = "{\"nodes\":[{\"name\":\"n0\",\"router\":1,"
			"\"chassis\":0},{\"name\":\"n1\",\"router\":1,"
			"\"chassis\":2}],\"switches\":["
			"{\"name\":\"a\",\"level\":0,\"nodes\":[0,1]}]}";

		CHECK(tb_topology_from_json_text(mixed, strlen(mixed), &t, err,
						 sizeof(err)) == -1);
		CHECK(!strcmp(err, "node n1: no router, while other nodes have one"));
		CHECK(tb_topology_from_json_text(split, strlen(split), &t, err,
						 sizeof(err)) == -1);
		CHECK(strstr(err, "node n1: its chassis or group differs") != NULL);
	}
	CHECK(tb_json_parse(deep, strlen(deep), &v, err, sizeof(err)) == -1);
	CHECK(strstr(err, "nested deeper") != NULL);
	CHECK(tb_json_parse("\"a\\u0041\\n\"", 11, &v, err, sizeof(err)) == 0);
	CHECK(v.type == TB_JSON_STRING && !strcmp(v.string, "aA\n"));
	tb_json_free(&v);
}

/*
 * A file that cannot be read is an error, never a short or empty text:
 * a directory opens (fopen succeeds on Linux) and its first read fails
 * with EISDIR; /proc/self/mem opens and its first read (address 0, never
 * mapped) fails with EIO.
 */
void test_read_file_errors(void)
{
	struct tb_scenario *s;
	struct tb_matrix *m;
	struct tb_topology *t;
	char err[256] = "";
	size_t len = 1;
	char *text;
	FILE *f;

	errno = 0;
	text = tb_read_file(".", &len);
	CHECK(text == NULL);
	CHECK_EQ(errno, EISDIR);
	CHECK_EQ(len, 0);
	free(text);
	CHECK(tb_scenario_load(".", &s, err, sizeof(err)) == -1);
	CHECK(!strcmp(err, ".: cannot read the file: Is a directory"));
	CHECK(tb_matrix_load(".", &m, err, sizeof(err)) == -1);
	CHECK(!strcmp(err, ".: cannot read the file: Is a directory"));
	CHECK(tb_topology_load(".", &t, err, sizeof(err)) == -1);
	CHECK(!strcmp(err, ".: cannot read the file: Is a directory"));
	if ((f = fopen("/proc/self/mem", "rb")) != NULL) {
		fclose(f);
		text = tb_read_file("/proc/self/mem", &len);
		CHECK(text == NULL);
		CHECK_EQ(len, 0);
		free(text);
	}
	/* Still read: an empty file is an empty text. */
	text = tb_read_file("/dev/null", &len);
	CHECK(text != NULL && len == 0 && text[0] == '\0');
	free(text);
}

void test_profile_from_comment(void)
{
	struct tb_profile p;
	char err[160];

	CHECK(tb_profile_parse("1:2", &p, err, sizeof(err)) == 0);
	CHECK(p.comm == 1 && p.pattern == TB_PATTERN_RD);
	CHECK(tb_profile_parse("1:1:70:3600", &p, err, sizeof(err)) == 0);
	CHECK(p.pattern == TB_PATTERN_RHVD);
	CHECK_NEAR(p.comm_fraction, 0.7);
	CHECK_NEAR(p.runtime, 3600);
	CHECK(tb_profile_parse("0", &p, err, sizeof(err)) == 0);
	CHECK(p.comm == 0);
	CHECK(tb_profile_parse("1:cmc:10", &p, err, sizeof(err)) == 0);
	CHECK(p.pattern == TB_PATTERN_CMC);
	CHECK(tb_profile_parse("1:6", &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "pattern id must be 1-5") != NULL);
	CHECK(tb_profile_parse("1:rd:150", &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "percent must be 0-100") != NULL);
	CHECK(tb_profile_parse("hello", &p, err, sizeof(err)) == -1);
	CHECK(tb_profile_parse("1:rd:50:10:9:x", &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "more than 5 fields") != NULL);
	/* The NeDD application, --comm-app's alternative (fifth field). */
	CHECK(tb_profile_parse("0:rd:0:120:miniMD", &p, err, sizeof(err)) == 0);
	CHECK(p.comm == 0 && !strcmp(p.app, "miniMD"));
	CHECK_NEAR(p.runtime, 120);
	CHECK(tb_profile_parse("1:rd:50:10", &p, err, sizeof(err)) == 0);
	CHECK(p.app[0] == '\0');
	CHECK(tb_profile_parse("0:rd:0:120:", &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "application must be 1-31 characters") != NULL);
	CHECK(tb_profile_parse("0:rd:0:120:mini MD", &p, err, sizeof(err)) ==
	      -1);
	CHECK(strstr(err, "application must be letters") != NULL);
	CHECK(tb_profile_parse("0:rd:0:120:abcdefghijabcdefghijabcdefghij12",
			       &p, err, sizeof(err)) == -1);
	CHECK(tb_profile_parse(NULL, &p, err, sizeof(err)) == -1);
	CHECK(tb_profile_parse("1:rd:nan", &p, NULL, 0) == -1);
}

void test_comm_option(void)
{
	struct tb_profile p;
	char err[256];

	CHECK(tb_profile_parse_option("ring:30", &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.comm, 1);
	CHECK_EQ(p.pattern, TB_PATTERN_RING);
	CHECK_NEAR(p.comm_fraction, 0.3);
	CHECK(tb_profile_parse_option("2", &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.pattern, TB_PATTERN_RD);
	CHECK_NEAR(p.comm_fraction, 0.5);
	CHECK(tb_profile_parse_option("none", &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.comm, 0);
	CHECK(tb_profile_parse_option("none:10", &p, err, sizeof(err)) == 0);
	CHECK_NEAR(p.comm_fraction, 0.1);
	const char *bad[] = { "", "butterfly", "rd:150", "rd:50:3", "none:x",
			      "nonesuch", "rd:", ":30", NULL };
	for (int i = 0; bad[i]; i++) {
		CHECK(tb_profile_parse_option(bad[i], &p, err, sizeof(err)) == -1);
		CHECK(strstr(err, "expected <pattern>[:<percent>]") != NULL);
	}
	CHECK(tb_profile_parse_option(NULL, &p, err, sizeof(err)) == -1);
}
