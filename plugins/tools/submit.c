/*
 * tb-submit: batch submissions through libslurm, one per input line, for
 * the replay driver. One sbatch process per job spends most of its time
 * starting up (loading the configuration and plugins); this process does
 * that once and then only sends the RPC.
 *
 *   tb-submit [-s] [-x] <batch script>
 *
 * stdin, one job per line, tab-separated:
 *   <name> <nodes> <time limit, minutes> <begin, Unix seconds>
 *   <priority, 0 for Slurm's own> <comment> [<spank entry>]
 *   [<script argument>...]
 * With -s the seventh field is one NAME=value entry for the job's SPANK
 * environment, or empty for none: the replay passes each job's
 * communication matrix (TESTBED_COMM_MATRIX) this way, as the SPANK
 * plugin would have for sbatch --comm-matrix.
 * With -x one more field follows (after the SPANK entry with -s): the job's
 * placement constraints, empty or ';'-separated entries of
 *   nodelist=<hostlist>        exactly these nodes (sbatch --nodelist)
 *   exclude=<hostlist>         never these nodes (sbatch --exclude: the
 *                              NeDD experiments keep a job to its 201)
 *   dependency=<dependencies>  as sbatch --dependency (afterany:12:13, ...)
 *   cores=<tasks>              that many one-CPU tasks in the partition
 *                              cores, nodes shared core by core (the
 *                              replay's GRANULARITY=core); <nodes> ignored
 * The replay's individual runs (INDIVIDUAL=) place their occupying jobs on
 * the same nodes in every run and chain the drawn jobs one after another.
 * A time limit of 0 is no limit given at all (sbatch without --time): the
 * job gets the partition's (MaxTime=INFINITE here), as the ICPP-W
 * authors' jobs did (the replay's LIMITS=none). Slurm would take a 0 in
 * the request as zero minutes.
 * stdout, one line per job, flushed: the job id, or "error: <reason>".
 * The script is read once; every job gets the same one with its own
 * arguments. Exit status 0 when stdin ends, 2 on bad usage.
 *
 * TB_SUBMIT_SPANK=NAME=value puts that entry in every job's SPANK
 * environment unchecked, as a client without the SPANK plugin could: the
 * tests use it to show the controller's own checks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "../lib/textfile.h"

#define MAX_FIELDS 16

/* Splits line at tabs in place; returns the number of fields. */
static int split_tabs(char *line, char **field, int max)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < max) {
		field[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t) v;
	return 0;
}

/* -x's field: fills desc's node list, dependency and tasks; false on bad
 * input. */
static bool parse_extra(char *text, job_desc_msg_t *desc)
{
	char *save = NULL;
	uint32_t n;

	for (char *e = strtok_r(text, ";", &save); e;
	     e = strtok_r(NULL, ";", &save)) {
		if (!strncmp(e, "nodelist=", 9) && e[9]) {
			desc->req_nodes = e + 9;
		} else if (!strncmp(e, "exclude=", 8) && e[8]) {
			desc->exc_nodes = e + 8;
		} else if (!strncmp(e, "dependency=", 11) && e[11]) {
			desc->dependency = e + 11;
		} else if (!strncmp(e, "cores=", 6) && !parse_u32(e + 6, &n) &&
			   n) {
			/* n one-CPU tasks in the partition that shares
			 * nodes core by core (sbatch -p cores -n n). */
			desc->partition = "cores";
			desc->num_tasks = desc->min_cpus = n;
			desc->cpus_per_task = 1;
			/* No node count, as sbatch -n alone: a range
			 * would make Slurm spread over its maximum. */
			desc->min_nodes = desc->max_nodes = NO_VAL;
		} else {
			printf("error: placement entry '%.40s': expected nodelist=<hostlist>, exclude=<hostlist>, dependency=<dependencies> or cores=<tasks>\n",
			       e);
			return false;
		}
	}
	return true;
}

static void submit_line(char *line, char *script, const char *script_path,
			char *fixed_spank, bool spank_field, bool extra_field)
{
	char *field[MAX_FIELDS], *argv[MAX_FIELDS];
	char *env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
	char *spank[3];
	int n_spank = 0, first_arg = 6 + spank_field + extra_field;
	job_desc_msg_t desc;
	submit_response_msg_t *resp = NULL;
	uint32_t nodes, limit, begin, priority;
	int n = split_tabs(line, field, MAX_FIELDS);

	if (n < first_arg || parse_u32(field[1], &nodes) || !nodes ||
	    parse_u32(field[2], &limit) || parse_u32(field[3], &begin) ||
	    parse_u32(field[4], &priority) || priority >= NO_VAL - 1) {
		printf("error: expected <name> <nodes> <minutes> <begin> <priority> <comment> %s%s[args] separated by tabs\n",
		       spank_field ? "<spank entry> " : "",
		       extra_field ? "<placement> " : "");
		return;
	}
	slurm_init_job_desc_msg(&desc);
	desc.name = field[0];
	desc.min_nodes = desc.max_nodes = nodes;
	desc.time_limit = limit ? limit : NO_VAL;
	desc.begin_time = begin;
	if (priority)
		desc.priority = priority;
	desc.comment = field[5];
	if (extra_field && !parse_extra(field[6 + spank_field], &desc))
		return;
	desc.script = script;
	argv[0] = (char *) script_path;
	for (int i = first_arg; i < n; i++)
		argv[i - first_arg + 1] = field[i];
	desc.argc = n - first_arg + 1;
	desc.argv = argv;
	desc.environment = env;
	desc.env_size = 1;
	desc.std_out = desc.std_err = "/dev/null";
	desc.work_dir = "/tmp";
	desc.user_id = getuid();
	desc.group_id = getgid();
	if (fixed_spank && fixed_spank[0])
		spank[n_spank++] = fixed_spank;
	if (spank_field && field[6][0]) {
		if (!strchr(field[6], '=')) {
			printf("error: spank entry '%.40s' is not NAME=value\n",
			       field[6]);
			return;
		}
		spank[n_spank++] = field[6];
	}
	spank[n_spank] = NULL;
	if (n_spank) {
		desc.spank_job_env = spank;
		desc.spank_job_env_size = n_spank;
	}
	if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
		printf("error: %s\n", slurm_strerror(errno));
		return;
	}
	printf("%u\n", resp->job_id);
	slurm_free_submit_response_response_msg(resp);
}

int main(int argc, char **argv)
{
	char *script, *line = NULL, *path;
	bool spank_field = false, extra_field = false;
	size_t cap = 0, len;
	int i = 1;

	for (; i < argc - 1; i++) {
		if (!strcmp(argv[i], "-s"))
			spank_field = true;
		else if (!strcmp(argv[i], "-x"))
			extra_field = true;
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: tb-submit [-s] [-x] <batch script> < jobs (see the source)\n");
		return 2;
	}
	path = argv[argc - 1];
	if (!(script = tb_read_file(path, &len))) {
		fprintf(stderr, "tb-submit: %s: cannot read the batch script\n",
			path);
		return 2;
	}
	slurm_init(NULL);
	while (getline(&line, &cap, stdin) > 0) {
		submit_line(line, script, path, getenv("TB_SUBMIT_SPANK"),
			    spank_field, extra_field);
		fflush(stdout);
	}
	free(line);
	free(script);
	slurm_fini();
	return 0;
}
