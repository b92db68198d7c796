/* libFuzzer target: the job-comment profile parser, which runs inside
 * slurmctld on every user's --comment. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_profile p;
	char err[160], *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)tb_profile_parse(text, &p, err, sizeof(err));
	free(text);
	return 0;
}
