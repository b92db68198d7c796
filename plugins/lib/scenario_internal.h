/*
 * What the scenario parser's files share (scenario.c names them); not
 * library API, not installed. One builder gathers a scenario's lines; the
 * machine, occupancy and job are built from it once every line is read:
 *
 *   scenario.c         the builder, tokenizing, leaf/switch/job/eval/
 *                      options/running lines, the public API
 *   scenario_build.c   nodes, occupancy, running jobs and the eval
 *                      allocation from the lines (tb_scn_build)
 *   scenario_torus.c   TOFA's torus/busy/risky/pf/edge lines
 *   scenario_router.c  NeDD's router/stall/now lines, its observations
 *   scenario_cores.c   TreeMatch's cores/busycores/pair lines, the job's
 *                      ranks and matrix
 */
#ifndef TB_SCENARIO_INTERNAL_H
#define TB_SCENARIO_INTERNAL_H

#include "scenario.h"

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

struct busycores_item {
	int node, count, line;
};

/* Matrix entries given line by line (`edge`, `pair`), each with its line
 * for the errors found once the job is known. */
struct entry_lines {
	struct tb_matrix_entry *v;
	int *line;
	int n;
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
	struct entry_lines edges;	/* `edge` lines */
	int n_router_lines;
	struct stall_line *stalls;
	int n_stalls;
	int has_now;
	int cores;		/* cores per node (`cores`), 0: 1 */
	int cores_line;
	struct busycores_item *busycores;
	int n_busycores;
	struct entry_lines pairs;	/* `pair` lines */
};

/* --- scenario.c --------------------------------------------------------- */

/* "<name>:<line>: " and the message into the builder's err; always -1. */
int tb_scn_fail(struct builder *b, const char *fmt, ...);
int tb_scn_parse_num(const char *v, double lo, double hi, double *out);
/* Appends (from, to, v) at the builder's line: 0, or -1 (out of memory). */
int tb_scn_add_entry(struct builder *b, struct entry_lines *l, int from,
		     int to, double v);
/* The job's matrix of `ranks` ranks from l's entries (moved out of l):
 * "<kw> lines need a 'job' line" without a job, "<kw>: <unit> <r>, the
 * job has ..." at the line of an entry beyond the ranks; 0 or -1. */
int tb_scn_entries_to_matrix(struct builder *b, struct entry_lines *l,
			     int ranks, const char *kw, const char *unit);
int tb_scn_leaf_line(struct builder *b, char **w, int n);

/* --- scenario_build.c --------------------------------------------------- */

int tb_scn_build(struct builder *b);

/* --- scenario_torus.c --------------------------------------------------- */

int tb_scn_torus_line(struct builder *b, char **w, int n);
int tb_scn_id_list_line(struct builder *b, char **w, int n, int risky);
int tb_scn_pf_line(struct builder *b, char **w, int n);
int tb_scn_edge_line(struct builder *b, char **w, int n);
int tb_scn_build_torus_nodes(struct builder *b);
int tb_scn_build_torus_state(struct builder *b);

/* --- scenario_router.c -------------------------------------------------- */

int tb_scn_router_line(struct builder *b, char **w, int n);
int tb_scn_stall_line(struct builder *b, char **w, int n);
int tb_scn_now_line(struct builder *b, char **w, int n);
void tb_scn_default_now(struct builder *b);
int tb_scn_build_observations(struct builder *b);

/* --- scenario_cores.c --------------------------------------------------- */

int tb_scn_cores_line(struct builder *b, char **w, int n);
int tb_scn_busycores_line(struct builder *b, char **w, int n);
int tb_scn_pair_line(struct builder *b, char **w, int n);
int tb_scn_build_cores(struct builder *b);

#endif
