/*
 * SPANK plugin: a job's communication profile and matrix at submission.
 *
 *   --comm=<pattern>[:<percent>]   rd, rhvd, binomial, ring, cmc (or the
 *                                  study's ids 1-5); "none" for a
 *                                  compute-intensive job
 *   --comm-matrix=<file>           rank x rank volumes (plugins/lib/matrix.h)
 *   --comm-app=<name>              the job's application for the NeDD
 *                                  family (plugins/lib/nedd.h: Table I's
 *                                  miniMD ... HPCG, gpcnet, or any name)
 *
 * Both are checked where the user is (sbatch, salloc, srun), so a bad
 * value stops the submission with the reason; the controller only ever
 * sees values that parsed. They travel in the job's SPANK environment:
 *
 *   TESTBED_PROFILE=<comm>:<pattern>:<percent>   (profile.h's form)
 *   TESTBED_COMM_MATRIX=ranks N;from to volume;...
 *   TESTBED_COMM_APP=<name>
 *
 * The controller reads them from job_ptr->spank_job_env in
 * topology/commtree and still parses them defensively: anything can reach
 * it through the RPC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "../lib/job.h"
#include "../lib/matrix.h"
#include "../lib/profile.h"

SPANK_PLUGIN(testbed, 1);

/* sbatch also exports each SPANK entry into the batch environment, and
 * Linux refuses to exec with one string over 128 KiB (MAX_ARG_STRLEN). */
#define MATRIX_LINE_MAX 120000

/* Plugin glue state: the values given on this command line. */
static char profile_value[96];
static char *matrix_value;
static char app_value[TB_JOB_APP_LEN];

static int _opt_comm(int val, const char *arg, int remote);
static int _opt_comm_matrix(int val, const char *arg, int remote);
static int _opt_comm_app(int val, const char *arg, int remote);

/* Registered from slurm_spank_init: sbatch and salloc (the allocator
 * context) ignore a static spank_options table. */
static struct spank_option testbed_options[] = {
	{ "comm", "<pattern>[:<percent>]",
	  "Communication profile for topology/commtree: pattern rd, rhvd, "
	  "binomial, ring or cmc (or none), and the percent of the runtime "
	  "spent communicating (default 50).",
	  1, 0, _opt_comm },
	{ "comm-matrix", "<file>",
	  "Rank x rank communication volumes ('ranks N' then "
	  "'<from> <to> <bytes>' lines); the job counts as "
	  "communication-intensive.",
	  1, 0, _opt_comm_matrix },
	{ "comm-app", "<name>",
	  "The job's application, for the NeDD policies (miniMD, LAMMPS, "
	  "MILC, HACC, QMCPACK, HPCG, gpcnet, or another name: unprofiled).",
	  1, 0, _opt_comm_app },
	SPANK_OPTIONS_TABLE_END
};

static int _opt_comm(int val, const char *arg, int remote)
{
	struct tb_profile prof;
	char err[256];

	if (remote)
		return 0;
	if (tb_profile_parse_option(arg, &prof, err, sizeof(err))) {
		slurm_error("%s", err);
		return -1;
	}
	snprintf(profile_value, sizeof(profile_value), "%d:%s:%g", prof.comm,
		 tb_pattern_name(prof.pattern), prof.comm_fraction * 100);
	return 0;
}

static int _opt_comm_matrix(int val, const char *arg, int remote)
{
	struct tb_matrix *m;
	char err[512];
	char *line;

	if (remote)
		return 0;
	if (tb_matrix_load(arg ? arg : "", &m, err, sizeof(err))) {
		slurm_error("--comm-matrix: %s", err);
		return -1;
	}
	line = tb_matrix_to_line(m, ';');
	tb_matrix_free(m);
	if (!line) {
		slurm_error("--comm-matrix=%s: out of memory", arg);
		return -1;
	}
	if (strlen(line) > MATRIX_LINE_MAX) {
		slurm_error("--comm-matrix=%s: %zu bytes once packed, at most %d accepted (drop the smallest entries)",
			    arg, strlen(line), MATRIX_LINE_MAX);
		free(line);
		return -1;
	}
	free(matrix_value);
	matrix_value = line;
	return 0;
}

static int _opt_comm_app(int val, const char *arg, int remote)
{
	size_t n = arg ? strlen(arg) : 0;

	if (remote)
		return 0;
	if (!n || n >= sizeof(app_value) ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._-") != n) {
		slurm_error("--comm-app=%s: expected a name of up to %zu letters, digits, '.', '_' or '-'",
			    arg ? arg : "", sizeof(app_value) - 1);
		return -1;
	}
	memcpy(app_value, arg, n + 1);
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	/* slurmd and prolog/epilog contexts take no options. */
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	for (struct spank_option *o = testbed_options; o->name; o++) {
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			slurm_error("testbed: cannot register --%s", o->name);
			return -1;
		}
	}
	return 0;
}

/* Options are parsed before this runs in the submitting command. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR)
		return 0;
	if (profile_value[0] &&
	    spank_job_control_setenv(sp, "TESTBED_PROFILE", profile_value,
				     1) != ESPANK_SUCCESS) {
		slurm_error("--comm: could not pass the profile to Slurm");
		return -1;
	}
	if (app_value[0] &&
	    spank_job_control_setenv(sp, "TESTBED_COMM_APP", app_value,
				     1) != ESPANK_SUCCESS) {
		slurm_error("--comm-app: could not pass the application to Slurm");
		return -1;
	}
	if (matrix_value &&
	    spank_job_control_setenv(sp, "TESTBED_COMM_MATRIX", matrix_value,
				     1) != ESPANK_SUCCESS) {
		slurm_error("--comm-matrix: could not pass the matrix to Slurm");
		return -1;
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	free(matrix_value);
	matrix_value = NULL;
	return 0;
}
