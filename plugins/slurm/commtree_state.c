/* The state tree's eval changes besides node_map: saved, restored, freed. */
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"

#include "commtree_eval.h"

/* Returns false when the state holds what cannot be copied (GRES lists). */
extern bool commtree_save_state(topology_eval_t *te, struct eval_state *st)
{
	int nodes = bit_set_count(te->node_map), n = 0;

	memset(st, 0, sizeof(*st));
	for (int i = 0; (i = bit_ffs_from_bit(te->node_map, i)) >= 0; i++)
		if (te->avail_res_array && te->avail_res_array[i] &&
		    te->avail_res_array[i]->sock_gres_list)
			return false;
	st->node_map = bit_copy(te->node_map);
	st->avail_cpus = te->avail_cpus;
	st->max_nodes = te->max_nodes;
	st->gres_per_job = te->gres_per_job;
	st->index = xcalloc(nodes ? nodes : 1, sizeof(int));
	st->core = xcalloc(nodes ? nodes : 1, sizeof(bitstr_t *));
	st->res = xcalloc(nodes ? nodes : 1, sizeof(avail_res_t));
	st->cores_per_sock = xcalloc(nodes ? nodes : 1, sizeof(uint16_t *));
	for (int i = 0; (i = bit_ffs_from_bit(te->node_map, i)) >= 0; i++) {
		avail_res_t *r = te->avail_res_array ?
				 te->avail_res_array[i] : NULL;
		st->index[n] = i;
		if (te->avail_core && te->avail_core[i])
			st->core[n] = bit_copy(te->avail_core[i]);
		if (r) {
			st->res[n] = *r;
			if (r->avail_cores_per_sock && r->sock_cnt) {
				size_t sz = r->sock_cnt * sizeof(uint16_t);
				st->cores_per_sock[n] = xmalloc(sz);
				memcpy(st->cores_per_sock[n],
				       r->avail_cores_per_sock, sz);
			}
		}
		n++;
	}
	st->n = n;
	return true;
}

extern void commtree_restore_state(topology_eval_t *te,
				   struct eval_state *st)
{
	bit_copybits(te->node_map, st->node_map);
	te->avail_cpus = st->avail_cpus;
	te->max_nodes = st->max_nodes;
	te->gres_per_job = st->gres_per_job;
	for (int k = 0; k < st->n; k++) {
		int i = st->index[k];
		avail_res_t *r = te->avail_res_array ?
				 te->avail_res_array[i] : NULL;
		if (st->core[k] && te->avail_core && te->avail_core[i])
			bit_copybits(te->avail_core[i], st->core[k]);
		if (r) {
			uint16_t *cps = r->avail_cores_per_sock;
			*r = st->res[k];
			/* The array itself stays tree's; its contents
			 * come back. */
			r->avail_cores_per_sock = cps;
			if (cps && st->cores_per_sock[k])
				memcpy(cps, st->cores_per_sock[k],
				       st->res[k].sock_cnt * sizeof(uint16_t));
		}
	}
}

extern void commtree_free_state(struct eval_state *st)
{
	FREE_NULL_BITMAP(st->node_map);
	for (int k = 0; k < st->n; k++) {
		FREE_NULL_BITMAP(st->core[k]);
		xfree(st->cores_per_sock[k]);
	}
	xfree(st->index);
	xfree(st->core);
	xfree(st->res);
	xfree(st->cores_per_sock);
}
