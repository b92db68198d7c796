/* A job as the policies see it: size, kind, collective pattern. */
#ifndef TB_JOB_H
#define TB_JOB_H

#include <stdint.h>

struct tb_matrix;

#define TB_JOB_APP_LEN 32

enum tb_pattern {
	TB_PATTERN_RHVD,	/* study id 1 */
	TB_PATTERN_RD,		/* 2 */
	TB_PATTERN_BINOMIAL,	/* 3 */
	TB_PATTERN_RING,	/* 4 */
	TB_PATTERN_CMC,		/* 5 */
	TB_PATTERN_COUNT
};

struct tb_job {
	int nodes;
	int comm;			/* 1: communication-intensive */
	enum tb_pattern pattern;
	double comm_fraction;		/* share of runtime communicating */
	const struct tb_matrix *matrix;	/* optional rank x rank volumes */
	/* The NeDD family (nedd.h): the job's application (a name of the
	 * profile table, "" for none), its network class when given
	 * directly (enum tb_nedd_class; 0: by the application), and the
	 * seed of `random` and of the stall model's noise. */
	char app[TB_JOB_APP_LEN];
	int net_class;
	uint64_t seed;
};

const char *tb_pattern_name(enum tb_pattern p);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int tb_pattern_parse(const char *name, enum tb_pattern *out);
/* The study's --comment ids: 1 rhvd, 2 rd, 3 binomial, 4 ring, 5 cmc. */
int tb_pattern_from_study_id(int id, enum tb_pattern *out);

#endif
