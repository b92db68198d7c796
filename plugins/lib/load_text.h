/* A loader's whole-file read and parse, once for every text format (the
 * traffic matrix, the scenario, the topology JSON). */
#ifndef TB_LOAD_TEXT_H
#define TB_LOAD_TEXT_H

#include <stddef.h>

/* A format's parser as a loader hands it the file: text[0..len) read from
 * the file name, out the loader's own result pointer's address. 0, or -1
 * with a reason in err. */
typedef int (*tb_text_parser)(const char *text, size_t len, const char *name,
			      void *out, char *err, size_t errlen);

/* Reads path whole and returns parse(text, len, path, out, err, errlen);
 * -1 with "<path>: cannot read the file: <reason>" in err when it cannot
 * be read (parse is not called). The text is freed either way. */
int tb_load_text(const char *path, tb_text_parser parse, void *out, char *err,
		 size_t errlen);

#endif
