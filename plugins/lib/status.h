/* What a policy, or the library's other choosers, answer. */
#ifndef TB_STATUS_H
#define TB_STATUS_H

enum tb_status {
	TB_OK = 0,
	TB_ENOSPACE,		/* not enough free nodes in this snapshot */
	TB_ETOOBIG,		/* more nodes than the machine has */
	TB_EINVAL,		/* a request that makes no sense */
	TB_ENOMEM,
	TB_EWAIT,		/* enough free nodes, but placing the job now
				 * would break isolation (isolated policy) */
};

const char *tb_status_str(enum tb_status s);

#endif
