/* A decision's inputs: the policy and readings, a job's profile and matrix. */
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "commtree_eval.h"

/*
 * Whether a job's matrix parsed, by job id (direct-mapped: a job pushed out
 * is parsed again). A matrix cannot change after submission, and backfill
 * tests every pending job several times a cycle; parsing a 100 KB matrix
 * each time showed in slurmctld's CPU time.
 */
#define MATRIX_SEEN_SLOTS 4096
enum { MATRIX_UNSEEN, MATRIX_OK, MATRIX_BAD };
struct matrix_seen {
	uint32_t job_id;
	int state;
};
static struct matrix_seen matrix_seen[MATRIX_SEEN_SLOTS];

/*
 * Whether a running job is communication-intensive, by job id (direct-
 * mapped like matrix_seen): every eval marks the nodes of every running
 * job, and parsing each one's comment and SPANK environment every time
 * cost more than the policy's own decision on large machines. A job's
 * profile is fixed at submission.
 */
#define COMM_SEEN_SLOTS 8192
struct comm_seen {
	uint32_t job_id;
	int comm;		/* 0 or 1 */
};
static struct comm_seen comm_seen[COMM_SEEN_SLOTS];

/* TopologyParam=...,policy_<name>,... ; default when absent or unknown. */
extern enum tb_policy commtree_policy(void)
{
	static char *warned;
	const char *p = xstrstr(slurm_conf.topology_param, "policy_");
	char name[32];
	enum tb_policy policy;
	size_t n;

	if (!p)
		return TB_POLICY_DEFAULT;
	p += strlen("policy_");
	n = strcspn(p, ",");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, p, n);
	name[n] = '\0';
	if (tb_policy_parse(name, &policy)) {
		if (xstrcmp(warned, name)) {
			error("topology/commtree: unknown policy '%s' in TopologyParam; using default",
			      name);
			xfree(warned);
			warned = xstrdup(name);
		}
		return TB_POLICY_DEFAULT;
	}
	return policy;
}

/*
 * The library's named readings (options.h) from TopologyParam's key=value
 * words (make up OPTIONS=...); the papers' forms when none. A word the
 * library does not know is logged once and the papers' forms are used.
 */
extern struct tb_options commtree_options(void)
{
	static char *warned;
	struct tb_options o = tb_options_default();
	char *text = NULL, err[200];
	const char *p = slurm_conf.topology_param;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		if (memchr(p, '=', n))
			xstrfmtcat(text, "%s%.*s", text ? " " : "", (int) n, p);
		p += n + (p[n] == ',');
	}
	if (text && tb_options_parse(text, &o, err, sizeof(err))) {
		if (xstrcmp(warned, text)) {
			error("topology/commtree: TopologyParam: %s; using the papers' forms",
			      err);
			xfree(warned);
			warned = xstrdup(text);
		}
		o = tb_options_default();
	}
	xfree(text);
	return o;
}

/* NAME=value in the job's SPANK environment (spank_testbed.c puts the
 * --comm and --comm-matrix values there), or NULL. */
static const char *_spank_value(job_record_t *job_ptr, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];
		if (e && !strncmp(e, name, n) && e[n] == '=')
			return e + n + 1;
	}
	return NULL;
}

/* The same for the other glue files (commtree_nedd.c). */
extern const char *commtree_spank_value(job_record_t *job_ptr,
					const char *name)
{
	return _spank_value(job_ptr, name);
}

/* Logs a job's bad input once, not at every scheduling pass. */
static void _warn_once(job_record_t *job_ptr, const char *why)
{
	static uint32_t last_job_id;

	if (job_ptr->job_id == last_job_id)
		return;
	last_job_id = job_ptr->job_id;
	error("topology/commtree: %pJ: %s; allocating as default", job_ptr,
	      why);
}

/* The profile from --comment (the study's logs), overridden by --comm.
 * Returns NULL, or why the job must fall back to default. */
extern const char *commtree_job_profile(job_record_t *job_ptr,
					struct tb_profile *prof, bool quiet)
{
	const char *spank = _spank_value(job_ptr, "TESTBED_PROFILE");
	struct tb_profile given;
	char err[160], why[200];

	if (tb_profile_parse(job_ptr->comment, prof, err, sizeof(err))) {
		/* No profile: a compute-intensive job of the log. */
		*prof = (struct tb_profile) { .comm = 0,
					      .pattern = TB_PATTERN_RD,
					      .comm_fraction = 0.5 };
		if (job_ptr->comment && !quiet)
			debug("topology/commtree: %pJ %s", job_ptr, err);
	}
	if (_spank_value(job_ptr, "TESTBED_COMM_MATRIX"))
		prof->comm = 1;
	if (!spank)
		return NULL;
	if (tb_profile_parse(spank, &given, err, sizeof(err))) {
		snprintf(why, sizeof(why), "--comm: %s", err);
		if (!quiet)
			_warn_once(job_ptr, why);
		return "bad_comm";
	}
	prof->comm = given.comm;
	prof->pattern = given.pattern;
	prof->comm_fraction = given.comm_fraction;
	return NULL;
}

/* The --comm-matrix, if any, into *out when need is set (else only checked,
 * once per job). Returns NULL, or why the job must fall back to default. */
extern const char *commtree_job_matrix(job_record_t *job_ptr,
				       struct tb_matrix **out, bool need)
{
	const char *spank = _spank_value(job_ptr, "TESTBED_COMM_MATRIX");
	uint32_t id = job_ptr->job_id;
	struct matrix_seen *seen = &matrix_seen[id % MATRIX_SEEN_SLOTS];
	char err[256], *text;
	int rc;

	*out = NULL;
	if (!spank)
		return NULL;
	if (!need && id && seen->job_id == id && seen->state != MATRIX_UNSEEN)
		return seen->state == MATRIX_BAD ? "bad_matrix" : NULL;
	text = xstrdup(spank);
	for (char *c = text; *c; c++)
		if (*c == ';')
			*c = '\n';
	rc = tb_matrix_parse(text, strlen(text), "--comm-matrix", out, err,
			     sizeof(err));
	xfree(text);
	if (id) {
		seen->job_id = id;
		seen->state = rc ? MATRIX_BAD : MATRIX_OK;
	}
	if (!need) {
		tb_matrix_free(*out);
		*out = NULL;
	}
	if (rc) {
		_warn_once(job_ptr, err);
		return "bad_matrix";
	}
	return NULL;
}

/* Whether a job is communication-intensive, cached by job id. */
extern bool commtree_job_comm(job_record_t *job_ptr)
{
	struct comm_seen *seen = &comm_seen[job_ptr->job_id % COMM_SEEN_SLOTS];
	struct tb_profile prof;

	if (!job_ptr->job_id || seen->job_id != job_ptr->job_id) {
		seen->job_id = job_ptr->job_id;
		seen->comm = !commtree_job_profile(job_ptr, &prof, true) &&
			     prof.comm;
	}
	return seen->comm;
}
