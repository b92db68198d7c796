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

/* The record's word for a policy's refusal when Slurm's own choice placed
 * the job instead ("policy_no_space", ...): the plugin and the simulator
 * write the same word. */
const char *tb_status_fallback(enum tb_status s);

#endif
