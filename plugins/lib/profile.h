/*
 * A job's communication profile as carried by its Slurm comment, so that
 * the study's own logs replay unchanged (`--comment=1:<pattern id>`):
 *
 *   0                            compute-intensive
 *   1                            communication-intensive, pattern rd
 *   1:<pattern>                  pattern as the study's id (1 rhvd, 2 rd,
 *                                3 binomial, 4 ring, 5 cmc) or its name
 *   1:<pattern>:<percent>        share of the runtime spent communicating
 *   1:<pattern>:<percent>:<s>    base runtime in seconds, for T_scaled
 *   1:<pattern>:<percent>:<s>:<app>
 *                                the NeDD application (nedd.h's profile
 *                                table, or any name: unprofiled), the
 *                                comment's alternative to --comm-app, as
 *                                the pattern's is to --comm
 *
 * The first field may be 0 with the same optional fields.
 */
#ifndef TB_PROFILE_H
#define TB_PROFILE_H

#include <stddef.h>

#include "job.h"

struct tb_profile {
	int comm;
	enum tb_pattern pattern;
	double comm_fraction;	/* 0..1; 0.5 when not given */
	double runtime;		/* seconds; 0 when not given */
	char app[TB_JOB_APP_LEN];	/* NeDD application; "" when not given */
};

/* 0 on success; -1 with a reason in err when the text is not a profile. */
int tb_profile_parse(const char *text, struct tb_profile *p, char *err,
		     size_t errlen);

/* The --comm option's value: <pattern>[:<percent>] for a communication-
 * intensive job, none[:<percent>] for a compute one. 0, or -1 with
 * "--comm=<arg>: expected ..." in err. */
int tb_profile_parse_option(const char *arg, struct tb_profile *p, char *err,
			    size_t errlen);

#endif
