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

const char *tb_status_fallback(enum tb_status s)
{
	switch (s) {
	case TB_ENOSPACE: return "policy_no_space";
	case TB_ETOOBIG: return "policy_too_big";
	case TB_ENOMEM: return "policy_no_memory";
	case TB_EWAIT: return "policy_wait";
	default: return "policy_refused";
	}
}
