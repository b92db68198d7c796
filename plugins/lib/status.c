#include "status.h"

const char *tb_status_str(enum tb_status s)
{
	switch (s) {
	case TB_OK: return "ok";
	case TB_ENOSPACE: return "not enough free nodes";
	case TB_ETOOBIG: return "more nodes than the machine has";
	case TB_EINVAL: return "invalid request";
	case TB_ENOMEM: return "out of memory";
	case TB_EWAIT: return "cannot place now without breaking isolation";
	}
	return "?";
}
