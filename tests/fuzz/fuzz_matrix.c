/* libFuzzer target: the communication-matrix parser. */
#include <stddef.h>
#include <stdint.h>

#include "matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_matrix *m;
	char err[256];

	if (tb_matrix_parse((const char *)data, size, "fuzz", &m, err,
			    sizeof(err)) == 0)
		tb_matrix_free(m);
	return 0;
}
