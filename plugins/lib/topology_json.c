/*
 * The project's topology JSON (emulated-clusters/generate.py) into a
 * struct tb_topology, through the builder of topology.c: switches, the
 * nodes under their leaves, and a torus' dimensions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "load_text.h"
#include "topology_internal.h"

static int json_int(const struct tb_json *obj, const char *key, int dflt)
{
	const struct tb_json *v = tb_json_get(obj, key);

	if (!v || v->type != TB_JSON_NUMBER || v->number < -1 ||
	    v->number > 1e9)
		return dflt;
	return (int)v->number;
}

static int load_switches(struct tb_topology *t, const struct tb_json *sw,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < sw->count; i++) {
		const struct tb_json *s = &sw->items[i];
		const struct tb_json *name = tb_json_get(s, "name");
		const struct tb_json *parent = tb_json_get(s, "parent");

		if (!name || name->type != TB_JSON_STRING)
			return tb_err_set(err, errlen, "switch without a name%s", NULL);
		if (tb_topology_add_switch(t, name->string,
					   parent && parent->type == TB_JSON_STRING ?
					   parent->string : NULL))
			return tb_err_set(err, errlen,
					  "duplicate switch '%s' (or out of memory)",
					  name->string);
	}
	return 0;
}

/* A torus node's "coord": [x, y, z] (absent: not a torus node). */
static int load_coord(struct tb_node *node, const struct tb_json *c)
{
	if (!c)
		return 0;
	if (c->type != TB_JSON_ARRAY || c->count != 3)
		return -1;
	for (int d = 0; d < 3; d++) {
		double v = c->items[d].number;

		if (c->items[d].type != TB_JSON_NUMBER || v < 0 || v > 1e6 ||
		    v != (int)v)
			return -1;
		node->coord[d] = (int)v;
	}
	return 0;
}

/* The machine's "torus": [X, Y, Z], if any (generate.py's torus kind). */
static int load_torus(struct tb_topology *t, const struct tb_json *doc,
		      char *err, size_t errlen)
{
	const struct tb_json *d = tb_json_get(doc, "torus");
	int dims[3];

	if (!d)
		return 0;
	if (d->type != TB_JSON_ARRAY || d->count != 3)
		return tb_err_set(err, errlen, "'torus' is not [X, Y, Z]%s",
				  NULL);
	for (int k = 0; k < 3; k++) {
		if (d->items[k].type != TB_JSON_NUMBER ||
		    d->items[k].number < 1 || d->items[k].number > 4096)
			return tb_err_set(err, errlen, "'torus' is not "
					  "[X, Y, Z] of whole numbers from 1 "
					  "to 4096%s", NULL);
		dims[k] = (int)d->items[k].number;
	}
	return tb_topology_set_torus(t, dims[0], dims[1], dims[2], err, errlen);
}

/* Leaves list their nodes by index; a node must be under exactly one leaf. */
static int load_nodes(struct tb_topology *t, const struct tb_json *nodes,
		      const struct tb_json *sw, char *err, size_t errlen)
{
	int *leaf_of = malloc(sizeof(int) * (nodes->count ? nodes->count : 1));

	if (!leaf_of)
		return tb_err_set(err, errlen, "out of memory%s", NULL);
	for (size_t i = 0; i < nodes->count; i++)
		leaf_of[i] = -1;
	for (size_t s = 0; s < sw->count; s++) {
		const struct tb_json *lv = tb_json_get(&sw->items[s], "level");
		const struct tb_json *members = tb_json_get(&sw->items[s], "nodes");

		if (!lv || lv->type != TB_JSON_NUMBER || lv->number != 0)
			continue;
		if (!members || members->type != TB_JSON_ARRAY)
			goto bad_leaf;
		for (size_t k = 0; k < members->count; k++) {
			const struct tb_json *m = &members->items[k];
			if (m->type != TB_JSON_NUMBER || m->number < 0 ||
			    m->number >= (double)nodes->count ||
			    leaf_of[(size_t)m->number] != -1)
				goto bad_leaf;
			leaf_of[(size_t)m->number] = (int)s;
		}
	}
	for (size_t i = 0; i < nodes->count; i++) {
		const struct tb_json *n = &nodes->items[i];
		const struct tb_json *name = tb_json_get(n, "name");
		struct tb_node *node;

		if (!name || name->type != TB_JSON_STRING || leaf_of[i] < 0) {
			free(leaf_of);
			return tb_err_set(err, errlen,
					  "node %s has no name or no leaf switch",
					  name && name->type == TB_JSON_STRING ?
					  name->string : "?");
		}
		if (tb_topology_add_node(t, name->string, leaf_of[i],
					 json_int(n, "cores", 1))) {
			free(leaf_of);
			return tb_err_set(err, errlen, "out of memory%s", NULL);
		}
		node = &t->nodes[t->n_nodes - 1];
		node->router = json_int(n, "router", -1);
		node->chassis = json_int(n, "chassis", -1);
		node->group = json_int(n, "group", -1);
		if (load_coord(node, tb_json_get(n, "coord"))) {
			free(leaf_of);
			return tb_err_set(err, errlen, "node %s: 'coord' is "
					  "not three whole numbers from 0",
					  name->string);
		}
	}
	free(leaf_of);
	return 0;
bad_leaf:
	free(leaf_of);
	return tb_err_set(err, errlen,
			  "a leaf switch lists a node index that is missing, "
			  "out of range or already under another leaf%s", NULL);
}

int tb_topology_from_json_text(const char *text, size_t len,
			       struct tb_topology **out, char *err,
			       size_t errlen)
{
	struct tb_json doc;
	const struct tb_json *nodes, *sw;
	struct tb_topology *t;
	char jerr[128];

	*out = NULL;
	if (tb_json_parse(text, len, &doc, jerr, sizeof(jerr)))
		return tb_err_set(err, errlen, "not JSON: %s", jerr);
	nodes = tb_json_get(&doc, "nodes");
	sw = tb_json_get(&doc, "switches");
	if (!nodes || nodes->type != TB_JSON_ARRAY || !sw ||
	    sw->type != TB_JSON_ARRAY) {
		tb_json_free(&doc);
		return tb_err_set(err, errlen,
				  "expected an object with 'nodes' and 'switches' arrays%s",
			       NULL);
	}
	t = tb_topology_new();
	if (!t) {
		tb_json_free(&doc);
		return tb_err_set(err, errlen, "out of memory%s", NULL);
	}
	if (load_switches(t, sw, err, errlen) ||
	    load_nodes(t, nodes, sw, err, errlen) ||
	    tb_topology_finish(t, err, errlen) ||
	    load_torus(t, &doc, err, errlen)) {
		tb_json_free(&doc);
		tb_topology_free(t);
		return -1;
	}
	tb_json_free(&doc);
	*out = t;
	return 0;
}

/* tb_topology_from_json_text as load_text.h's parser (out: struct
 * tb_topology **); its reasons do not name the file, as before. */
static int parse_topology(const char *text, size_t len, const char *name,
			  void *out, char *err, size_t errlen)
{
	(void)name;
	return tb_topology_from_json_text(text, len, out, err, errlen);
}

int tb_topology_load(const char *path, struct tb_topology **out, char *err,
		     size_t errlen)
{
	*out = NULL;
	return tb_load_text(path, parse_topology, out, err, errlen);
}
