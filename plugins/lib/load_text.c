#include "load_text.h"

#include <stdlib.h>

#include "textfile.h"

int tb_load_text(const char *path, tb_text_parser parse, void *out, char *err,
		 size_t errlen)
{
	size_t len;
	char *text = tb_read_text(path, &len, err, errlen);
	int rc;

	if (!text)
		return -1;
	rc = parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}
