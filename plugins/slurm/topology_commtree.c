/*
 * Plugin glue for topology/commtree. Every interface call goes to the
 * topology_tree.so that Slurm built and installed in PluginDir, except
 * node evaluation, which commtree_eval() takes over.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"
#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "commtree.h"

const char plugin_name[] = "topology commtree plugin";
const char plugin_type[] = "topology/commtree";
const uint32_t plugin_id = 150;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The tree plugin's entry points. */
static struct {
	void *handle;
	int (*init)(void);
	int (*fini)(void);
	int (*build_config)(void);
	int (*eval_nodes)(topology_eval_t *topo_eval);
	int (*whole_topo)(bitstr_t *node_mask);
	bitstr_t *(*get_bitmap)(char *name);
	bool (*generate_node_ranking)(void);
	int (*get_node_addr)(char *node_name, char **paddr, char **ppattern);
	int (*split_hostlist)(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
			      uint16_t tree_width);
	int (*topology_free)(void *topoinfo_ptr);
	int (*get)(topology_data_t type, void *data);
	int (*topology_pack)(void *topoinfo_ptr, buf_t *buffer,
			     uint16_t protocol_version);
	int (*topology_print)(void *topoinfo_ptr, char *nodes_list,
			      char **out);
	int (*topology_unpack)(void **topoinfo_pptr, buf_t *buffer,
			       uint16_t protocol_version);
	uint32_t (*get_fragmentation)(bitstr_t *node_mask);
} tree;

#define TREE_SYM(field, name)						\
	do {								\
		*(void **) (&tree.field) = dlsym(tree.handle, name);	\
		if (!tree.field) {					\
			error("%s: topology_tree.so lacks %s",		\
			      plugin_type, name);			\
			return SLURM_ERROR;				\
		}							\
	} while (0)

/* PluginDir may list several directories. */
static void *_open_tree(void)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *save = NULL, *dir;
	void *handle = NULL;

	for (dir = strtok_r(dirs, ":", &save); dir && !handle;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/topology_tree.so", dir);
		handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		xfree(path);
	}
	xfree(dirs);
	return handle;
}

extern int init(void)
{
	if (!(tree.handle = _open_tree())) {
		error("%s: cannot load topology_tree.so from PluginDir %s: %s",
		      plugin_type, slurm_conf.plugindir, dlerror());
		return SLURM_ERROR;
	}
	*(void **) (&tree.init) = dlsym(tree.handle, "init");
	*(void **) (&tree.fini) = dlsym(tree.handle, "fini");
	TREE_SYM(build_config, "topology_p_build_config");
	TREE_SYM(eval_nodes, "topology_p_eval_nodes");
	TREE_SYM(whole_topo, "topology_p_whole_topo");
	TREE_SYM(get_bitmap, "topology_p_get_bitmap");
	TREE_SYM(generate_node_ranking, "topology_p_generate_node_ranking");
	TREE_SYM(get_node_addr, "topology_p_get_node_addr");
	TREE_SYM(split_hostlist, "topology_p_split_hostlist");
	TREE_SYM(topology_free, "topology_p_topology_free");
	TREE_SYM(get, "topology_p_get");
	TREE_SYM(topology_pack, "topology_p_topology_pack");
	TREE_SYM(topology_print, "topology_p_topology_print");
	TREE_SYM(topology_unpack, "topology_p_topology_unpack");
	TREE_SYM(get_fragmentation, "topology_p_get_fragmentation");
	return tree.init ? tree.init() : SLURM_SUCCESS;
}

extern int fini(void)
{
	int rc = SLURM_SUCCESS;

	commtree_free_topology();
	if (tree.fini)
		rc = tree.fini();
	if (tree.handle)
		dlclose(tree.handle);
	memset(&tree, 0, sizeof(tree));
	return rc;
}

extern int topology_p_build_config(void)
{
	int rc = tree.build_config();

	if (running_in_slurmctld())
		commtree_load_topology();
	return rc;
}

extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	return commtree_eval(topo_eval, tree.eval_nodes);
}

extern int topology_p_whole_topo(bitstr_t *node_mask)
{
	return tree.whole_topo(node_mask);
}

extern bitstr_t *topology_p_get_bitmap(char *name)
{
	return tree.get_bitmap(name);
}

extern bool topology_p_generate_node_ranking(void)
{
	return tree.generate_node_ranking();
}

extern int topology_p_get_node_addr(char *node_name, char **paddr,
				    char **ppattern)
{
	return tree.get_node_addr(node_name, paddr, ppattern);
}

extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl,
				     int *count, uint16_t tree_width)
{
	return tree.split_hostlist(hl, sp_hl, count, tree_width);
}

extern int topology_p_topology_free(void *topoinfo_ptr)
{
	return tree.topology_free(topoinfo_ptr);
}

extern int topology_p_get(topology_data_t type, void *data)
{
	int rc = tree.get(type, data);

	/* Tree stamps its own id; the interface packs only the active one. */
	if (rc == SLURM_SUCCESS && type == TOPO_DATA_TOPOLOGY_PTR) {
		dynamic_plugin_data_t **info = data;
		if (*info)
			(*info)->plugin_id = plugin_id;
	}
	return rc;
}

extern int topology_p_topology_pack(void *topoinfo_ptr, buf_t *buffer,
				    uint16_t protocol_version)
{
	return tree.topology_pack(topoinfo_ptr, buffer, protocol_version);
}

extern int topology_p_topology_print(void *topoinfo_ptr, char *nodes_list,
				     char **out)
{
	return tree.topology_print(topoinfo_ptr, nodes_list, out);
}

extern int topology_p_topology_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	return tree.topology_unpack(topoinfo_pptr, buffer, protocol_version);
}

extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask)
{
	return tree.get_fragmentation(node_mask);
}
