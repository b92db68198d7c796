/*
 * The policy registry (policy_registry.def): what the dispatcher, the
 * Slurm plugin and the scripts rely on. No list of names here: a new
 * policy needs no edit of this file.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "policy.h"
#include "tests.h"

void test_registry_lines(void)
{
	unsigned all = 0;
	char line[512];

	/* The plugin's records count the other policies from default on. */
	CHECK_EQ(TB_POLICY_DEFAULT, 0);
	CHECK(tb_policy_info(TB_POLICY_COUNT) == NULL);
	CHECK(tb_policy_info((enum tb_policy)-1) == NULL);
	CHECK(!strcmp(tb_policy_name(TB_POLICY_COUNT), "?"));
	CHECK_EQ(tb_policy_has(TB_POLICY_COUNT, 0), 0);
	for (int k = 0; k < TB_TRAIT_COUNT; k++) {
		CHECK(tb_trait_name((enum tb_trait)(1u << k)) != NULL);
		all |= 1u << k;
	}
	CHECK(tb_trait_name((enum tb_trait)(1u << TB_TRAIT_COUNT)) == NULL);
	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		const struct tb_policy_info *pi =
			tb_policy_info((enum tb_policy)p);
		enum tb_policy back = TB_POLICY_COUNT;
		int tabs = 0;

		CHECK(pi && pi->name && pi->fn && pi->paper && pi->paper[0]);
		if (!pi)
			continue;
		/* A name a shell word, a make variable and a file name can
		 * hold, found back by its name, once. */
		CHECK(pi->name[0] &&
		      strspn(pi->name, "abcdefghijklmnopqrstuvwxyz0123456789-")
		      == strlen(pi->name));
		CHECK_EQ(tb_policy_parse(pi->name, &back), 0);
		CHECK_EQ(back, p);
		CHECK(pi->family < TB_FAMILY_COUNT);
		CHECK(strcmp(tb_family_name(pi->family), "?"));
		CHECK_EQ(pi->traits & ~all, 0);
		CHECK(tb_policy_has((enum tb_policy)p, pi->traits));
		/* Only a policy that may make a job wait says why. */
		CHECK(!pi->why || (pi->traits & TB_TRAIT_WAIT));
		/* The listing: four fields, no tab or newline inside one. */
		CHECK(tb_policy_format((enum tb_policy)p, line, sizeof(line)) <
		      (int)sizeof(line));
		for (const char *c = line; *c; c++)
			tabs += *c == '\t';
		CHECK_EQ(tabs, 3);
		CHECK(!strchr(line, '\n'));
		CHECK(!strncmp(line, pi->name, strlen(pi->name)) &&
		      line[strlen(pi->name)] == '\t');
	}
	CHECK_EQ(tb_policy_format(TB_POLICY_COUNT, line, sizeof(line)), -1);
	CHECK_EQ(tb_policy_parse("no-such-policy", &(enum tb_policy){ 0 }),
		 -1);
	/* One line as the scripts read it. */
	tb_policy_format(TB_POLICY_TM_SUB3, line, sizeof(line));
	CHECK(!strncmp(line, "tm-sub3\ttreematch\tmatrix,cores\t", 31));
	tb_policy_format(TB_POLICY_DEFAULT1905, line, sizeof(line));
	CHECK(!strncmp(line, "default1905\ticpp\t-\t", 19));
}
